/* Non-local means (mode nlm) through bm3d_denoise () on the CPU backend:
 * the parameter table, agreement with the algorithm computed directly
 * from its description, edge sizes, alpha and row padding, PSNR on the
 * test photographs, option errors, progress and cancelling, thread
 * counts and tiling, the correction of clipped noise.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "bm3d.h"
#include "bm3d/bm3d_tables.h"
#include "image_io.h"
#include "engine-tap.h"
#include "engine-image.h"

static size_t
image_values (const test_image *t)
{
  return t->img.stride * t->img.height;
}

static void
image_fill_noisy (test_image *t, float base, float sigma, uint64_t seed)
{
  uint64_t rng = seed;

  for (size_t i = 0; i < image_values (t); i++)
    t->buffer[i] = base + (float) (sigma * rng_gauss (&rng));
}

/* A clean picture with edges and texture, plus noise.  */
static void
image_fill_scene (test_image *t, float sigma, uint64_t seed)
{
  uint64_t rng = seed;

  for (int y = 0; y < t->img.height; y++)
    for (int x = 0; x < t->img.width; x++)
      for (int c = 0; c < t->img.channels; c++)
        {
          double v = 60.0 + 80.0 * ((x / 9 + y / 7) & 1)
                     + 30.0 * sin (x * 0.3 + c) * cos (y * 0.2);

          t->buffer[y * t->img.stride + (size_t) x * t->img.channels + c]
            = (float) (v + sigma * rng_gauss (&rng));
        }
}

static void
params_nlm (bm3d_params *params, float sigma)
{
  bm3d_params_init (params);
  params->sigma = sigma;
  params->mode = BM3D_MODE_NLM;
  params->backend = BM3D_BACKEND_CPU;
}

static int
same_values (const test_image *a, const test_image *b)
{
  return memcmp (a->buffer, b->buffer, sizeof (float) * image_values (a)) == 0;
}

/* Mean squared deviation of the colour values from `v`.  */
static double
spread_around (const test_image *t, double v)
{
  int colour = t->img.channels - t->img.has_alpha;
  double sum = 0.0;
  size_t n = 0;

  for (int y = 0; y < t->img.height; y++)
    for (int x = 0; x < t->img.width; x++)
      for (int c = 0; c < colour; c++, n++)
        {
          double d = t->buffer[y * t->img.stride + (size_t) x * t->img.channels
                               + c] - v;

          sum += d * d;
        }
  return sum / n;
}

/* ---- the parameter table ------------------------------------------------ */

static void
check_table (void)
{
  /* Buades, Coll & Morel, IPOL 2011: sigma, channels -> patch side,
   * search side, h / sigma.  */
  static const struct { float sigma; int channels, patch, search; float h; }
  rows[] =
  {
    { 5.0f, 1, 3, 21, 0.40f }, { 15.0f, 1, 3, 21, 0.40f },
    { 15.5f, 1, 5, 21, 0.40f }, { 30.0f, 1, 5, 21, 0.40f },
    { 40.0f, 1, 7, 35, 0.35f }, { 75.0f, 1, 9, 35, 0.35f },
    { 90.0f, 1, 11, 35, 0.30f }, { 200.0f, 1, 11, 35, 0.30f },
    { 10.0f, 3, 3, 21, 0.55f }, { 25.0f, 3, 3, 21, 0.55f },
    { 26.0f, 3, 5, 35, 0.40f }, { 55.0f, 3, 5, 35, 0.40f },
    { 80.0f, 3, 7, 35, 0.35f }
  };
  int ok = 1;

  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    {
      bm3d_nlm_profile p;

      bm3d_nlm_profile_for_sigma (rows[i].sigma, rows[i].channels, &p);
      if (2 * p.patch_radius + 1 != rows[i].patch
          || 2 * p.search_radius + 1 != rows[i].search
          || fabs (p.h - rows[i].h * rows[i].sigma) > 1e-4 * rows[i].sigma)
        {
          ok = 0;
          tap_diag ("sigma %g, %d channel(s): %dx%d, %dx%d, h %g",
                    (double) rows[i].sigma, rows[i].channels,
                    2 * p.patch_radius + 1, 2 * p.patch_radius + 1,
                    2 * p.search_radius + 1, 2 * p.search_radius + 1,
                    (double) p.h);
        }
    }
  tap_ok (ok, "parameters by sigma follow the published table (grayscale "
          "and colour)");
}

