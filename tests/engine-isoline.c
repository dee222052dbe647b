/* The isoline mode (PI-PD and hybrid PI-PD) through bm3d_denoise () on
 * the CPU backend: odd and tiny sizes, alpha and row padding, clean
 * edges, quality on the two test photographs, invalid options,
 * cancellation, thread counts, and the tiler's seams.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "bm3d.h"
#include "core/engine.h"
#include "image_io.h"
#include "engine-tap.h"
#include "engine-image.h"

static const bm3d_isoline_variant variants[] = { BM3D_ISOLINE_HYBRID,
                                                 BM3D_ISOLINE_PIPD };

/* Edges, a gradient and texture under noise of deviation `sigma`.  */
static void
image_fill_scene (test_image *t, float sigma, uint64_t seed)
{
  uint64_t rng = seed;
  const bm3d_image *m = &t->img;

  for (int y = 0; y < m->height; y++)
    for (int x = 0; x < m->width; x++)
      for (int c = 0; c < m->channels; c++)
        {
          double v = ((x / 13 + y / 11) % 2 ? 170.0 : 70.0) + 0.2 * x
                     - 0.3 * y + 15.0 * sin (x * 0.4 + c) * cos (y * 0.25);

          t->buffer[y * m->stride + (size_t) x * m->channels + c]
            = (float) (v + sigma * rng_gauss (&rng));
        }
}

static bm3d_status
denoise (const test_image *in, test_image *out, float sigma,
         bm3d_isoline_variant variant, int threads, bm3d_report *report)
{
  bm3d_params params;

  bm3d_params_init (&params);
  params.sigma = sigma;
  params.mode = BM3D_MODE_ISOLINE;
  params.isoline.variant = variant;
  params.backend = BM3D_BACKEND_CPU;
  params.threads = threads;
  return bm3d_denoise (&in->img, &out->img, &params, report);
}

static void
check_sizes (void)
{
  static const int sizes[][3] = { { 1, 1, 1 }, { 1, 1, 3 }, { 7, 7, 3 },
                                  { 1000, 9, 1 }, { 9, 1000, 3 },
                                  { 13, 17, 3 }, { 2, 300, 1 } };

  for (size_t v = 0; v < 2; v++)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
      {
        test_image in, out;
        bm3d_report report;
        bm3d_status status;
        int w = sizes[i][0], h = sizes[i][1], ch = sizes[i][2];

        image_new (&in, w, h, ch, 0, 0);
        image_new (&out, w, h, ch, 0, 0);
        image_fill_scene (&in, 20.0f, 3 + i);
        status = denoise (&in, &out, 20.0f, variants[v], 0, &report);
        tap_ok (status == BM3D_OK && all_finite (&out)
                && report.backend_used == BM3D_BACKEND_CPU
                && max_diff (&in, &out) < 150.0,
                "%s, %dx%d, %d channel(s): denoised, finite (%s)",
                bm3d_isoline_variant_name (variants[v]), w, h, ch,
                status == BM3D_OK ? "ok" : report.message);
        free (in.buffer);
        free (out.buffer);
      }
}

/* A constant image stays constant, and clean edges stay where they are:
 * PI-PD's isolines do not cross them at a low sigma; the hybrid may
 * blur a pixel of an edge a little where its 3x3 guide mixes both
 * sides, and the residual step gives most of it back.  */
