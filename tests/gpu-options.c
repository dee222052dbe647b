/* The expert options of modes bm3d and bm3d-fast (search window, group
 * sizes, reference step, lambda, chroma scale) on the CUDA backend
 * against the CPU backend, on a crop of a test photograph.  Run by
 * tests/gpu-tests.sh and bench/cuda-round2.sh on a machine with a GPU:
 *
 *   tests/gpu-options IMAGE [WIDTH HEIGHT]
 *
 * Prints one line per option set and exits 0 when every set agrees
 * (PSNR against the clean crop within 0.05 dB of the CPU's, GPU against
 * CPU at least 40 dB), 1 when one does not, 77 without a usable CUDA
 * device.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bm3d.h"
#include "image_io.h"
#include "util.h"

typedef struct
{
  const char       *name;
  bm3d_mode         mode;
  float             sigma;
  bm3d_bm3d_options o;   /* search, group hard, group Wiener, step, lambda, chroma */
} option_set;

static const option_set sets[] = {
  { "search 21, step 2, groups 8/16, lambda 3",
    BM3D_MODE_BM3D, 25.0f, { 21, 8, 16, 2, 3.0f, 0.0f } },
  { "search 75, step 5, groups 32/8",
    BM3D_MODE_BM3D, 25.0f, { 75, 32, 8, 5, 0.0f, 0.0f } },
  { "search 9, step 1, groups 4/4",
    BM3D_MODE_BM3D, 15.0f, { 9, 4, 4, 1, 0.0f, 0.0f } },
  { "search 41, step 8, groups 32/32, lambda 2, chroma 2",
    BM3D_MODE_BM3D, 40.0f, { 41, 32, 32, 8, 2.0f, 2.0f } },
  { "bm3d-fast, search 31, step 4, group 2",
    BM3D_MODE_BM3D_FAST, 50.0f, { 31, 2, 0, 4, 0.0f, 0.0f } },
  { "groups of one patch",
    BM3D_MODE_BM3D, 25.0f, { 0, 1, 1, 0, 0.0f, 0.0f } },
  /* The reference step of block_match_rows, other windows and groups
   * (gpu-tests.sh runs the sets with it too).  */
  { "search 21, step 3, groups 8/16, lambda 3",
    BM3D_MODE_BM3D, 25.0f, { 21, 8, 16, 3, 3.0f, 0.0f } },
  { "search 9, step 3, groups 4/32",
    BM3D_MODE_BM3D, 15.0f, { 9, 4, 32, 3, 0.0f, 0.0f } },
};

static double
psnr (const float *a, const float *b, size_t n)
{
  double sum = 0.0;

  for (size_t i = 0; i < n; i++)
    {
      double x = a[i] < 0.0f ? 0.0 : a[i] > 255.0f ? 255.0 : a[i];
      double y = b[i] < 0.0f ? 0.0 : b[i] > 255.0f ? 255.0 : b[i];

      sum += (x - y) * (x - y);
    }
  return psnr_of_squared_error (sum, n);
}

static int
run (const bm3d_image *in, bm3d_image *out, const option_set *s,
     bm3d_backend backend, double *ms)
{
  bm3d_params params;
  bm3d_report report;
  bm3d_status status;

  bm3d_params_init (&params);
  params.sigma = s->sigma;
  params.mode = s->mode;
  params.backend = backend;
  params.bm3d = s->o;
  status = bm3d_denoise (in, out, &params, &report);
  if (status != BM3D_OK)
    {
      printf ("#   %s failed: %s\n", bm3d_backend_name (backend),
              report.message);
      return -1;
    }
  *ms = report.seconds_total * 1e3;
  return 0;
}

int
main (int argc, char **argv)
{
  Image src;
  char error[512];
  int w = 160, h = 128, failures = 0;

  if (argc != 2 && argc != 4)
    {
      fprintf (stderr, "usage: gpu-options IMAGE [WIDTH HEIGHT]\n");
      return 2;
    }
  if (!bm3d_cuda_available (error, sizeof error))
    {
      printf ("# no CUDA device: %s\n", error);
      return 77;
    }
  if (image_read (argv[1], &src, error, sizeof error) < 0)
    {
      fprintf (stderr, "gpu-options: %s\n", error);
      return 2;
    }
  if (argc == 4)
    {
      w = atoi (argv[2]);
      h = atoi (argv[3]);
    }
  if (w > src.width)
    w = src.width;
  if (h > src.height)
    h = src.height;

  const int ch = src.channels - src.has_alpha;
  const size_t n = (size_t) w * h * ch;
  float *clean = malloc (n * sizeof (float));
  float *noisy = malloc (n * sizeof (float));
  float *cpu = malloc (n * sizeof (float));
  float *gpu = malloc (n * sizeof (float));

  if (!clean || !noisy || !cpu || !gpu || w < 1 || h < 1)
    {
      fprintf (stderr, "gpu-options: out of memory or empty crop\n");
      return 2;
    }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < ch; c++)
        clean[((size_t) y * w + x) * ch + c]
          = src.data[((size_t) y * src.width + x) * src.channels + c];

  for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++)
    {
      const option_set *s = &sets[k];
      bm3d_image in = { w, h, ch, 0, (size_t) w * ch, noisy };
      bm3d_image oc = { w, h, ch, 0, (size_t) w * ch, cpu };
      bm3d_image og = { w, h, ch, 0, (size_t) w * ch, gpu };
      double t_cpu = 0.0, t_gpu = 0.0;

      memcpy (noisy, clean, n * sizeof (float));
      add_gaussian_noise (noisy, n, s->sigma, 11 + k);
      if (run (&in, &oc, s, BM3D_BACKEND_CPU, &t_cpu) < 0
          || run (&in, &og, s, BM3D_BACKEND_CUDA, &t_gpu) < 0)
        {
          printf ("FAIL %s, sigma %g: a backend failed\n", s->name,
                  (double) s->sigma);
          failures++;
          continue;
        }

      const double p_in = psnr (noisy, clean, n);
      const double p_cpu = psnr (cpu, clean, n);
      const double p_gpu = psnr (gpu, clean, n);
      const double agree = psnr (gpu, cpu, n);
      const int ok = fabs (p_gpu - p_cpu) <= 0.05 && agree >= 40.0
                     && p_gpu > p_in;

      printf ("%s %s, sigma %g: noisy %.3f, CPU %.4f, GPU %.4f dB, "
              "GPU vs CPU %.2f dB (CPU %.0f ms, GPU %.0f ms)\n",
              ok ? "ok" : "FAIL", s->name, (double) s->sigma, p_in, p_cpu,
              p_gpu, agree, t_cpu, t_gpu);
      failures += !ok;
    }
  free (clean);
  free (noisy);
  free (cpu);
  free (gpu);
  image_free (&src);
  return failures ? 1 : 0;
}