/* ---- sizes, alpha, padding ------------------------------------------------ */

static void
check_sizes (void)
{
  static const int sizes[][3] = { { 1, 1, 1 }, { 1, 1, 3 }, { 7, 7, 3 },
                                  { 7, 7, 1 }, { 1000, 9, 1 },
                                  { 1000, 9, 3 }, { 9, 1000, 3 },
                                  { 2, 300, 1 }, { 13, 17, 3 },
                                  { 101, 53, 1 }, { 8, 8, 3 } };

  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    {
      test_image in, out;
      bm3d_params params;
      bm3d_report report;
      bm3d_status status;
      int w = sizes[i][0], h = sizes[i][1], ch = sizes[i][2];
      double before, after;

      image_new (&in, w, h, ch, 0, 0);
      image_new (&out, w, h, ch, 0, 0);
      image_fill_noisy (&in, 120.0f, 20.0f, 3 + i);
      params_nlm (&params, 20.0f);
      status = bm3d_denoise (&in.img, &out.img, &params, &report);
      before = spread_around (&in, 120.0);
      after = spread_around (&out, 120.0);
      /* A flat grey with noise: the result must be far flatter (one
       * pixel averages with its own mirror images only).  */
      tap_ok (status == BM3D_OK && all_finite (&out)
              && report.backend_used == BM3D_BACKEND_CPU
              && (w * h == 1 ? after <= before + 1e-3 : after < before / 2),
              "%dx%d, %d channel(s): denoised, finite, deviation %.1f -> %.1f "
              "(%s)", w, h, ch, sqrt (before), sqrt (after),
              status == BM3D_OK ? "ok" : report.message);
      free (in.buffer);
      free (out.buffer);
    }
}

static void
check_constant (void)
{
  for (int ch = 1; ch <= 3; ch += 2)
    {
      test_image in, out;
      bm3d_params params;
      bm3d_status status;
      double worst = 0.0;

      image_new (&in, 45, 38, ch, 0, 0);
      image_new (&out, 45, 38, ch, 0, 0);
      for (size_t i = 0; i < image_values (&in); i++)
        in.buffer[i] = 77.25f;
      params_nlm (&params, 25.0f);
      status = bm3d_denoise (&in.img, &out.img, &params, NULL);
      for (size_t i = 0; i < image_values (&in); i++)
        if (!(fabs (out.buffer[i] - 77.25) <= worst))
          worst = fabs (out.buffer[i] - 77.25);
      tap_ok (status == BM3D_OK && worst < 1e-3,
              "constant %d-channel image stays constant (max error %.2g)",
              ch, worst);
      free (in.buffer);
      free (out.buffer);
    }
}

static void
check_alpha_and_stride (void)
{
  for (int ch = 2; ch <= 4; ch += 2)
    {
      test_image in, out, plain_in, plain_out;
      bm3d_params params;
      bm3d_status status, status2;
      int w = 31, h = 22, exact = 1, untouched = 1, same = 1;
      size_t in_stride = (size_t) w * ch + 5, out_stride = (size_t) w * ch + 3;

      image_new (&in, w, h, ch, 1, in_stride);
      image_new (&out, w, h, ch, 1, out_stride);
      image_fill_scene (&in, 20.0f, 17);
      for (size_t i = 0; i < image_values (&out); i++)
        out.buffer[i] = -7.0f;
      /* Alpha values that no arithmetic would give back exactly.  */
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          in.buffer[y * in_stride + x * ch + ch - 1]
            = (float) (x * 0.1234567 + y * 3.3);
      params_nlm (&params, 20.0f);
      status = bm3d_denoise (&in.img, &out.img, &params, NULL);
      for (int y = 0; y < h; y++)
        {
          for (int x = 0; x < w; x++)
            if (memcmp (&in.buffer[y * in_stride + x * ch + ch - 1],
                        &out.buffer[y * out_stride + x * ch + ch - 1],
                        sizeof (float)) != 0)
              exact = 0;
          for (size_t x = (size_t) w * ch; x < out_stride; x++)
            if (out.buffer[y * out_stride + x] != -7.0f)
              untouched = 0;
        }
      tap_ok (status == BM3D_OK && exact, "%s: alpha copied bit-exact",
              ch == 2 ? "gray+alpha" : "RGBA");
      tap_ok (untouched, "%s: row padding of the output untouched",
              ch == 2 ? "gray+alpha" : "RGBA");

      /* The same colour data without alpha and padding: same result.  */
      image_new (&plain_in, w, h, ch - 1, 0, 0);
      image_new (&plain_out, w, h, ch - 1, 0, 0);
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          for (int c = 0; c < ch - 1; c++)
            plain_in.buffer[(y * w + x) * (ch - 1) + c]
              = in.buffer[y * in_stride + x * ch + c];
      status2 = bm3d_denoise (&plain_in.img, &plain_out.img, &params, NULL);
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          for (int c = 0; c < ch - 1; c++)
            if (plain_out.buffer[(y * w + x) * (ch - 1) + c]
                != out.buffer[y * out_stride + x * ch + c])
              same = 0;
      tap_ok (status2 == BM3D_OK && same, "%s: alpha and row padding do not "
              "change the colour result", ch == 2 ? "gray+alpha" : "RGBA");
      free (in.buffer);
      free (out.buffer);
      free (plain_in.buffer);
      free (plain_out.buffer);
    }
}

