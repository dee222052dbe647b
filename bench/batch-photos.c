/* Photos for the batch benchmark, and the speed of each file writer.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 *   bm3d-batch-photos [--count N] [--size WxH] [--sigma S]
 *                     [--formats png,jpg,tif] OUTDIR SOURCE...
 *       N different noisy photos (default 24 of 4000x3000, sigma 20):
 *       each from one SOURCE image, mirrored or flipped, cropped at its
 *       own place, upscaled (bilinear), tinted and given its own noise,
 *       written as photo-NN.png, photo-NN.jpg (quality 95) ...
 *   bm3d-batch-photos --write-speed [--repeat N] [--quick] IMAGE
 *       writes IMAGE as PNG at each zlib level (level 1 on every core
 *       and on one), as JPEG at quality 95 and as TIFF, in memory's page
 *       cache (a temporary folder), and prints the best time of N and
 *       the file size of each; --quick: PNG level 1 and JPEG alone.  */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "image_io.h"
#include "util.h"

#define MAX_SOURCES 64

static double
now_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Sample (x, y) of channel c of `src`, bilinear, edges clamped; gray
 * sources feed every channel.  */
static float
sample (const Image *src, double x, double y, int c)
{
  int colour = src->channels - (src->has_alpha ? 1 : 0);
  int sc = c < colour ? c : 0;
  int x0 = (int) floor (x), y0 = (int) floor (y);
  double fx = x - x0, fy = y - y0;
  int x1 = x0 + 1, y1 = y0 + 1;
  float v[4];

  x0 = x0 < 0 ? 0 : x0 >= src->width ? src->width - 1 : x0;
  x1 = x1 < 0 ? 0 : x1 >= src->width ? src->width - 1 : x1;
  y0 = y0 < 0 ? 0 : y0 >= src->height ? src->height - 1 : y0;
  y1 = y1 < 0 ? 0 : y1 >= src->height ? src->height - 1 : y1;
  v[0] = src->data[((size_t) y0 * src->width + x0) * src->channels + sc];
  v[1] = src->data[((size_t) y0 * src->width + x1) * src->channels + sc];
  v[2] = src->data[((size_t) y1 * src->width + x0) * src->channels + sc];
  v[3] = src->data[((size_t) y1 * src->width + x1) * src->channels + sc];
  return (float) ((v[0] * (1 - fx) + v[1] * fx) * (1 - fy)
                  + (v[2] * (1 - fx) + v[3] * fx) * fy);
}

/* Photo number `k` of size w x h from `src`.  */
static void
make_photo (const Image *src, int k, Image *out, double sigma)
{
  int variant = k;
  int mirror = variant & 1, flip = (variant >> 1) & 1;
  /* A crop of 70..100 % of the source, at a place of its own.  */
  double scale = 0.7 + 0.3 * ((variant * 37) % 11) / 10.0;
  double cw = src->width * scale, ch = cw * out->height / out->width;
  double ox, oy;
  float tint[3];

  if (ch > src->height)
    {
      ch = src->height * scale;
      cw = ch * out->width / out->height;
    }
  ox = (src->width - cw) * ((variant * 53) % 17) / 16.0;
  oy = (src->height - ch) * ((variant * 29) % 13) / 12.0;
  for (int c = 0; c < 3; c++)
    tint[c] = (float) (0.9 + 0.2 * (((k + 1) * (c + 3) * 7) % 10) / 9.0);

  for (int y = 0; y < out->height; y++)
    for (int x = 0; x < out->width; x++)
      {
        double sx = ox + (x + 0.5) * cw / out->width - 0.5;
        double sy = oy + (y + 0.5) * ch / out->height - 0.5;
        float *px = out->data + ((size_t) y * out->width + x) * 3;

        if (mirror)
          sx = ox + cw - 1 - (sx - ox);
        if (flip)
          sy = oy + ch - 1 - (sy - oy);
        for (int c = 0; c < 3; c++)
          px[c] = sample (src, sx, sy, c) * tint[c];
      }
  add_gaussian_noise (out->data, (size_t) out->width * out->height * 3,
                      sigma, 1000 + (uint64_t) k);
}