static void
check_clean (void)
{
  for (size_t v = 0; v < 2; v++)
    {
      test_image in, out;
      bm3d_report report;
      bm3d_status status;
      double d;

      image_new (&in, 67, 45, 3, 0, 0);
      image_new (&out, 67, 45, 3, 0, 0);
      for (size_t i = 0; i < (size_t) 67 * 45 * 3; i++)
        in.buffer[i] = 77.25f;
      status = denoise (&in, &out, 25.0f, variants[v], 0, &report);
      d = max_diff (&in, &out);
      tap_ok (status == BM3D_OK && d < 1e-3, "%s: a constant image stays "
              "constant (max change %.2g)",
              bm3d_isoline_variant_name (variants[v]), d);

      /* A disc of 200 on 50, and a bar of 120.  */
      for (int y = 0; y < 45; y++)
        for (int x = 0; x < 67; x++)
          for (int c = 0; c < 3; c++)
            in.buffer[(y * 67 + x) * 3 + c]
              = (x - 30) * (x - 30) + (y - 22) * (y - 22) < 200 ? 200.0f
                : x > 55 ? 120.0f : 50.0f;
      status = denoise (&in, &out, 5.0f, variants[v], 0, &report);
      d = max_diff (&in, &out);
      tap_ok (status == BM3D_OK
              && d < (variants[v] == BM3D_ISOLINE_PIPD ? 1.0 : 15.0),
              "%s: clean edges of contrast 150 stay sharp (max change %.3f)",
              bm3d_isoline_variant_name (variants[v]), d);
      free (in.buffer);
      free (out.buffer);
    }
}

/* At a very low sigma a clean image comes back nearly unchanged.  PI-PD
 * is checked on gray only: its colour planes follow the luminance's
 * isolines, and colour structure the luminance does not show is
 * averaged along them (the hybrid gives it back).  */
static void
check_sigmas (void)
{
  for (size_t v = 0; v < 2; v++)
    for (int ch = 1; ch <= 3; ch += 2)
      {
        test_image in, out;
        bm3d_report report;
        bm3d_status s1, s2;

        if (variants[v] == BM3D_ISOLINE_PIPD && ch == 3)
          continue;
        image_new (&in, 40, 33, ch, 0, 0);
        image_new (&out, 40, 33, ch, 0, 0);
        image_fill_scene (&in, 0.0f, 1);
        s1 = denoise (&in, &out, 0.1f, variants[v], 0, &report);
        tap_ok (s1 == BM3D_OK && max_diff (&in, &out) < 2.0,
                "%s, %d channel(s): sigma 0.1 leaves a clean image nearly "
                "unchanged (max change %.3f)",
                bm3d_isoline_variant_name (variants[v]), ch,
                max_diff (&in, &out));
        image_fill_scene (&in, 100.0f, 5);
        s1 = denoise (&in, &out, 100.0f, variants[v], 0, &report);
        s2 = s1 == BM3D_OK && all_finite (&out)
             ? denoise (&in, &out, 255.0f, variants[v], 0, &report)
             : BM3D_ERR_BACKEND_FAILED;
        tap_ok (s2 == BM3D_OK && all_finite (&out),
                "%s, %d channel(s): sigma 100 and 255 run and give finite "
                "values", bm3d_isoline_variant_name (variants[v]), ch);
        free (in.buffer);
        free (out.buffer);
      }
}

static void
check_alpha_and_stride (void)
{
  for (size_t v = 0; v < 2; v++)
    for (int ch = 2; ch <= 4; ch += 2)
      {
        test_image in, out, plain_in, plain_out;
        bm3d_report report;
        bm3d_status status, status2;
        int w = 31, h = 22, exact = 1, untouched = 1, same = 1;
        size_t in_stride = (size_t) w * ch + 5;
        size_t out_stride = (size_t) w * ch + 3;
        const char *name = bm3d_isoline_variant_name (variants[v]);

        image_new (&in, w, h, ch, 1, in_stride);
        image_new (&out, w, h, ch, 1, out_stride);
        image_fill_scene (&in, 20.0f, 17);
        for (size_t i = 0; i < out_stride * h; i++)
          out.buffer[i] = -7.0f;
        /* Alpha values that no arithmetic would give back exactly.  */
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++)
            in.buffer[y * in_stride + x * ch + ch - 1]
              = (float) (x * 0.1234567 + y * 3.3);

        status = denoise (&in, &out, 20.0f, variants[v], 0, &report);
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
        tap_ok (status == BM3D_OK && exact, "%s, %s: alpha copied "
                "bit-exact", name, ch == 2 ? "gray+alpha" : "RGBA");
        tap_ok (untouched, "%s, %s: row padding of the output untouched",
                name, ch == 2 ? "gray+alpha" : "RGBA");

        /* The same colour data without alpha and padding: same result.  */
        image_new (&plain_in, w, h, ch - 1, 0, 0);
        image_new (&plain_out, w, h, ch - 1, 0, 0);
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++)
            for (int c = 0; c < ch - 1; c++)
              plain_in.buffer[(y * w + x) * (ch - 1) + c]
                = in.buffer[y * in_stride + x * ch + c];
        status2 = denoise (&plain_in, &plain_out, 20.0f, variants[v], 0,
                           &report);
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++)
            for (int c = 0; c < ch - 1; c++)
              if (plain_out.buffer[(y * w + x) * (ch - 1) + c]
                  != out.buffer[y * out_stride + x * ch + c])
                same = 0;
        tap_ok (status2 == BM3D_OK && same, "%s, %s: alpha and row padding "
                "do not change the colour result", name,
                ch == 2 ? "gray+alpha" : "RGBA");
        free (in.buffer);
        free (out.buffer);
        free (plain_in.buffer);
        free (plain_out.buffer);
      }
}

