/* Denoising quality of the CPU backend on two reference photographs:
 * camera (gray, BM3D) and astronaut (RGB, CBM3D) with white Gaussian
 * noise (fixed seed, float, unclipped) at three noise levels.  The
 * floors sit a little below the measured PSNR, so that a regression in
 * the algorithm shows while rounding differences between compilers and
 * processors (FMA or not) do not.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "bm3d.h"
#include "image_io.h"
#include "engine-tap.h"

typedef struct
{
  const char *file;
  float       sigma;
  double      floor_db;     /* measured minus a small margin */
} quality_case;

static const quality_case cases[] = {
  /* Measured: 34.105, 29.853, 27.721 (gray), 37.148, 32.676, 29.297
   * (colour); the floors are 0.1 dB lower.  */
  { "camera.png",    10.0f, 34.00 },
  { "camera.png",    25.0f, 29.75 },
  { "camera.png",    50.0f, 27.62 },
  { "astronaut.png", 10.0f, 37.05 },
  { "astronaut.png", 25.0f, 32.57 },
  { "astronaut.png", 50.0f, 29.19 },
};

static void
run_case (const quality_case *qc, const char *dir)
{
  char path[4200], error[512];
  Image clean;
  float *noisy, *out;
  size_t n;
  uint64_t rng = 20260101u + (uint64_t) qc->sigma;
  bm3d_image in_img, out_img;
  bm3d_params params;
  bm3d_report report;
  bm3d_status status;
  double before, after;

  snprintf (path, sizeof path, "%s/%s", dir, qc->file);
  if (image_read (path, &clean, error, sizeof error) != 0)
    {
      tap_ok (0, "%s: %s", qc->file, error);
      return;
    }
  n = (size_t) clean.width * clean.height * clean.channels;
  noisy = malloc (n * sizeof (float));
  out = malloc (n * sizeof (float));
  for (size_t i = 0; i < n; i++)
    noisy[i] = clean.data[i] + (float) (qc->sigma * rng_gauss (&rng));

  in_img.width = out_img.width = clean.width;
  in_img.height = out_img.height = clean.height;
  in_img.channels = out_img.channels = clean.channels;
  in_img.has_alpha = out_img.has_alpha = clean.has_alpha;
  in_img.stride = out_img.stride = (size_t) clean.width * clean.channels;
  in_img.data = noisy;
  out_img.data = out;
  bm3d_params_init (&params);
  params.sigma = qc->sigma;
  params.backend = BM3D_BACKEND_CPU;
  status = bm3d_denoise (&in_img, &out_img, &params, &report);

  /* The test images have no alpha: every sample counts.  */
  before = psnr_strided (clean.data, noisy, n, 1, 0);
  after = psnr_strided (clean.data, out, n, 1, 0);
  tap_ok (status == BM3D_OK && after >= qc->floor_db,
          "%s sigma %g: PSNR %.3f dB (noisy %.3f, floor %.2f) in %.2f s",
          qc->file, (double) qc->sigma, after, before, qc->floor_db,
          report.seconds_total);
  image_free (&clean);
  free (noisy);
  free (out);
}

int
main (void)
{
  const char *top = getenv ("top_srcdir");
  char dir[4096];

  if (!image_format_supported (IMAGE_FORMAT_PNG))
    {
      printf ("1..0 # SKIP built without libpng: cannot read the test "
              "images\n");
      return 0;
    }
  snprintf (dir, sizeof dir, "%s/tests/data", top ? top : ".");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    run_case (&cases[i], dir);
  return tap_done ();
}