static int
make_photos (int argc, char **argv)
{
  int count = 24, width = 4000, height = 3000, n_src = 0;
  double sigma = 20.0;
  const char *formats = "png,jpg";
  const char *outdir = NULL;
  Image sources[MAX_SOURCES];
  char error[1024];
  int status = 0;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--count") == 0 && i + 1 < argc)
        count = atoi (argv[++i]);
      else if (strcmp (argv[i], "--size") == 0 && i + 1 < argc)
        {
          if (sscanf (argv[++i], "%dx%d", &width, &height) != 2)
            width = 0;
        }
      else if (strcmp (argv[i], "--sigma") == 0 && i + 1 < argc)
        sigma = atof (argv[++i]);
      else if (strcmp (argv[i], "--formats") == 0 && i + 1 < argc)
        formats = argv[++i];
      else if (!outdir)
        outdir = argv[i];
      else if (n_src < MAX_SOURCES)
        {
          if (image_read (argv[i], &sources[n_src], error, sizeof error) < 0)
            {
              fprintf (stderr, "%s\n", error);
              status = 1;
              break;
            }
          n_src++;
        }
    }
  if (status == 0 && (!outdir || n_src == 0 || count < 1 || width < 1
                      || height < 1))
    {
      fprintf (stderr, "usage: bm3d-batch-photos [--count N] [--size WxH] "
               "[--sigma S] [--formats png,jpg,tif] OUTDIR SOURCE...\n");
      status = 2;
    }
  for (int k = 0; k < count && status == 0; k++)
    {
      Image photo;
      char list[64], *save = NULL;

      if (image_alloc (&photo, width, height, 3, 0, 8, error,
                       sizeof error) < 0)
        {
          fprintf (stderr, "%s\n", error);
          status = 1;
          break;
        }
      make_photo (&sources[k % n_src], k / n_src * n_src + k, &photo, sigma);
      snprintf (list, sizeof list, "%s", formats);
      for (char *ext = strtok_r (list, ",", &save); ext && status == 0;
           ext = strtok_r (NULL, ",", &save))
        {
          char path[4096];

          snprintf (path, sizeof path, "%s/photo-%02d.%s", outdir, k, ext);
          if (image_write (path, &photo, 8, error, sizeof error) < 0)
            {
              fprintf (stderr, "%s\n", error);
              status = 1;
            }
        }
      image_free (&photo);
    }
  for (int i = 0; i < n_src; i++)
    image_free (&sources[i]);
  return status;
}

static long
file_size (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 ? (long) st.st_size : -1;
}

static int
write_speed (const char *image, int repeat, int quick)
{
  /* threads 0: every core; the PNG writer's slices at levels 0, 1.  */
  static const struct { const char *ext; int level, threads; } cases[] =
  {
    { "png", 1, 0 }, { "png", 1, 1 }, { "jpg", -1, 0 },
    { "png", 0, 0 }, { "png", 2, 0 }, { "png", 3, 0 }, { "png", 6, 0 },
    { "png", 9, 0 }, { "tif", 1, 0 }, { "tif", 6, 0 }
  };
  size_t n_cases = quick ? 3 : sizeof cases / sizeof cases[0];
  long cores = sysconf (_SC_NPROCESSORS_ONLN);
  char dir[] = "/tmp/bm3d-write-speed.XXXXXX";
  char error[1024];
  Image img;

  if (image_read (image, &img, error, sizeof error) < 0)
    {
      fprintf (stderr, "%s\n", error);
      return 1;
    }
  if (!mkdtemp (dir))
    {
      perror ("mkdtemp");
      image_free (&img);
      return 1;
    }
  printf ("%s: %dx%d, %d channels, %d bits; best of %d\n", image, img.width,
          img.height, img.channels, img.depth, repeat);
  printf ("| file | setting | write (s) | size (MB) |\n|---|---|---|---|\n");
  for (size_t i = 0; i < n_cases; i++)
    {
      ImageWriteOptions options;
      char path[4200];
      double best = 1e30;

      image_write_options_init (&options);
      options.depth = img.depth == 16 ? 16 : 8;
      if (cases[i].level >= 0)
        options.png_level = cases[i].level;
      options.threads = cases[i].threads;
      snprintf (path, sizeof path, "%s/out.%s", dir, cases[i].ext);
      for (int r = 0; r < repeat; r++)
        {
          double t = now_seconds ();

          if (image_write_with (path, IMAGE_FORMAT_UNKNOWN, &img, &options,
                                error, sizeof error) < 0)
            {
              fprintf (stderr, "%s\n", error);
              break;
            }
          t = now_seconds () - t;
          best = t < best ? t : best;
        }
      if (cases[i].level >= 0 && strcmp (cases[i].ext, "png") == 0
          && cases[i].level <= 1)
        printf ("| %s | level %d, %d thread%s | %.3f | %.2f |\n",
                cases[i].ext, cases[i].level,
                cases[i].threads ? cases[i].threads : (int) cores,
                (cases[i].threads ? cases[i].threads : cores) == 1 ? ""
                                                                   : "s",
                best, file_size (path) / 1e6);
      else if (cases[i].level >= 0)
        printf ("| %s | level %d | %.3f | %.2f |\n", cases[i].ext,
                cases[i].level, best, file_size (path) / 1e6);
      else
        printf ("| %s | quality %d | %.3f | %.2f |\n", cases[i].ext,
                options.quality, best, file_size (path) / 1e6);
      unlink (path);
    }
  rmdir (dir);
  image_free (&img);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc >= 3 && strcmp (argv[1], "--write-speed") == 0)
    {
      int repeat = 3, quick = 0;
      int i = 2;

      for (;;)
        if (i + 2 < argc && strcmp (argv[i], "--repeat") == 0)
          {
            repeat = atoi (argv[i + 1]);
            i += 2;
          }
        else if (i + 1 < argc && strcmp (argv[i], "--quick") == 0)
          {
            quick = 1;
            i++;
          }
        else
          break;
      return write_speed (argv[i], repeat > 0 ? repeat : 1, quick);
    }
  return make_photos (argc, argv);
}
