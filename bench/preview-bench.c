/* Preview benchmark: times the engine call the dialog's preview makes —
 * a 400 x 400 area read with the context its mode needs
 * (bm3d_context_margin), in the middle of a larger noisy image — per
 * mode and backend, warm (after one call on the same area, so the CUDA
 * context and the engine's first-call set-up are not counted).  No
 * GIMP: this is how the GPU figure of BENCHMARKS.md's "Dialog preview
 * latency" is measured on a machine without it.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 *   bm3d-preview-bench [--backends cpu,cuda] [--modes bm3d,bm3d-fast,...]
 *                      [--size N] [--channels 1|3] [--sigma S]
 *                      [--threads N] [--repeat N] [--image FILE]
 *
 * Prints one row per mode and backend: the context read, the median and
 * best time of --repeat calls (ms), and the speed in megapixels of
 * preview per second.  A mode the engine lacks prints "not implemented";
 * a backend it cannot use, the reason.  */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bm3d.h"
#include "image_io.h"
#include "util.h"

#define MAX_LIST 8
/* The larger image the preview looks into: room for the widest context
 * on every side of the area.  */
#define FRAME    160

typedef struct
{
  bm3d_backend  backends[MAX_LIST];
  int           n_backends;
  bm3d_mode     modes[MAX_LIST];
  int           n_modes;
  int           size;
  int           channels;
  float         sigma;
  int           threads;
  int           repeat;
  const char   *image;
} options;

/* A clean picture with flat areas, gradients, edges and texture.  */
static void
synth (float *data, int w, int h, int channels)
{
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        double g = 60.0 + 100.0 * x * y / ((double) w * h)
                   + (((x / 48) + (y / 40)) & 1
                      ? 25.0 * sin (x * 0.35) * sin (y * 0.21) : 0.0)
                   + ((x % 160 - 80) * (x % 160 - 80)
                      + (y % 120 - 60) * (y % 120 - 60) < 40 * 40
                      ? 50.0 : 0.0);

        for (int c = 0; c < channels; c++)
          data[((size_t) y * w + x) * channels + c]
            = (float) fmin (240.0, fmax (16.0, g * (1.0 - 0.15 * c)));
      }
}