/* ---- quality on the test photographs ------------------------------------- */

typedef struct
{
  const char          *file;
  bm3d_isoline_variant variant;
  float                sigma;
  double               floor_db;   /* measured minus 0.1 dB */
} quality_case;

/* The hybrid (the default) must also gain 5 dB on the noisy input;
 * PI-PD alone, the paper's fastest filter, gains less.  */
static const quality_case cases[] = {
  { "camera.png",    BM3D_ISOLINE_HYBRID, 25.0f, 28.50 },  /* 28.609 */
  { "camera.png",    BM3D_ISOLINE_PIPD,   25.0f, 25.25 },  /* 25.363 */
  { "astronaut.png", BM3D_ISOLINE_HYBRID, 25.0f, 30.35 },  /* 30.455 */
  { "astronaut.png", BM3D_ISOLINE_PIPD,   25.0f, 26.25 },  /* 26.355 */
};

static void
check_quality (void)
{
  const char *top = getenv ("top_srcdir");
  char dir[4096];

  if (!image_format_supported (IMAGE_FORMAT_PNG))
    {
      for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        tap_ok (1, "# SKIP built without libpng: cannot read %s",
                cases[i].file);
      return;
    }
  snprintf (dir, sizeof dir, "%s/tests/data", top ? top : ".");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      const quality_case *qc = &cases[i];
      char path[4200], error[512];
      Image clean;
      test_image in, out;
      uint64_t rng = 20260101u + (uint64_t) qc->sigma;
      bm3d_report report;
      bm3d_status status;
      size_t n;
      double before, after;

      snprintf (path, sizeof path, "%s/%s", dir, qc->file);
      if (image_read (path, &clean, error, sizeof error) != 0)
        {
          tap_ok (0, "%s: %s", qc->file, error);
          continue;
        }
      n = (size_t) clean.width * clean.height * clean.channels;
      image_new (&in, clean.width, clean.height, clean.channels, 0, 0);
      image_new (&out, clean.width, clean.height, clean.channels, 0, 0);
      for (size_t k = 0; k < n; k++)
        in.buffer[k] = clean.data[k] + (float) (qc->sigma * rng_gauss (&rng));
      status = denoise (&in, &out, qc->sigma, qc->variant, 0, &report);
      before = psnr_strided (clean.data, in.buffer, n, 1, 0);
      after = psnr_strided (clean.data, out.buffer, n, 1, 0);
      tap_ok (status == BM3D_OK && after >= qc->floor_db
              && (qc->variant != BM3D_ISOLINE_HYBRID || after >= before + 5.0),
              "%s, %s, sigma %g: PSNR %.3f dB (noisy %.3f, floor %.2f) in "
              "%.3f s", qc->file, bm3d_isoline_variant_name (qc->variant),
              (double) qc->sigma, after, before, qc->floor_db,
              report.seconds_total);
      image_free (&clean);
      free (in.buffer);
      free (out.buffer);
    }
}