/* ---- clipped noise ----------------------------------------------------- */

/* Mean of the colour values of rows y0 .. y1 - 1.  */
static double
rows_mean (const test_image *t, int y0, int y1)
{
  int colour = t->img.channels - t->img.has_alpha;
  double sum = 0.0;

  for (int y = y0; y < y1; y++)
    for (int x = 0; x < t->img.width; x++)
      for (int c = 0; c < colour; c++)
        sum += t->buffer[y * t->img.stride + (size_t) x * t->img.channels + c];
  return sum / ((double) (y1 - y0) * t->img.width * colour);
}

/* Noise clipped to 0..255 and rounded, as an 8-bit file holds it: a dark
 * band (6), a bright one (250) and a grey one (128) at sigma 40.  Every
 * mean of such values is lifted towards grey (by 13 levels at 6); with
 * `clipped` set the result's bands are back at their levels, the grey
 * band (3.2 sigma from both ends, where the two biases nearly cancel)
 * moves by hundredths, and alpha is untouched.  */
static void
check_clipped (void)
{
  const int w = 96, h = 96, band = h / 3;
  const float level[3] = { 6.0f, 250.0f, 128.0f };
  const float sigma = 40.0f;
  test_image in, plain, fixed;
  bm3d_params params;
  uint64_t rng = 4242;
  int ok = 1, alpha_exact = 1, ok_range;
  double plain_mean[3], fixed_mean[3], grey_moved = 0.0;

  image_new (&in, w, h, 2, 1, (size_t) w * 2);
  image_new (&plain, w, h, 2, 1, (size_t) w * 2);
  image_new (&fixed, w, h, 2, 1, (size_t) w * 2);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        double v = level[y / band] + sigma * rng_gauss (&rng);

        v = v < 0.0 ? 0.0 : v > 255.0 ? 255.0 : floor (v + 0.5);
        in.buffer[(size_t) y * w * 2 + x * 2] = (float) v;
        in.buffer[(size_t) y * w * 2 + x * 2 + 1] = (float) (x * 0.37 + y);
      }
  params_nlm (&params, sigma);
  ok &= bm3d_denoise (&in.img, &plain.img, &params, NULL) == BM3D_OK;
  params.clipped = 1;
  ok &= bm3d_denoise (&in.img, &fixed.img, &params, NULL) == BM3D_OK;
  for (int k = 0; k < 3; k++)
    {
      /* The band's inside: NL-means' window reaches 17 + 4 pixels.  */
      plain_mean[k] = rows_mean (&plain, k * band + 8, (k + 1) * band - 8);
      fixed_mean[k] = rows_mean (&fixed, k * band + 8, (k + 1) * band - 8);
    }
  for (size_t i = 0; i < image_values (&in); i += 2)
    {
      if (memcmp (&in.buffer[i + 1], &fixed.buffer[i + 1], sizeof (float)))
        alpha_exact = 0;
      if (i / (2 * w) >= (size_t) 2 * band + 21)
        grey_moved = fmax (grey_moved, fabs (plain.buffer[i] - fixed.buffer[i]));
    }
  tap_ok (ok && fabs (plain_mean[0] - 6.0) > 8.0
          && fabs (plain_mean[1] - 250.0) > 8.0,
          "clipped noise, not corrected: dark band at %.1f, bright at %.1f "
          "(6 and 250 under the noise)", plain_mean[0], plain_mean[1]);
  tap_ok (ok && fabs (fixed_mean[0] - 6.0) < 2.5
          && fabs (fixed_mean[1] - 250.0) < 2.5,
          "clipped noise, corrected: dark band at %.1f, bright at %.1f",
          fixed_mean[0], fixed_mean[1]);
  /* The rule the callers set `clipped` by: colour values only.  */
  in.buffer[1] = -3.0f;
  in.buffer[3] = 300.0f;
  ok_range = bm3d_image_within_range (&in.img);
  in.buffer[(size_t) w * 2 * 40 + 2 * 17] = 255.5f;
  ok_range = ok_range && !bm3d_image_within_range (&in.img);
  tap_ok (ok_range, "within range: alpha outside 0..255 does not count, "
          "one colour value at 255.5 does");
  tap_ok (ok && grey_moved < 0.1 && alpha_exact,
          "clipped noise, corrected: grey band (%.1f) moved by at most %.3f, "
          "alpha exact", fixed_mean[2], grey_moved);
  free (in.buffer);
  free (plain.buffer);
  free (fixed.buffer);
}

