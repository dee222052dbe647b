/* Edge cases through bm3d_denoise () on the CPU backend: tiny and thin
 * images, odd sizes, padded rows, constant and saturated images, extreme
 * sigmas, alpha, cancellation and invalid arguments; the context an area
 * needs (bm3d_context_margin) to be denoised as inside its image.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "bm3d.h"
#include "engine-tap.h"
#include "engine-image.h"

static void
image_fill_noisy (test_image *t, float base, float sigma, uint64_t seed)
{
  uint64_t rng = seed;

  for (size_t i = 0; i < t->img.stride * t->img.height; i++)
    t->buffer[i] = base + (float) (sigma * rng_gauss (&rng));
}

static bm3d_status
denoise (const test_image *in, test_image *out, float sigma, int mode,
         bm3d_report *report)
{
  bm3d_params params;

  bm3d_params_init (&params);
  params.sigma = sigma;
  params.mode = mode;
  params.backend = BM3D_BACKEND_CPU;
  return bm3d_denoise (&in->img, &out->img, &params, report);
}

static void
check_sizes (void)
{
  static const int sizes[][3] = { { 1, 1, 1 }, { 1, 1, 3 }, { 7, 7, 1 },
                                  { 7, 7, 3 }, { 9, 1000, 1 },
                                  { 1000, 9, 3 }, { 8, 8, 1 },
                                  { 13, 17, 3 }, { 101, 53, 1 },
                                  { 2, 300, 3 } };

  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    {
      test_image in, out;
      bm3d_report report;
      bm3d_status status;
      int w = sizes[i][0], h = sizes[i][1], ch = sizes[i][2];

      image_new (&in, w, h, ch, 0, 0);
      image_new (&out, w, h, ch, 0, 0);
      image_fill_noisy (&in, 120.0f, 20.0f, 3 + i);
      status = denoise (&in, &out, 20.0f, BM3D_MODE_BM3D, &report);
      tap_ok (status == BM3D_OK && all_finite (&out)
              && report.backend_used == BM3D_BACKEND_CPU
              && max_diff (&in, &out) < 120.0,
              "%dx%d, %d channel(s): denoised, finite (%s)", w, h, ch,
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
      bm3d_report report;
      bm3d_status status;
      double worst = 0.0;

      image_new (&in, 67, 45, ch, 0, 0);
      image_new (&out, 67, 45, ch, 0, 0);
      for (size_t i = 0; i < (size_t) 67 * 45 * ch; i++)
        in.buffer[i] = 77.25f;
      status = denoise (&in, &out, 25.0f, BM3D_MODE_BM3D, &report);
      /* Float sums of a few hundred weighted patches: 1e-4 relative.  */
      for (size_t i = 0; i < (size_t) 67 * 45 * ch; i++)
        if (!(fabs (out.buffer[i] - 77.25) <= worst))
          worst = fabs (out.buffer[i] - 77.25);
      tap_ok (status == BM3D_OK && worst < 1e-2,
              "constant %d-channel image stays constant (max error %.2g)",
              ch, worst);
      free (in.buffer);
      free (out.buffer);
    }
}

static void
check_saturated (void)
{
  test_image in, out;
  bm3d_report report;
  bm3d_status status;
  double err0 = 0.0, err255 = 0.0;

  /* Left half black, right half white: clipped noise, as in an 8-bit
   * photograph's shadows and highlights.  */
  image_new (&in, 64, 48, 3, 0, 0);
  image_new (&out, 64, 48, 3, 0, 0);
  image_fill_noisy (&in, 0.0f, 15.0f, 99);
  for (int y = 0; y < 48; y++)
    for (int x = 0; x < 64; x++)
      for (int c = 0; c < 3; c++)
        {
          float *v = &in.buffer[(y * 64 + x) * 3 + c];

          *v += x < 32 ? 0.0f : 255.0f;
          *v = *v < 0.0f ? 0.0f : *v > 255.0f ? 255.0f : *v;
        }
  status = denoise (&in, &out, 15.0f, BM3D_MODE_BM3D, &report);
  for (int y = 8; y < 40; y++)
    for (int x = 0; x < 64; x++)
      for (int c = 0; c < 3; c++)
        {
          double v = out.buffer[(y * 64 + x) * 3 + c];

          if (x < 24 && fabs (v) > err0)
            err0 = fabs (v);
          if (x >= 40 && fabs (v - 255.0) > err255)
            err255 = fabs (v - 255.0);
        }
  /* Clipped noise has a mean of about 0.4 sigma: the output may sit
   * that far inside, no more.  */
  tap_ok (status == BM3D_OK && all_finite (&out) && err0 < 12.0
          && err255 < 12.0, "saturated 0 / 255 areas stay near 0 / 255 "
          "(%.2f, %.2f)", err0, err255);
  free (in.buffer);
  free (out.buffer);
}