/* ---- refusals ------------------------------------------------------------- */

static void
check_invalid (void)
{
  static const struct
  {
    const char *what;
    int         variant, length, segment;
    float       t_max, t2_max;
  } bad[] = {
    { "variant 2",               2,  0,  0, 0.0f,  0.0f },
    { "variant -1",             -1,  0,  0, 0.0f,  0.0f },
    { "length 1",                0,  1,  0, 0.0f,  0.0f },
    { "length 65",               0, 65,  0, 0.0f,  0.0f },
    { "segment 1",               0,  0,  1, 0.0f,  0.0f },
    { "segment 17",              0,  0, 17, 0.0f,  0.0f },
    { "segment 10 > length 8",   0,  8, 10, 0.0f,  0.0f },
    { "T_max -1",                0,  0,  0, -1.0f, 0.0f },
    { "T_max 2000",              0,  0,  0, 2000.0f, 0.0f },
    { "T_max NaN",               0,  0,  0, NAN,   0.0f },
    { "T2_max 1e-5",             0,  0,  0, 0.0f,  1e-5f },
    { "T2_max infinite",         0,  0,  0, 0.0f,  INFINITY },
  };
  test_image in, out;

  image_new (&in, 16, 16, 3, 0, 0);
  image_new (&out, 16, 16, 3, 0, 0);
  image_fill_scene (&in, 5.0f, 1);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      bm3d_params params;
      bm3d_report report;
      bm3d_status status;
      int untouched = 1;

      for (size_t k = 0; k < (size_t) 16 * 16 * 3; k++)
        out.buffer[k] = 42.0f;
      bm3d_params_init (&params);
      params.mode = BM3D_MODE_ISOLINE;
      params.backend = BM3D_BACKEND_CPU;
      params.isoline.variant = (bm3d_isoline_variant) bad[i].variant;
      params.isoline.length_max = bad[i].length;
      params.isoline.segment = bad[i].segment;
      params.isoline.t_max = bad[i].t_max;
      params.isoline.t2_max = bad[i].t2_max;
      status = bm3d_denoise (&in.img, &out.img, &params, &report);
      for (size_t k = 0; k < (size_t) 16 * 16 * 3; k++)
        if (out.buffer[k] != 42.0f)
          untouched = 0;
      tap_ok (status == BM3D_ERR_INVALID_ARGUMENT && untouched
              && report.message[0],
              "%s refused, output untouched: %s", bad[i].what,
              report.message);
    }

  /* Without a usable GPU: automatic runs on the CPU and says so, CUDA
   * by name is refused and the output stays as it was.  */
  if (!bm3d_cuda_available (NULL, 0))
    {
      bm3d_params params;
      bm3d_report report;
      int untouched = 1;

      bm3d_params_init (&params);
      params.mode = BM3D_MODE_ISOLINE;
      params.backend = BM3D_BACKEND_AUTO;
      tap_ok (bm3d_denoise (&in.img, &out.img, &params, &report) == BM3D_OK
              && report.backend_used == BM3D_BACKEND_CPU
              && report.fell_back == BM3D_FALLBACK_UNAVAILABLE
              && strstr (report.message, "on the CPU"),
              "auto without CUDA: CPU, with the notice \"%s\"",
              report.message);
      for (size_t k = 0; k < (size_t) 16 * 16 * 3; k++)
        out.buffer[k] = 42.0f;
      params.backend = BM3D_BACKEND_CUDA;
      tap_ok (bm3d_denoise (&in.img, &out.img, &params, &report)
              == BM3D_ERR_BACKEND_UNAVAILABLE && report.message[0],
              "cuda without CUDA refused: %s", report.message);
      for (size_t k = 0; k < (size_t) 16 * 16 * 3; k++)
        if (out.buffer[k] != 42.0f)
          untouched = 0;
      tap_ok (untouched, "cuda without CUDA: output untouched");
    }
  else
    for (int k = 0; k < 3; k++)
      tap_ok (1, "# SKIP a usable CUDA device exists");

  /* The expert options within range are taken.  */
  {
    bm3d_params params;
    bm3d_report report;

    bm3d_params_init (&params);
    params.mode = BM3D_MODE_ISOLINE;
    params.backend = BM3D_BACKEND_CPU;
    params.isoline.length_max = 64;
    params.isoline.segment = 16;
    params.isoline.t_max = 4.0f;
    params.isoline.t2_max = 8.0f;
    params.isoline.thicken = 1;
    tap_ok (bm3d_denoise (&in.img, &out.img, &params, &report) == BM3D_OK
            && all_finite (&out), "longest isolines, longest segments, "
            "thickened: denoised (%s)", report.message);
  }
  free (in.buffer);
  free (out.buffer);
}

