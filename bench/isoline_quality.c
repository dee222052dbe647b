/* Quality of the isoline mode and of its design choices, on the noisy
 * inputs bm3d-quality makes (the same generator, seeds and file-name
 * streams, so the two programs' figures compare image by image): the
 * variant, the expert options, colour led by luminance against each
 * channel on its own, and thresholds in units of the noise variance
 * against the paper's values held fixed at their sigma 25 meaning.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 *   bm3d-isoline-quality [--sigma S] [--seed N] [--backend B] [--threads N]
 *                        [--isoline-variant hybrid|pipd] [--t-max T]
 *                        [--t2-max T] [--thicken] [--fixed-thresholds]
 *                        [--per-channel] clean...
 *
 * --fixed-thresholds: T_max and T2_max scaled by (25 / sigma)^2, which
 *   holds the thresholds at the absolute values they have at sigma 25.
 * --per-channel: colour images denoised channel by channel, each as a
 *   gray image at sigma, instead of led by the luminance.  */
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
psnr (const Image *clean, const float *out)
{
  int colour = clean->channels - (clean->has_alpha ? 1 : 0);
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

/* As bm3d-quality: FNV-1a of the file name.  */
static uint64_t
name_hash (const char *name)
{
  uint64_t h = 0xcbf29ce484222325ULL;

  for (; *name; name++)
    h = (h ^ (unsigned char) *name) * 0x100000001b3ULL;
  return h;
}

/* Each colour channel of `in` as a gray image of its own.  */
static bm3d_status
denoise_per_channel (const Image *in, Image *out, const bm3d_params *params,
                     bm3d_report *report)
{
  const size_t n = (size_t) in->width * in->height;
  float *a = malloc (n * sizeof (float)), *b = malloc (n * sizeof (float));
  bm3d_status status = BM3D_OK;
  double total = 0.0;

  if (!a || !b)
    {
      free (a);
      free (b);
      return BM3D_ERR_OUT_OF_MEMORY;
    }
  for (int c = 0; c < 3 && status == BM3D_OK; c++)
    {
      bm3d_image gi = { in->width, in->height, 1, 0, (size_t) in->width, a };
      bm3d_image go = { in->width, in->height, 1, 0, (size_t) in->width, b };

      for (size_t i = 0; i < n; i++)
        a[i] = in->data[i * in->channels + c];
      status = bm3d_denoise (&gi, &go, params, report);
      total += report->seconds_total;
      for (size_t i = 0; i < n; i++)
        out->data[i * out->channels + c] = b[i];
    }
  report->seconds_total = total;
  free (a);
  free (b);
  return status;
}

int
main (int argc, char **argv)
{
  bm3d_params params;
  uint64_t seed = 1;
  int per_channel = 0, fixed = 0, i;
  double sum_psnr = 0.0, sum_in = 0.0, sum_time = 0.0;
  int count = 0;

  bm3d_params_init (&params);
  params.mode = BM3D_MODE_ISOLINE;
  params.backend = BM3D_BACKEND_CPU;
  for (i = 1; i < argc && argv[i][0] == '-'; i++)
    {
      const char *a = argv[i];
      int needs = strcmp (a, "--thicken") != 0
                  && strcmp (a, "--per-channel") != 0
                  && strcmp (a, "--fixed-thresholds") != 0;

      if (needs && i + 1 >= argc)
        {
          fprintf (stderr, "%s: option %s needs a value\n", argv[0], a);
          return 2;
        }
      if (strcmp (a, "--sigma") == 0)
        params.sigma = (float) atof (argv[++i]);
      else if (strcmp (a, "--seed") == 0)
        seed = strtoull (argv[++i], NULL, 10);
      else if (strcmp (a, "--backend") == 0)
        params.backend = bm3d_backend_parse (argv[++i]);
      else if (strcmp (a, "--threads") == 0)
        params.threads = atoi (argv[++i]);
      else if (strcmp (a, "--isoline-variant") == 0)
        params.isoline.variant = bm3d_isoline_variant_parse (argv[++i]);
      else if (strcmp (a, "--t-max") == 0)
        params.isoline.t_max = (float) atof (argv[++i]);
      else if (strcmp (a, "--t2-max") == 0)
        params.isoline.t2_max = (float) atof (argv[++i]);
      else if (strcmp (a, "--thicken") == 0)
        params.isoline.thicken = 1;
      else if (strcmp (a, "--fixed-thresholds") == 0)
        fixed = 1;
      else if (strcmp (a, "--per-channel") == 0)
        per_channel = 1;
      else
        {
          fprintf (stderr, "%s: unknown option %s\n", argv[0], a);
          return 2;
        }
    }
  if ((int) params.backend < 0 || (int) params.isoline.variant < 0
      || i >= argc)
    {
      fprintf (stderr, "usage: %s [--sigma S] [--seed N] [--backend B] "
               "[--threads N] [--isoline-variant hybrid|pipd] [--t-max T] "
               "[--t2-max T] [--thicken] [--fixed-thresholds] "
               "[--per-channel] clean-image...\n", argv[0]);
      return 2;
    }
  if (fixed)
    {
      /* The defaults (1 and 2) or the values given, at their sigma-25
       * absolute size.  */
      double k = (25.0 / params.sigma) * (25.0 / params.sigma);

      params.isoline.t_max = (float) ((params.isoline.t_max > 0.0f
                                       ? params.isoline.t_max : 1.0) * k);
      params.isoline.t2_max = (float) ((params.isoline.t2_max > 0.0f
                                        ? params.isoline.t2_max : 2.0) * k);
    }

  printf ("# sigma %g, isoline %s, seed %llu%s%s%s, float noisy input\n",
          (double) params.sigma,
          bm3d_isoline_variant_name (params.isoline.variant),
          (unsigned long long) seed, per_channel ? ", per channel" : "",
          fixed ? ", thresholds fixed at their sigma-25 values" : "",
          params.isoline.thicken ? ", thickened" : "");
  printf ("# %-14s %8s %8s %8s %s\n", "image", "noisy", "psnr", "seconds",
          "backend");
  for (; i < argc; i++)
    {
      Image clean, noisy, out;
      char error[512];
      bm3d_image in_img, out_img;
      bm3d_report report;
      bm3d_status status;
      size_t n;
      double in_psnr, out_psnr;

      if (image_read (argv[i], &clean, error, sizeof error) != 0)
        {
          fprintf (stderr, "%s\n", error);
          return 1;
        }
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
      add_gaussian_noise (noisy.data, n, params.sigma,
                          seed * 1000003u + (uint64_t) (params.sigma * 100.0f)
                          + name_hash (base_name (argv[i])));
      in_img = engine_view (&noisy);
      out_img = engine_view (&out);
      if (per_channel && clean.channels - clean.has_alpha == 3)
        status = denoise_per_channel (&noisy, &out, &params, &report);
      else
        status = bm3d_denoise (&in_img, &out_img, &params, &report);
      if (status != BM3D_OK)
        {
          fprintf (stderr, "%s: %s: %s\n", argv[i], bm3d_status_string (status),
                   report.message);
          return 1;
        }
      in_psnr = psnr (&clean, noisy.data);
      out_psnr = psnr (&clean, out.data);
      printf ("%-16s %8.3f %8.3f %8.3f %s\n", base_name (argv[i]), in_psnr,
              out_psnr, report.seconds_total,
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