static void
check_sigmas (void)
{
  test_image in, out;
  bm3d_report report;
  bm3d_status status;
  double d;

  image_new (&in, 40, 33, 1, 0, 0);
  image_new (&out, 40, 33, 1, 0, 0);
  for (int y = 0; y < 33; y++)
    for (int x = 0; x < 40; x++)
      in.buffer[y * 40 + x] = (float) ((x * 7 + y * 3) % 256);
  status = denoise (&in, &out, 0.1f, BM3D_MODE_BM3D, &report);
  d = max_diff (&in, &out);
  tap_ok (status == BM3D_OK && d < 1.0,
          "sigma 0.1 leaves a clean image nearly unchanged (max change "
          "%.3f)", d);

  free (in.buffer);
  free (out.buffer);

  /* Black beside faint noise, at a tiny sigma: the Wiener phase's
   * groups in the black have gains next to zero, and their weights
   * once overflowed the sums (inf / inf: NaN pixels).  */
  image_new (&in, 96, 64, 3, 0, 0);
  image_new (&out, 96, 64, 3, 0, 0);
  image_fill_noisy (&in, 1.0f, 1.0f, 9);
  for (int y = 0; y < 64; y++)
    for (int x = 0; x < 96 * 3; x++)
      {
        float *v = &in.buffer[(size_t) y * in.img.stride + x];

        *v = x < 48 * 3 ? 0.0f : (*v < 0.0f ? 0.0f : *v * 1e-3f);
      }
  for (int i = 0; i < 3; i++)
    {
      static const float small[] = { 0.1f, 0.05f, 0.01f };

      status = denoise (&in, &out, small[i], BM3D_MODE_BM3D, &report);
      tap_ok (status == BM3D_OK && all_finite (&out),
              "sigma %g beside black: finite values", (double) small[i]);
    }
  free (in.buffer);
  free (out.buffer);

  image_new (&in, 40, 33, 1, 0, 0);
  image_new (&out, 40, 33, 1, 0, 0);
  image_fill_noisy (&in, 128.0f, 100.0f, 5);
  status = denoise (&in, &out, 100.0f, BM3D_MODE_BM3D, &report);
  tap_ok (status == BM3D_OK && all_finite (&out),
          "sigma 100 runs and gives finite values");
  status = denoise (&in, &out, 255.0f, BM3D_MODE_BM3D_FAST, &report);
  tap_ok (status == BM3D_OK && all_finite (&out),
          "sigma 255, one phase, runs and gives finite values");
  free (in.buffer);
  free (out.buffer);
}

static void
check_alpha_and_stride (void)
{
  for (int ch = 2; ch <= 4; ch += 2)
    {
      test_image in, out, plain_in, plain_out;
      bm3d_report report;
      bm3d_status status, status2;
      int w = 31, h = 22, exact = 1, untouched = 1;
      size_t in_stride = (size_t) w * ch + 5, out_stride = (size_t) w * ch + 3;

      image_new (&in, w, h, ch, 1, in_stride);
      image_new (&out, w, h, ch, 1, out_stride);
      image_fill_noisy (&in, 100.0f, 20.0f, 17);
      for (size_t i = 0; i < out_stride * h; i++)
        out.buffer[i] = -7.0f;
      /* Alpha values that no arithmetic would give back exactly.  */
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          in.buffer[y * in_stride + x * ch + ch - 1]
            = (float) (x * 0.1234567 + y * 3.3);

      status = denoise (&in, &out, 20.0f, BM3D_MODE_BM3D, &report);
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
      tap_ok (status == BM3D_OK && exact, "%d channels with alpha: alpha "
              "copied bit-exact", ch);
      tap_ok (untouched, "%d channels: row padding of the output untouched",
              ch);

      /* The same colour data without alpha and padding: same result.  */
      image_new (&plain_in, w, h, ch - 1, 0, 0);
      image_new (&plain_out, w, h, ch - 1, 0, 0);
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          for (int c = 0; c < ch - 1; c++)
            plain_in.buffer[(y * w + x) * (ch - 1) + c]
              = in.buffer[y * in_stride + x * ch + c];
      status2 = denoise (&plain_in, &plain_out, 20.0f, BM3D_MODE_BM3D,
                         &report);
      {
        int same = 1;

        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++)
            for (int c = 0; c < ch - 1; c++)
              if (plain_out.buffer[(y * w + x) * (ch - 1) + c]
                  != out.buffer[y * out_stride + x * ch + c])
                same = 0;
        tap_ok (status2 == BM3D_OK && same, "%d channels: alpha and row "
                "padding do not change the colour result", ch);
      }
      free (in.buffer);
      free (out.buffer);
      free (plain_in.buffer);
      free (plain_out.buffer);
    }
}

