/* Denoising quality on reference images: adds white Gaussian noise of a
 * known deviation (fixed seed, kept in floating point, not clipped) to
 * each clean image, denoises it with the engine and prints the PSNR of
 * the result (clipped to 0..255, not rounded) against the clean image.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 *   bm3d-quality [--sigma S] [--mode bm3d|bm3d-fast|nlm|isoline]
 *                [--backend B] [--threads N] [--seed N] [--save-noisy DIR]
 *                [mode options as bm3d-denoise's: --nlm-h H, ...] clean...  */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bm3d.h"
#include "image_io.h"
#include "util.h"

static double
psnr (const Image *clean, const float *out, int colour)
{
  double se = 0.0;
  size_t count = 0;

  for (size_t p = 0; p < (size_t) clean->width * clean->height; p++)
    for (int c = 0; c < colour; c++)
      {
        double v = out[p * clean->channels + c];
        double d;

        v = v < 0.0 ? 0.0 : v > 255.0 ? 255.0 : v;
        d = v - clean->data[p * clean->channels + c];
        se += d * d;
        count++;
      }
  return psnr_of_squared_error (se, count);
}

static const char *
base_name (const char *path)
{
  const char *s = strrchr (path, '/');

  return s ? s + 1 : path;
}

/* FNV-1a of the file name: each image gets its own noise stream, the
 * same whatever else is on the command line.  */
static uint64_t
name_hash (const char *name)
{
  uint64_t h = 0xcbf29ce484222325ULL;

  for (; *name; name++)
    h = (h ^ (unsigned char) *name) * 0x100000001b3ULL;
  return h;
}

int
main (int argc, char **argv)
{
  bm3d_params params;
  uint64_t seed = 1;
  const char *save_dir = NULL;
  double sum_psnr = 0.0, sum_in = 0.0, sum_time = 0.0;
  int count = 0, i;

  bm3d_params_init (&params);
  params.backend = BM3D_BACKEND_CPU;
  for (i = 1; i < argc && argv[i][0] == '-'; i++)
    {
      char error[200];
      int set;

      if (i + 1 >= argc && engine_option_takes_value (argv[i] + 2))
        {
          fprintf (stderr, "%s: option %s needs a value\n", argv[0], argv[i]);
          return 2;
        }
      set = engine_option_set (&params, argv[i] + 2,
                               engine_option_takes_value (argv[i] + 2)
                               ? argv[i + 1] : NULL, error, sizeof error);
      if (set < 0)
        {
          fprintf (stderr, "%s: %s\n", argv[0], error);
          return 2;
        }
      if (set > 0)
        {
          i += engine_option_takes_value (argv[i] + 2);
          continue;
        }
      if (strcmp (argv[i], "--sigma") == 0)
        params.sigma = (float) atof (argv[++i]);
      else if (strcmp (argv[i], "--mode") == 0)
        params.mode = bm3d_mode_parse (argv[++i]);
      else if (strcmp (argv[i], "--backend") == 0)
        params.backend = bm3d_backend_parse (argv[++i]);
      else if (strcmp (argv[i], "--threads") == 0)
        params.threads = atoi (argv[++i]);
      else if (strcmp (argv[i], "--seed") == 0)
        seed = strtoull (argv[++i], NULL, 10);
      else if (strcmp (argv[i], "--save-noisy") == 0)
        save_dir = argv[++i];
      else
        {
          fprintf (stderr, "%s: unknown option %s\n", argv[0], argv[i]);
          return 2;
        }
    }
  if ((int) params.mode < 0 || (int) params.backend < 0 || i >= argc)
    {
      fprintf (stderr, "usage: %s [--sigma S] [--mode bm3d|bm3d-fast] "
               "[--backend auto|cpu|cuda] [--threads N] [--seed N] "
               "[--save-noisy DIR] clean-image...\n", argv[0]);
      return 2;
    }

  printf ("# sigma %g, mode %s, seed %llu, float noisy input\n",
          (double) params.sigma, bm3d_mode_name (params.mode),
          (unsigned long long) seed);
  printf ("# %-14s %8s %8s %8s %8s %8s %8s %s\n", "image", "noisy", "psnr",
          "seconds", "phase1", "phase2", "peak_MB", "backend");
  for (; i < argc; i++)
    {
      Image clean, noisy, out;
      char error[512];
      bm3d_image in_img, out_img;
      bm3d_report report;
      bm3d_status status;
      int colour;
      size_t n;
      double in_psnr, out_psnr;

      if (image_read (argv[i], &clean, error, sizeof error) != 0)
        {
          fprintf (stderr, "%s\n", error);
          return 1;
        }
      colour = clean.channels - (clean.has_alpha ? 1 : 0);
      n = (size_t) clean.width * clean.height * clean.channels;
      if (image_alloc (&noisy, clean.width, clean.height, clean.channels,
                       clean.has_alpha, 32, error, sizeof error) != 0
          || image_alloc (&out, clean.width, clean.height, clean.channels,
                          clean.has_alpha, 32, error, sizeof error) != 0)
        {
          fprintf (stderr, "%s\n", error);
          return 1;
        }
      memcpy (noisy.data, clean.data, n * sizeof (float));
      /* One stream per image and sigma: the same noisy input every run.  */
      add_gaussian_noise (noisy.data, n, params.sigma,
                          seed * 1000003u + (uint64_t) (params.sigma * 100.0f)
                          + name_hash (base_name (argv[i])));
      if (save_dir)
        {
          char path[4096];

          snprintf (path, sizeof path, "%s/%s.pfm", save_dir, base_name (argv[i]));
          if (image_write (path, &noisy, 32, error, sizeof error) != 0)
            fprintf (stderr, "%s\n", error);
        }

      in_img = engine_view (&noisy);
      out_img = engine_view (&out);
      status = bm3d_denoise (&in_img, &out_img, &params, &report);
      if (status != BM3D_OK)
        {
          fprintf (stderr, "%s: %s: %s\n", argv[i], bm3d_status_string (status),
                   report.message);
          return 1;
        }
      in_psnr = psnr (&clean, noisy.data, colour);
      out_psnr = psnr (&clean, out.data, colour);
      printf ("%-16s %8.3f %8.3f %8.3f %8.3f %8.3f %8.1f %s\n",
              base_name (argv[i]), in_psnr, out_psnr, report.seconds_total,
              report.seconds_phase[0], report.seconds_phase[1],
              (report.peak_host_bytes + report.peak_device_bytes) / 1048576.0,
              bm3d_backend_name (report.backend_used));
      fflush (stdout);
      sum_in += in_psnr;
      sum_psnr += out_psnr;
      sum_time += report.seconds_total;
      count++;
      image_free (&clean);
      image_free (&noisy);
      image_free (&out);
    }
  printf ("%-16s %8.3f %8.3f %8.3f\n", "average", sum_in / count,
          sum_psnr / count, sum_time / count);
  return 0;
}