/* ---- progress and cancellation --------------------------------------------- */

static void
check_progress_and_cancel (void)
{
  test_image in, out;
  bm3d_params params;
  bm3d_report report;
  bm3d_status status;
  progress_state p = { 0, 0, 0.0, 1 };
  const size_t n = (size_t) 120 * 200 * 3;

  image_new (&in, 120, 200, 3, 0, 0);
  image_new (&out, 120, 200, 3, 0, 0);
  image_fill_scene (&in, 25.0f, 23);
  bm3d_params_init (&params);
  params.mode = BM3D_MODE_ISOLINE;
  params.backend = BM3D_BACKEND_CPU;
  params.progress = on_progress;
  params.progress_data = &p;
  status = bm3d_denoise (&in.img, &out.img, &params, &report);
  tap_ok (status == BM3D_OK && p.calls >= 4 && p.monotonic
          && fabs (p.last - 1.0) < 1e-9,
          "progress: %d calls, rising, ending at 1", p.calls);

  for (int at = 1; at <= 5; at += 2)
    for (size_t v = 0; v < 2; v++)
      {
        progress_state c = { 0, at, 0.0, 1 };
        int untouched = 1;

        for (size_t i = 0; i < n; i++)
          out.buffer[i] = 42.0f;
        params.progress_data = &c;
        params.threads = 1 + at % 2;
        params.isoline.variant = variants[v];
        status = bm3d_denoise (&in.img, &out.img, &params, &report);
        for (size_t i = 0; i < n; i++)
          if (out.buffer[i] != 42.0f)
            untouched = 0;
        tap_ok (status == BM3D_ERR_CANCELLED && untouched && c.calls == at,
                "%s: cancel at progress call %d: cancelled, output "
                "untouched, no call after",
                bm3d_isoline_variant_name (variants[v]), at);
      }
  free (in.buffer);
  free (out.buffer);
}

/* ---- threads and tiles ---------------------------------------------------- */

static void
check_threads (void)
{
  static const int shapes[][3] = { { 97, 211, 1 }, { 64, 150, 3 } };

  for (size_t s = 0; s < 2; s++)
    for (size_t v = 0; v < 2; v++)
      {
        test_image in, o1, o2, o3;
        bm3d_report report;
        int w = shapes[s][0], h = shapes[s][1], ch = shapes[s][2], ok;
        size_t bytes = (size_t) w * h * ch * sizeof (float);

        image_new (&in, w, h, ch, 0, 0);
        image_new (&o1, w, h, ch, 0, 0);
        image_new (&o2, w, h, ch, 0, 0);
        image_new (&o3, w, h, ch, 0, 0);
        image_fill_scene (&in, 20.0f, 5 + s);
        ok = denoise (&in, &o1, 20.0f, variants[v], 1, &report) == BM3D_OK
             && denoise (&in, &o2, 20.0f, variants[v], 2, &report) == BM3D_OK
             && denoise (&in, &o3, 20.0f, variants[v], 3, &report) == BM3D_OK;
        tap_ok (ok && memcmp (o1.buffer, o2.buffer, bytes) == 0
                && memcmp (o1.buffer, o3.buffer, bytes) == 0,
                "%s, %dx%d, %d channel(s): 1, 2 and 3 threads bit-identical",
                bm3d_isoline_variant_name (variants[v]), w, h, ch);
        free (in.buffer);
        free (o1.buffer);
        free (o2.buffer);
        free (o3.buffer);
      }
}