/* ---- against the article, computed the slow way ---------------------------- */

/* The tile reflected at its border, as the engine treats pixels outside
 * it (... 1 0 | 0 1 ... n-1 | n-1 n-2 ...).  */
static int
reflect_index (int i, int n)
{
  int period = 2 * n;

  i %= period;
  if (i < 0)
    i += period;
  return i < n ? i : period - 1 - i;
}

/* Patch-wise NL-means straight from the description, in double: every
 * patch centre p (inside the image or f beyond it), every other centre
 * q within r, d^2 the (Gaussian-)weighted mean squared difference over
 * the patch and the channels, weight exp (-max (d^2 - 2 sigma^2, 0) /
 * h^2) (0 below 2^-43), the patch itself weighted with the
 * largest other weight (1 when all are 0); each
 * pixel the mean of the estimates of the patches containing it.  */
static void
nlm_reference (const float *in, int w, int h, int ch, int f, int r,
               double sigma, double hh, int gaussian, double *out)
{
  int side = 2 * f + 1;
  double taps[2 * 7 + 1], tap_sum = 0.0;
  double *est = malloc (sizeof (double) * side * side * ch);

#define PX(y, x, c) \
  in[((size_t) reflect_index (y, h) * w + reflect_index (x, w)) * ch + (c)]

  for (int k = -f; k <= f; k++)
    {
      double a = (f + 1) / 2.0;

      taps[k + f] = gaussian ? exp (-(double) k * k / (2.0 * a * a)) : 1.0;
      tap_sum += taps[k + f];
    }
  memset (out, 0, sizeof (double) * w * h * ch);
  for (int py = -f; py < h + f; py++)
    for (int px = -f; px < w + f; px++)
      {
        double wsum = 0.0, wmax = 0.0;

        memset (est, 0, sizeof (double) * side * side * ch);
        for (int qy = py - r; qy <= py + r; qy++)
          for (int qx = px - r; qx <= px + r; qx++)
            {
              double d2 = 0.0, wq;

              if (qy == py && qx == px)
                continue;
              for (int j = -f; j <= f; j++)
                for (int i = -f; i <= f; i++)
                  for (int c = 0; c < ch; c++)
                    {
                      double d = PX (py + j, px + i, c) - PX (qy + j, qx + i, c);

                      d2 += taps[j + f] * taps[i + f] * d * d;
                    }
              d2 /= tap_sum * tap_sum * ch;
              wq = fmax (d2 - 2.0 * sigma * sigma, 0.0) / (hh * hh);
              wq = wq > 43.0 * 0.69314718055994531 ? 0.0 : exp (-wq);
              wsum += wq;
              wmax = fmax (wmax, wq);
              for (int j = 0; j < side; j++)
                for (int i = 0; i < side; i++)
                  for (int c = 0; c < ch; c++)
                    est[(j * side + i) * ch + c]
                      += wq * PX (qy + j - f, qx + i - f, c);
            }
        if (wmax == 0.0)
          wmax = 1.0;     /* like nothing in its window: its own values */
        for (int j = 0; j < side; j++)
          for (int i = 0; i < side; i++)
            {
              int y = py + j - f, x = px + i - f;

              if (y < 0 || y >= h || x < 0 || x >= w)
                continue;
              for (int c = 0; c < ch; c++)
                out[((size_t) y * w + x) * ch + c]
                  += (est[(j * side + i) * ch + c]
                      + wmax * PX (y, x, c)) / (wsum + wmax) / (side * side);
            }
      }
#undef PX
  free (est);
}