static void
check_progress_and_cancel (void)
{
  test_image in, out;
  bm3d_params params;
  bm3d_report report;
  bm3d_status status;
  progress_state p = { 0, 0, 0.0, 1 };
  int untouched = 1;

  image_new (&in, 120, 200, 3, 0, 0);
  image_new (&out, 120, 200, 3, 0, 0);
  image_fill_noisy (&in, 90.0f, 25.0f, 23);
  bm3d_params_init (&params);
  params.backend = BM3D_BACKEND_CPU;
  params.progress = on_progress;
  params.progress_data = &p;
  status = bm3d_denoise (&in.img, &out.img, &params, &report);
  tap_ok (status == BM3D_OK && p.calls >= 4 && p.monotonic
          && fabs (p.last - 1.0) < 1e-9,
          "progress: %d calls, rising, ending at 1", p.calls);

  for (int at = 1; at <= 3; at++)
    {
      progress_state c = { 0, at, 0.0, 1 };

      for (size_t i = 0; i < (size_t) 120 * 200 * 3; i++)
        out.buffer[i] = 42.0f;
      params.progress_data = &c;
      params.threads = at;
      status = bm3d_denoise (&in.img, &out.img, &params, &report);
      for (size_t i = 0; i < (size_t) 120 * 200 * 3; i++)
        if (out.buffer[i] != 42.0f)
          untouched = 0;
      tap_ok (status == BM3D_ERR_CANCELLED && untouched && c.calls == at,
              "cancel at progress call %d (%d threads): cancelled, output "
              "untouched, no call after", at, at);
    }
  free (in.buffer);
  free (out.buffer);
}