/* bm3d_denoise () cuts an image wider than the CPU tile into tiles with
 * margins; the CPU backend run here on the whole image as one tile
 * (with the engine's colour transform done the same way) must give the
 * same pixels.  */
static void
check_tiles (void)
{
  const int w = bm3d_isoline_cpu_tile_side (NULL) + 77, h = 37;

  for (int ch = 1; ch <= 3; ch += 2)
    for (size_t v = 0; v < 2; v++)
      {
        test_image in, tiled;
        bm3d_params params;
        bm3d_report report;
        bm3d_job job;
        bm3d_planes noisy, whole;
        const size_t n = (size_t) w * h;
        const float (*fwd)[3] = ch == 3 ? bm3d_colour_fwd : NULL;
        bm3d_status s1, s2;
        double worst = 0.0;

        image_new (&in, w, h, ch, 0, 0);
        image_new (&tiled, w, h, ch, 0, 0);
        image_fill_scene (&in, 25.0f, 31 + ch);
        bm3d_params_init (&params);
        params.mode = BM3D_MODE_ISOLINE;
        params.backend = BM3D_BACKEND_CPU;
        params.isoline.variant = variants[v];
        s1 = bm3d_denoise (&in.img, &tiled.img, &params, &report);

        memset (&noisy, 0, sizeof noisy);
        noisy.width = w;
        noisy.height = h;
        noisy.channels = ch;
        whole = noisy;
        for (int c = 0; c < ch; c++)
          {
            noisy.plane[c] = malloc (n * sizeof (float));
            whole.plane[c] = malloc (n * sizeof (float));
            noisy.sigma[c] = whole.sigma[c]
              = 25.0f * (ch == 3 ? bm3d_colour_noise_gain[c] : 1.0f);
          }
        for (size_t i = 0; i < n; i++)
          for (int c = 0; c < ch; c++)
            {
              const float *px = in.buffer + i * ch;

              noisy.plane[c][i] = ch == 1 ? px[0]
                                  : fwd[c][0] * px[0] + fwd[c][1] * px[1]
                                    + fwd[c][2] * px[2];
            }
        bm3d_job_init (&job, &params, &report);
        job.threads = 2;
        job.channels = ch;
        bm3d_isoline_profile_for_sigma (25.0f, &job.isoline);
        job.isoline.variant = variants[v];
        s2 = bm3d_isoline_cpu_tile (&noisy, &whole, &job);
        for (size_t i = 0; i < n; i++)
          for (int c = 0; c < ch; c++)
            {
              float got = tiled.buffer[i * ch + c], want;

              want = ch == 1 ? whole.plane[0][i]
                     : bm3d_colour_inv[c][0] * whole.plane[0][i]
                       + bm3d_colour_inv[c][1] * whole.plane[1][i]
                       + bm3d_colour_inv[c][2] * whole.plane[2][i];
              if (!(fabs (got - want) <= worst))
                worst = fabs (got - want);
            }
        tap_ok (s1 == BM3D_OK && s2 == BM3D_OK && worst == 0.0,
                "%s, %dx%d, %d channel(s): two tiles give the pixels of one "
                "(largest difference %g)",
                bm3d_isoline_variant_name (variants[v]), w, h, ch, worst);
        for (int c = 0; c < ch; c++)
          {
            free (noisy.plane[c]);
            free (whole.plane[c]);
          }
        free (in.buffer);
        free (tiled.buffer);
      }
}

int
main (void)
{
  check_sizes ();
  check_clean ();
  check_sigmas ();
  check_alpha_and_stride ();
  check_quality ();
  check_invalid ();
  check_progress_and_cancel ();
  check_threads ();
  check_tiles ();
  return tap_done ();
}