static void
check_reference (void)
{
  static const struct { int w, h, ch, patch, search; float sigma, h_nlm;
                        int gaussian; } cases[] =
  {
    { 23, 17, 3, 3, 5, 20.0f, 11.0f, 0 },
    { 19, 21, 1, 5, 7, 25.0f, 10.0f, 0 },
    { 16, 14, 1, 5, 5, 30.0f, 12.0f, 1 },
    { 9, 12, 3, 1, 3, 15.0f, 9.0f, 0 },
  };

  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
      test_image in, out;
      bm3d_params params;
      bm3d_status status;
      size_t n;
      double *ref, worst = 0.0;

      image_new (&in, cases[k].w, cases[k].h, cases[k].ch, 0, 0);
      image_new (&out, cases[k].w, cases[k].h, cases[k].ch, 0, 0);
      image_fill_scene (&in, cases[k].sigma, 31 + k);
      n = image_values (&in);
      ref = malloc (sizeof (double) * n);
      params_nlm (&params, cases[k].sigma);
      params.nlm.patch = cases[k].patch;
      params.nlm.search = cases[k].search;
      params.nlm.h = cases[k].h_nlm;
      params.nlm.gaussian = cases[k].gaussian;
      status = bm3d_denoise (&in.img, &out.img, &params, NULL);
      nlm_reference (in.buffer, cases[k].w, cases[k].h, cases[k].ch,
                     cases[k].patch / 2, cases[k].search / 2, cases[k].sigma,
                     cases[k].h_nlm, cases[k].gaussian, ref);
      for (size_t i = 0; i < n; i++)
        if (!(fabs (out.buffer[i] - ref[i]) <= worst))
          worst = fabs (out.buffer[i] - ref[i]);
      /* Float sums and a polynomial 2^x against double and exp ().  */
      tap_ok (status == BM3D_OK && worst < 2e-3,
              "%dx%d, %d channel(s), %dx%d patches, %dx%d window%s: the "
              "article's algorithm computed directly agrees (max difference "
              "%.1e)", cases[k].w, cases[k].h, cases[k].ch, cases[k].patch,
              cases[k].patch, cases[k].search, cases[k].search,
              cases[k].gaussian ? ", Gaussian" : "", worst);
      free (ref);
      free (in.buffer);
      free (out.buffer);
    }
}

/* ---- quality on the test photographs -------------------------------------- */

typedef struct
{
  const char *file;
  float       sigma;
  double      floor_db;     /* measured minus 0.1 dB */
} quality_case;

static const quality_case quality_cases[] = {
  /* Measured: 33.560, 29.378, 26.976 (gray), 35.813, 30.995, 27.126
   * (colour).  */
  { "camera.png",    10.0f, 33.46 },
  { "camera.png",    25.0f, 29.28 },
  { "camera.png",    50.0f, 26.87 },
  { "astronaut.png", 10.0f, 35.71 },
  { "astronaut.png", 25.0f, 30.89 },
  { "astronaut.png", 50.0f, 27.02 },
};