static int
by_value (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* One row: the area (x0, y0, size x size) of `img` with its context.  */
static void
bench_row (const options *opt, const bm3d_image *img, bm3d_mode mode,
           bm3d_backend backend)
{
  bm3d_params params;
  bm3d_report report;
  bm3d_status status;
  bm3d_image in, out;
  double *times;
  int margin, align, x0, y0, x1, y1;
  int core = FRAME;

  bm3d_params_init (&params);
  params.sigma = opt->sigma;
  params.mode = mode;
  params.backend = backend;
  params.threads = opt->threads;

  printf ("%-10s %-7s ", bm3d_mode_name (mode), bm3d_backend_name (backend));
  status = bm3d_context_margin (&params, opt->channels, &margin, &align,
                                &report);
  if (status != BM3D_OK)
    {
      printf ("%s\n", report.message[0] ? report.message
                                        : bm3d_status_string (status));
      return;
    }

  /* As the plug-in computes it: the margin around the area, the origin
   * moved back to the alignment, clipped to the image.  */
  x0 = (core - margin) / align * align;
  y0 = x0;
  x1 = core + opt->size + margin < img->width ? core + opt->size + margin
                                              : img->width;
  y1 = core + opt->size + margin < img->height ? core + opt->size + margin
                                               : img->height;
  in = *img;
  in.width = x1 - x0;
  in.height = y1 - y0;
  in.data = img->data + (size_t) y0 * img->stride + (size_t) x0 * img->channels;
  out = in;
  out.stride = (size_t) in.width * in.channels;
  out.data = malloc (sizeof (float) * out.stride * out.height);
  times = malloc (sizeof (double) * opt->repeat);
  if (!out.data || !times)
    {
      printf ("out of memory\n");
      free (out.data);
      free (times);
      return;
    }

  /* Warm: the first call creates the CUDA context and the engine's
   * buffers; the dialog makes it while it opens.  */
  status = bm3d_denoise (&in, &out, &params, &report);
  for (int r = 0; r < opt->repeat && status == BM3D_OK; r++)
    {
      status = bm3d_denoise (&in, &out, &params, &report);
      times[r] = report.seconds_total * 1000.0;
    }

  if (status == BM3D_ERR_NOT_IMPLEMENTED)
    printf ("not implemented\n");
  else if (status != BM3D_OK)
    printf ("%s\n", report.message[0] ? report.message
                                      : bm3d_status_string (status));
  else if (backend != BM3D_BACKEND_AUTO && report.backend_used != backend)
    printf ("ran on %s\n", bm3d_backend_name (report.backend_used));
  else
    {
      qsort (times, opt->repeat, sizeof *times, by_value);
      printf ("%4dx%-4d %8.1f %8.1f %7.2f\n", in.width, in.height,
              times[opt->repeat / 2], times[0],
              (double) opt->size * opt->size / (times[opt->repeat / 2] * 1e3));
    }
  free (out.data);
  free (times);
}

static int
parse_list (const char *s, int (*parse) (const char *), int *out, int max)
{
  char *copy = strdup (s), *save = NULL;
  int n = 0;

  for (char *t = strtok_r (copy, ",", &save); t; t = strtok_r (NULL, ",", &save))
    {
      int v = parse (t);

      if (v < 0 || n == max)
        {
          fprintf (stderr, "bm3d-preview-bench: unknown or too many: %s\n", t);
          free (copy);
          return -1;
        }
      out[n++] = v;
    }
  free (copy);
  return n;
}

static void
usage (void)
{
  fprintf (stderr,
           "Usage: bm3d-preview-bench [--backends cpu,cuda] "
           "[--modes bm3d,bm3d-fast,nlm,isoline]\n"
           "                          [--size N] [--channels 1|3] "
           "[--sigma S] [--threads N]\n"
           "                          [--repeat N] [--image FILE]\n");
}

int
main (int argc, char **argv)
{
  options opt = { { BM3D_BACKEND_CPU, BM3D_BACKEND_CUDA }, 2,
                  { BM3D_MODE_BM3D, BM3D_MODE_BM3D_FAST, BM3D_MODE_NLM,
                    BM3D_MODE_ISOLINE }, 4,
                  400, 3, 25.0f, 0, 9, NULL };
  bm3d_image img;
  size_t n;
  char error[256];

  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
      int list[MAX_LIST], k;

      if (!v)
        {
          usage ();
          return 2;
        }
      if (strcmp (a, "--backends") == 0)
        {
          if ((k = parse_list (v, bm3d_backend_parse, list, MAX_LIST)) < 0)
            return 2;
          opt.n_backends = k;
          for (int j = 0; j < k; j++)
            opt.backends[j] = (bm3d_backend) list[j];
        }
      else if (strcmp (a, "--modes") == 0)
        {
          if ((k = parse_list (v, bm3d_mode_parse, list, MAX_LIST)) < 0)
            return 2;
          opt.n_modes = k;
          for (int j = 0; j < k; j++)
            opt.modes[j] = (bm3d_mode) list[j];
        }
      else if (strcmp (a, "--size") == 0)
        opt.size = atoi (v);
      else if (strcmp (a, "--channels") == 0)
        opt.channels = atoi (v);
      else if (strcmp (a, "--sigma") == 0)
        opt.sigma = (float) atof (v);
      else if (strcmp (a, "--threads") == 0)
        opt.threads = atoi (v);
      else if (strcmp (a, "--repeat") == 0)
        opt.repeat = atoi (v);
      else if (strcmp (a, "--image") == 0)
        opt.image = v;
      else
        {
          usage ();
          return 2;
        }
      i++;
    }
  if (opt.size < 16 || opt.size > 4096 || opt.repeat < 1
      || (opt.channels != 1 && opt.channels != 3) || opt.threads < 0
      || !(opt.sigma > 0.0f && opt.sigma <= 255.0f))
    {
      usage ();
      return 2;
    }

  img.width = img.height = opt.size + 2 * FRAME;
  img.channels = opt.channels;
  img.has_alpha = 0;
  img.stride = (size_t) img.width * img.channels;
  n = img.stride * img.height;
  img.data = malloc (sizeof (float) * n);
  if (!img.data)
    {
      fprintf (stderr, "bm3d-preview-bench: out of memory\n");
      return 1;
    }
  if (opt.image)
    {
      /* A photograph, tiled (mirrored) over the frame.  */
      Image photo;

      if (image_read (opt.image, &photo, error, sizeof error) != 0)
        {
          fprintf (stderr, "bm3d-preview-bench: %s\n", error);
          return 1;
        }
      for (int y = 0; y < img.height; y++)
        for (int x = 0; x < img.width; x++)
          for (int c = 0; c < img.channels; c++)
            {
              int px = x % (2 * photo.width), py = y % (2 * photo.height);
              int sc = c < photo.channels - photo.has_alpha ? c : 0;

              px = px < photo.width ? px : 2 * photo.width - 1 - px;
              py = py < photo.height ? py : 2 * photo.height - 1 - py;
              img.data[((size_t) y * img.width + x) * img.channels + c]
                = photo.data[((size_t) py * photo.width + px) * photo.channels
                             + sc];
            }
      image_free (&photo);
    }
  else
    synth (img.data, img.width, img.height, img.channels);
  add_gaussian_noise (img.data, n, opt.sigma, 1);

  printf ("# preview %dx%d, %s, sigma %g, %s threads; milliseconds, median "
          "and best of "
          "%d warm calls\n", opt.size, opt.size,
          opt.channels == 3 ? "RGB" : "gray", (double) opt.sigma,
          opt.threads ? "fixed" : "all", opt.repeat);
  if (bm3d_cuda_available (error, sizeof error))
    {
      char name[256];

      if (bm3d_cuda_device_name (0, name, sizeof name))
        printf ("# CUDA device: %s\n", name);
    }
  else
    printf ("# CUDA: %s\n", error);
  printf ("%-10s %-7s %-9s %8s %8s %7s\n", "mode", "backend", "context",
          "median", "best", "MP/s");
  for (int m = 0; m < opt.n_modes; m++)
    for (int b = 0; b < opt.n_backends; b++)
      bench_row (&opt, &img, opt.modes[m], opt.backends[b]);
  free (img.data);
  return 0;
}