static void
check_invalid (void)
{
  test_image in, out, small;
  bm3d_params params;
  bm3d_report report;
  float sigmas[] = { 0.0f, -1.0f, 255.5f, NAN, INFINITY };

  image_new (&in, 16, 16, 3, 0, 0);
  image_new (&out, 16, 16, 3, 0, 0);
  image_new (&small, 15, 16, 3, 0, 0);
  image_fill_noisy (&in, 50.0f, 5.0f, 1);
  bm3d_params_init (&params);
  params.backend = BM3D_BACKEND_CPU;

  for (size_t i = 0; i < sizeof sigmas / sizeof sigmas[0]; i++)
    {
      params.sigma = sigmas[i];
      tap_ok (bm3d_denoise (&in.img, &out.img, &params, &report)
              == BM3D_ERR_INVALID_SIGMA && report.message[0],
              "sigma %g refused: %s", (double) sigmas[i], report.message);
    }
  params.sigma = 25.0f;

  tap_ok (bm3d_denoise (NULL, &out.img, &params, &report)
          == BM3D_ERR_INVALID_ARGUMENT, "NULL input refused");
  tap_ok (bm3d_denoise (&in.img, NULL, &params, &report)
          == BM3D_ERR_INVALID_ARGUMENT, "NULL output refused");
  tap_ok (bm3d_denoise (&in.img, &out.img, NULL, &report)
          == BM3D_ERR_INVALID_ARGUMENT, "NULL parameters refused");
  tap_ok (bm3d_denoise (&in.img, &in.img, &params, &report)
          == BM3D_ERR_INVALID_ARGUMENT, "output aliasing the input refused");
  tap_ok (bm3d_denoise (&in.img, &small.img, &params, &report)
          == BM3D_ERR_INVALID_ARGUMENT, "output of another size refused");

  in.img.width = 0;
  tap_ok (bm3d_denoise (&in.img, &out.img, &params, &report)
          == BM3D_ERR_INVALID_SIZE, "width 0 refused");
  in.img.width = 16;
  in.img.height = -3;
  tap_ok (bm3d_denoise (&in.img, &out.img, &params, &report)
          == BM3D_ERR_INVALID_SIZE, "negative height refused");
  in.img.height = 16;
  in.img.stride = 47;
  tap_ok (bm3d_denoise (&in.img, &out.img, &params, &report)
          == BM3D_ERR_INVALID_STRIDE, "stride smaller than a row refused");
  in.img.stride = 48;
  in.img.channels = out.img.channels = 2;
  tap_ok (bm3d_denoise (&in.img, &out.img, &params, &report)
          == BM3D_ERR_INVALID_ARGUMENT, "2 channels without alpha refused");
  in.img.channels = out.img.channels = 5;
  tap_ok (bm3d_denoise (&in.img, &out.img, &params, &report)
          == BM3D_ERR_INVALID_ARGUMENT, "5 channels refused");
  in.img.channels = out.img.channels = 3;

  params.mode = (bm3d_mode) 17;
  tap_ok (bm3d_denoise (&in.img, &out.img, &params, &report)
          == BM3D_ERR_INVALID_ARGUMENT, "unknown mode refused");
  params.mode = BM3D_MODE_BM3D;
  params.backend = (bm3d_backend) 9;
  tap_ok (bm3d_denoise (&in.img, &out.img, &params, &report)
          == BM3D_ERR_INVALID_ARGUMENT, "unknown backend refused");
  params.backend = BM3D_BACKEND_CPU;
  params.threads = -1;
  tap_ok (bm3d_denoise (&in.img, &out.img, &params, &report)
          == BM3D_ERR_INVALID_ARGUMENT, "negative thread count refused");
  params.threads = 0;
  tap_ok (bm3d_denoise (&in.img, &out.img, &params, NULL) == BM3D_OK,
          "valid call without a report succeeds");

  /* Automatic without a usable GPU: the CPU does the work and says so.  */
  if (!bm3d_cuda_available (NULL, 0))
    {
      params.backend = BM3D_BACKEND_AUTO;
      tap_ok (bm3d_denoise (&in.img, &out.img, &params, &report) == BM3D_OK
              && report.backend_used == BM3D_BACKEND_CPU
              && report.fell_back == BM3D_FALLBACK_UNAVAILABLE
              && strstr (report.message, "on the CPU"),
              "auto without CUDA: CPU, with the notice \"%s\"",
              report.message);
      params.backend = BM3D_BACKEND_CUDA;
      tap_ok (bm3d_denoise (&in.img, &out.img, &params, &report)
              == BM3D_ERR_BACKEND_UNAVAILABLE && report.message[0],
              "cuda without CUDA refused: %s", report.message);
    }
  else
    {
      tap_ok (1, "# SKIP a usable CUDA device exists");
      tap_ok (1, "# SKIP a usable CUDA device exists");
    }
  free (in.buffer);
  free (out.buffer);
  free (small.buffer);
}

/* bm3d_context_margin: the margins the modes' set-up gives, refusals,
 * and the promise itself: an area read with that context, its origin
 * aligned, denoises as it does inside the whole image.  */