static void
check_quality (const char *dir)
{
  for (size_t k = 0; k < sizeof quality_cases / sizeof quality_cases[0]; k++)
    {
      const quality_case *qc = &quality_cases[k];
      char path[4200], error[512];
      Image clean;
      float *noisy, *result;
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
          continue;
        }
      n = (size_t) clean.width * clean.height * clean.channels;
      noisy = malloc (n * sizeof (float));
      result = malloc (n * sizeof (float));
      for (size_t i = 0; i < n; i++)
        noisy[i] = clean.data[i] + (float) (qc->sigma * rng_gauss (&rng));
      in_img.width = out_img.width = clean.width;
      in_img.height = out_img.height = clean.height;
      in_img.channels = out_img.channels = clean.channels;
      in_img.has_alpha = out_img.has_alpha = clean.has_alpha;
      in_img.stride = out_img.stride = (size_t) clean.width * clean.channels;
      in_img.data = noisy;
      out_img.data = result;
      params_nlm (&params, qc->sigma);
      status = bm3d_denoise (&in_img, &out_img, &params, &report);
      before = psnr_strided (clean.data, noisy, n, 1, 0);
      after = psnr_strided (clean.data, result, n, 1, 0);
      tap_ok (status == BM3D_OK && after >= qc->floor_db,
              "%s sigma %g: PSNR %.3f dB (noisy %.3f, floor %.2f) in %.2f s",
              qc->file, (double) qc->sigma, after, before, qc->floor_db,
              report.seconds_total);
      image_free (&clean);
      free (noisy);
      free (result);
    }
}

/* ---- options ---------------------------------------------------------------- */

static void
check_options (void)
{
  static const struct { const char *what; int patch, search; float h;
                        const char *names; } bad[] =
  {
    { "even patch size 4", 4, 0, 0.0f, "patch" },
    { "patch size 17", 17, 0, 0.0f, "patch" },
    { "patch size -3", -3, 0, 0.0f, "patch" },
    { "even search window 20", 0, 20, 0.0f, "search" },
    { "search window 73", 0, 73, 0.0f, "search" },
    { "search window 1", 0, 1, 0.0f, "search" },
    { "h -1", 0, 0, -1.0f, "h" },
    { "h NaN", 0, 0, NAN, "h" },
    { "h infinite", 0, 0, INFINITY, "h" },
  };
  test_image in, out, a, b;
  bm3d_params params;
  bm3d_report report;
  bm3d_status status;

  image_new (&in, 40, 30, 3, 0, 0);
  image_new (&out, 40, 30, 3, 0, 0);
  image_fill_scene (&in, 25.0f, 5);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      int untouched = 1;

      for (size_t k = 0; k < image_values (&out); k++)
        out.buffer[k] = 42.0f;
      params_nlm (&params, 25.0f);
      params.nlm.patch = bad[i].patch;
      params.nlm.search = bad[i].search;
      params.nlm.h = bad[i].h;
      status = bm3d_denoise (&in.img, &out.img, &params, &report);
      for (size_t k = 0; k < image_values (&out); k++)
        if (out.buffer[k] != 42.0f)
          untouched = 0;
      tap_ok (status == BM3D_ERR_INVALID_ARGUMENT && untouched
              && strstr (report.message, bad[i].names)
              && !strchr (report.message, '\n'),
              "%s refused, output untouched: %s", bad[i].what,
              report.message);
    }

  /* The table's own values given explicitly change nothing (colour,
   * sigma 25: 3x3 patches, 21x21 window, h = 0.55 sigma).  */
  image_new (&a, 40, 30, 3, 0, 0);
  image_new (&b, 40, 30, 3, 0, 0);
  params_nlm (&params, 25.0f);
  status = bm3d_denoise (&in.img, &a.img, &params, NULL);
  params.nlm.patch = 3;
  params.nlm.search = 21;
  params.nlm.h = 0.55f * 25.0f;
  tap_ok (status == BM3D_OK
          && bm3d_denoise (&in.img, &b.img, &params, NULL) == BM3D_OK
          && same_values (&a, &b),
          "explicit table values give the default result bit for bit");

  /* Other values are used: each changes the result.  */
  {
    static const int patch[] = { 5, 1, 15, 0, 0, 0 };
    static const int search[] = { 0, 0, 0, 7, 0, 0 };
    static const float h[] = { 0.0f, 0.0f, 0.0f, 0.0f, 30.0f, 0.0f };
    static const char *what[] = { "patch 5", "patch 1 (single pixels)",
                                  "patch 15", "search 7", "h 30",
                                  "Gaussian distance" };

    for (int i = 0; i < 6; i++)
      {
        params_nlm (&params, 25.0f);
        params.nlm.patch = patch[i];
        params.nlm.search = search[i];
        params.nlm.h = h[i];
        params.nlm.gaussian = i == 5;
        status = bm3d_denoise (&in.img, &b.img, &params, &report);
        tap_ok (status == BM3D_OK && all_finite (&b) && !same_values (&a, &b),
                "option %s takes effect", what[i]);
      }
  }
  free (in.buffer);
  free (out.buffer);
  free (a.buffer);
  free (b.buffer);
}

/* ---- progress and cancelling ---------------------------------------------- */

static void
check_progress_and_cancel (void)
{
  test_image in, out;
  bm3d_params params;
  bm3d_report report;
  bm3d_status status;
  progress_state p = { 0, 0, 0.0, 1 };

  image_new (&in, 120, 200, 3, 0, 0);
  image_new (&out, 120, 200, 3, 0, 0);
  image_fill_noisy (&in, 90.0f, 25.0f, 23);
  params_nlm (&params, 25.0f);
  params.progress = on_progress;
  params.progress_data = &p;
  status = bm3d_denoise (&in.img, &out.img, &params, &report);
  tap_ok (status == BM3D_OK && p.calls >= 4 && p.monotonic
          && fabs (p.last - 1.0) < 1e-9,
          "progress: %d calls, rising, ending at 1", p.calls);

  for (int at = 1; at <= 5; at += 2)
    {
      progress_state c = { 0, at, 0.0, 1 };
      int untouched = 1;

      for (size_t i = 0; i < image_values (&out); i++)
        out.buffer[i] = 42.0f;
      params.progress_data = &c;
      params.threads = at < 3 ? 1 : 2;
      status = bm3d_denoise (&in.img, &out.img, &params, &report);
      for (size_t i = 0; i < image_values (&out); i++)
        if (out.buffer[i] != 42.0f)
          untouched = 0;
      tap_ok (status == BM3D_ERR_CANCELLED && untouched && c.calls == at
              && strstr (report.message, "cancel"),
              "cancel at progress call %d (%d thread(s)): cancelled, output "
              "untouched, no call after", at, params.threads);
    }
  free (in.buffer);
  free (out.buffer);
}

/* ---- threads and tiles ------------------------------------------------------ */

static void
check_threads_and_tiles (void)
{
  static const int shapes[][3] = { { 300, 170, 3 }, { 211, 190, 1 } };

  for (int s = 0; s < 2; s++)
    {
      int w = shapes[s][0], h = shapes[s][1], ch = shapes[s][2];
      test_image in, one, two, tiled;
      bm3d_params params;
      bm3d_status s1, s2, s3;

      image_new (&in, w, h, ch, 0, 0);
      image_new (&one, w, h, ch, 0, 0);
      image_new (&two, w, h, ch, 0, 0);
      image_new (&tiled, w, h, ch, 0, 0);
      image_fill_scene (&in, 25.0f, 77 + s);
      params_nlm (&params, 25.0f);
      params.threads = 1;
      s1 = bm3d_denoise (&in.img, &one.img, &params, NULL);
      params.threads = 2;
      s2 = bm3d_denoise (&in.img, &two.img, &params, NULL);
      tap_ok (s1 == BM3D_OK && s2 == BM3D_OK && same_values (&one, &two),
              "%dx%d, %d channel(s): 1 and 2 threads give identical results",
              w, h, ch);

      /* Tiles of 40 pixels (each read with its margin): the same result
       * as one piece, bit for bit.  */
      setenv ("BM3D_NLM_TILE_SIDE", "40", 1);
      s3 = bm3d_denoise (&in.img, &tiled.img, &params, NULL);
      unsetenv ("BM3D_NLM_TILE_SIDE");
      tap_ok (s3 == BM3D_OK && same_values (&one, &tiled),
              "%dx%d, %d channel(s): 40-pixel tiles give the one-piece "
              "result", w, h, ch);
      free (in.buffer);
      free (one.buffer);
      free (two.buffer);
      free (tiled.buffer);
    }
}

int
main (void)
{
  const char *top = getenv ("top_srcdir");
  char dir[4096];

  check_table ();
  check_reference ();
  check_sizes ();
  check_constant ();
  check_alpha_and_stride ();
  check_options ();
  check_progress_and_cancel ();
  check_threads_and_tiles ();
  check_clipped ();
  if (image_format_supported (IMAGE_FORMAT_PNG))
    {
      snprintf (dir, sizeof dir, "%s/tests/data", top ? top : ".");
      check_quality (dir);
    }
  else
    for (size_t k = 0; k < sizeof quality_cases / sizeof quality_cases[0]; k++)
      tap_ok (1, "# SKIP built without libpng: cannot read the test images");
  return tap_done ();
}