static void
check_context (void)
{
  bm3d_params params;
  bm3d_report report;
  bm3d_status status;
  int margin = -1, align = -1;
  static const int modes[] = { BM3D_MODE_BM3D_FAST, BM3D_MODE_BM3D };
  /* First phase: the same arithmetic up to summation order; two phases:
   * the Wiener phase sees a basic estimate that differs near the far
   * edge of the context, by less than one 8-bit level.  */
  static const double tolerance[] = { 0.01, 1.0 };

  bm3d_params_init (&params);
  status = bm3d_context_margin (&params, 3, &margin, &align, &report);
  tap_ok (status == BM3D_OK && margin == 48 && align == 3,
          "context: BM3D at the defaults needs 48 pixels, aligned to 3 "
          "(got %d, %d)", margin, align);
  params.bm3d.search = 75;
  params.bm3d.step = 8;
  status = bm3d_context_margin (&params, 1, &margin, &align, &report);
  tap_ok (status == BM3D_OK && margin == 72 && align == 8,
          "context: search window 75, step 8: 72 pixels, aligned to 8 "
          "(got %d, %d)", margin, align);
  params.bm3d.search = 20;
  status = bm3d_context_margin (&params, 1, &margin, &align, &report);
  tap_ok (status == BM3D_ERR_INVALID_ARGUMENT && report.message[0],
          "context: an even search window is refused (%s)", report.message);

  bm3d_params_init (&params);
  params.mode = BM3D_MODE_NLM;
  params.nlm.patch = 7;
  params.nlm.search = 21;
  status = bm3d_context_margin (&params, 3, &margin, &align, &report);
  tap_ok (status == BM3D_OK && margin == 2 * 3 + 10 && align == 1,
          "context: NL-means 7 / 21 needs 2f + r = 16 pixels (got %d)",
          margin);
  bm3d_params_init (&params);
  params.mode = BM3D_MODE_ISOLINE;
  params.isoline.length_max = 10;
  status = bm3d_context_margin (&params, 1, &margin, &align, &report);
  tap_ok (status == BM3D_OK && margin >= 12 && align == 1,
          "context: isoline of 10 pixels needs at least n + 2 = 12 (got %d)",
          margin);

  bm3d_params_init (&params);
  params.sigma = 0.0f;
  tap_ok (bm3d_context_margin (&params, 1, &margin, &align, &report)
          == BM3D_ERR_INVALID_SIGMA, "context: sigma 0 is refused");
  params.sigma = 25.0f;
  tap_ok (bm3d_context_margin (&params, 2, &margin, &align, &report)
          == BM3D_ERR_INVALID_ARGUMENT
          && bm3d_context_margin (NULL, 1, &margin, &align, &report)
             == BM3D_ERR_INVALID_ARGUMENT,
          "context: 2 colour channels and missing parameters are refused");

  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
    {
      test_image whole, whole_out, area, area_out;
      const int w = 230, h = 190, ch = 3;
      const int ax = 101, ay = 67, aw = 70, ah = 60;
      int x0, y0, x1, y1;
      double worst = 0.0;
      bm3d_status s1, s2;

      image_new (&whole, w, h, ch, 0, 0);
      image_new (&whole_out, w, h, ch, 0, 0);
      image_fill_noisy (&whole, 0.0f, 20.0f, 11 + m);
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          for (int c = 0; c < ch; c++)
            whole.buffer[(y * w + x) * ch + c]
              += 100.0f + 60.0f * (((x / 12) + (y / 9)) & 1) + 20.0f * c;

      bm3d_params_init (&params);
      params.mode = modes[m];
      params.sigma = 20.0f;
      params.backend = BM3D_BACKEND_CPU;
      bm3d_context_margin (&params, ch, &margin, &align, &report);
      /* As the plug-in reads it: the origin moved back to the alignment
       * counted from the image's, clipped to the image.  */
      x0 = (ax - margin) / align * align;
      y0 = ay - margin > 0 ? (ay - margin) / align * align : 0;
      x1 = ax + aw + margin < w ? ax + aw + margin : w;
      y1 = ay + ah + margin < h ? ay + ah + margin : h;
      image_new (&area, x1 - x0, y1 - y0, ch, 0, (size_t) w * ch);
      area.img.data = whole.buffer + ((size_t) y0 * w + x0) * ch;
      image_new (&area_out, x1 - x0, y1 - y0, ch, 0, 0);

      s1 = bm3d_denoise (&whole.img, &whole_out.img, &params, &report);
      s2 = bm3d_denoise (&area.img, &area_out.img, &params, &report);
      for (int y = 0; y < ah; y++)
        for (int x = 0; x < aw * ch; x++)
          {
            double d = fabs (whole_out.buffer[(size_t) (y + ay) * w * ch
                                              + ax * ch + x]
                             - area_out.buffer[(size_t) (y + ay - y0)
                                               * area_out.img.stride
                                               + (ax - x0) * ch + x]);
            if (!(d <= worst))
              worst = d;
          }
      tap_ok (s1 == BM3D_OK && s2 == BM3D_OK && worst <= tolerance[m],
              "context: %s, an area read with its context matches the "
              "whole image's result (largest difference %.4g <= %g)",
              bm3d_mode_name (modes[m]), worst, tolerance[m]);
      free (whole.buffer);
      free (whole_out.buffer);
      free (area.buffer);
      free (area_out.buffer);
    }
}

int
main (void)
{
  check_sizes ();
  check_constant ();
  check_saturated ();
  check_sigmas ();
  check_alpha_and_stride ();
  check_progress_and_cancel ();
  check_invalid ();
  check_context ();
  return tap_done ();
}
