/* One image over several devices, what a machine without a GPU can
 * check (TAP): the bands' rows windows on the CPU's tiler stitch into
 * the whole image's result, and each band writes its own rows alone
 * (the device path plans its tiles with the same function); the device
 * list's checks; the test switch BM3D_TEST_FAIL_DEVICE refused when
 * malformed, and of no matter where no device is used.  The split over
 * real devices and a device failing are tests/gpu-tests.sh's.
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
#include "engine-tap.h"
#include "engine-image.h"

#define W 173
#define H 250
#define SIGMA 25.0f
/* What stays in rows a band must not write.  */
#define UNTOUCHED -1000.0f

static void
noisy_image (test_image *t, int channels, uint64_t seed)
{
  image_new (t, W, H, channels, 0, 0);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int c = 0; c < channels; c++)
        t->img.data[(size_t) y * t->img.stride + (size_t) x * channels + c]
          = (float) (128.0 + 60.0 * sin (x * 0.07 + c) * cos (y * 0.05)
                     + SIGMA * rng_gauss (&seed));
}

/* A job as the dispatcher prepares one for white noise.  */
static bm3d_status
job_for (bm3d_job *job, const bm3d_params *params, bm3d_report *report,
         int colour)
{
  bm3d_job_init (job, params, report);
  job->algorithm = bm3d_algorithm_for_mode (params->mode);
  job->colour_space = job->algorithm->colour_space;
  job->threads = 2;
  job->channels = colour;
  job->white_sigma = params->sigma;
  for (int c = 0; c < colour; c++)
    job->sigma[c] = params->sigma
                    * (colour == 3 && job->colour_space == BM3D_COLOUR_OPPONENT
                       ? bm3d_colour_noise_gain[c] : 1.0f);
  return job->algorithm->setup (job);
}

static bm3d_image
rows_of (const bm3d_image *img, int r0, int r1)
{
  bm3d_image v = *img;

  v.data = img->data + (size_t) r0 * img->stride;
  v.height = r1 - r0;
  return v;
}

/* Rows outside [c0, c1) of `img` all still UNTOUCHED.  */
static int
untouched_outside (const bm3d_image *img, int c0, int c1)
{
  for (int y = 0; y < img->height; y++)
    for (size_t i = 0; (y < c0 || y >= c1)
                       && i < (size_t) img->width * img->channels; i++)
      if (img->data[(size_t) y * img->stride + i] != UNTOUCHED)
        return 0;
  return 1;
}

/* The image in `bands` bands, as devices.c cuts it, on the CPU's tiler:
 * against the whole image's result.  */
static void
check_bands (bm3d_mode mode, int channels, int bands)
{
  test_image in, whole, banded;
  bm3d_params params;
  bm3d_report report;
  bm3d_job job;
  int only_own = 1;
  bm3d_status status;

  noisy_image (&in, channels, 7 + channels);
  image_new (&whole, W, H, channels, 0, 0);
  image_new (&banded, W, H, channels, 0, 0);
  bm3d_params_init (&params);
  params.sigma = SIGMA;
  params.mode = mode;
  params.backend = BM3D_BACKEND_CPU;
  status = job_for (&job, &params, &report, channels);
  if (status == BM3D_OK)
    status = bm3d_run_cpu (&in.img, &whole.img, &job);
  for (size_t i = 0; i < banded.img.stride * H; i++)
    banded.img.data[i] = UNTOUCHED;
  for (int b = 0; b < bands && status == BM3D_OK; b++)
    {
      int align = job.align > 0 ? job.align : 1;
      int c0 = b == 0 ? 0 : H * b / bands / align * align;
      int c1 = b == bands - 1 ? H : H * (b + 1) / bands / align * align;
      int r0 = c0 - job.margin > 0 ? c0 - job.margin : 0;
      int r1 = c1 + job.margin < H ? c1 + job.margin : H;
      bm3d_image bin = rows_of (&in.img, r0, r1);
      bm3d_image bout = rows_of (&banded.img, r0, r1);

      job.rows_y0 = c0 - r0;
      job.rows_y1 = c1 - r0;
      status = bm3d_run_cpu (&bin, &bout, &job);
      if (b == 0)
        only_own = untouched_outside (&banded.img, 0, c1);
    }
  double psnr = psnr_strided (whole.img.data, banded.img.data,
                              whole.img.stride * H, 1, 0);
  tap_ok (status == BM3D_OK && only_own && psnr >= 60.0,
          "%s, %d channel%s, %d bands: each band writes its rows alone, "
          "the stitched bands match the whole image (PSNR %.1f dB >= 60)",
          bm3d_mode_name (mode), channels, channels == 1 ? "" : "s", bands,
          psnr);
  free (in.buffer);
  free (whole.buffer);
  free (banded.buffer);
}

/* Tiles over a rows window cover its rows once and read within the
 * image.  */
static void
check_tile_plan (void)
{
  bm3d_params params;
  bm3d_report report;
  bm3d_job job;
  static int covered[H];
  int ok = 1, tx, ty;

  bm3d_params_init (&params);
  bm3d_job_init (&job, &params, &report);
  job.margin = 48;
  job.rows_y0 = 57;
  job.rows_y1 = 190;
  bm3d_job_tile_grid (&job, W, H, 40, &tx, &ty);
  for (int iy = 0; iy < ty; iy++)
    {
      bm3d_tile_rect t;

      bm3d_job_tile_rect (&job, W, H, 40, 0, iy, &t);
      ok &= t.y0 == (t.cy0 - 48 > 0 ? t.cy0 - 48 : 0)
            && t.y1 == (t.cy1 + 48 < H ? t.cy1 + 48 : H);
      for (int y = t.cy0; y < t.cy1; y++)
        covered[y]++;
    }
  for (int y = 0; y < H; y++)
    ok &= covered[y] == (y >= 57 && y < 190);
  tap_ok (ok, "a rows window's tiles cover its rows once, with the margin "
          "read from the rows around");
}

/* A call of `params` on a small image: its status and message.  */
static bm3d_status
denoise_small (const bm3d_params *params, bm3d_report *report, float *first)
{
  test_image in, out;
  bm3d_status status;

  noisy_image (&in, 3, 3);
  image_new (&out, W, H, 3, 0, 0);
  status = bm3d_denoise (&in.img, &out.img, params, report);
  if (first)
    *first = out.img.data[(size_t) 100 * out.img.stride + 50];
  free (in.buffer);
  free (out.buffer);
  return status;
}

static void
check_device_lists (void)
{
  static const int two[] = { 0, 0 }, negative[] = { 0, -1 };
  bm3d_params params;
  bm3d_report report;
  struct { const int *devices; int n; const char *what; } bad[] = {
    { two, 17, "17 devices" },
    { two, -2, "a count of -2" },
    { NULL, 2, "no list" },
    { negative, 2, "a device -1" },
  };

  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      bm3d_params_init (&params);
      params.devices = bad[i].devices;
      params.n_devices = bad[i].n;
      tap_ok (denoise_small (&params, &report, NULL)
              == BM3D_ERR_INVALID_ARGUMENT
              && strstr (report.message, "device")
              && !strchr (report.message, '\n'),
              "a device list with %s is refused in one line (%s)",
              bad[i].what, report.message);
    }
  bm3d_params_init (&params);
  params.backend = BM3D_BACKEND_CPU;
  params.n_devices = BM3D_ALL_DEVICES;
  tap_ok (denoise_small (&params, &report, NULL) == BM3D_OK,
          "every device, on the CPU backend: no matter");
}

static void
check_fail_switch (void)
{
  static const char *const malformed[] = { "1", "1:", ":3", "a:b", "1:2:3",
                                           "-1:2", "1:-2", "1:2x", "0x1:1" };
  bm3d_params params;
  bm3d_report report;
  float plain, switched;
  bm3d_status s1, s2;

  bm3d_params_init (&params);
  params.sigma = SIGMA;
  for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++)
    {
      setenv ("BM3D_TEST_FAIL_DEVICE", malformed[i], 1);
      tap_ok (denoise_small (&params, &report, NULL)
              == BM3D_ERR_INVALID_ARGUMENT
              && strstr (report.message, "BM3D_TEST_FAIL_DEVICE")
              && !strchr (report.message, '\n'),
              "BM3D_TEST_FAIL_DEVICE=%s refused in one line (%s)",
              malformed[i], report.message);
    }
  unsetenv ("BM3D_TEST_FAIL_DEVICE");
  s1 = denoise_small (&params, &report, &plain);
  setenv ("BM3D_TEST_FAIL_DEVICE", "0:0", 1);
  s2 = denoise_small (&params, &report, &switched);
  unsetenv ("BM3D_TEST_FAIL_DEVICE");
  /* Without a usable device the work is the CPU's either way.  */
  if (bm3d_cuda_device_count () == 0)
    tap_ok (s1 == BM3D_OK && s2 == BM3D_OK && plain == switched,
            "BM3D_TEST_FAIL_DEVICE=0:0 without a device: the same result");
  else
    tap_ok (s2 == BM3D_OK, "BM3D_TEST_FAIL_DEVICE=0:0 with a device: "
            "redone on the CPU (%s)", report.message);
}

/* ---- the split's queue, with devices played by the CPU ---------------
 *
 * bm3d_run_cuda () over an algorithm whose "device" path is the CPU's
 * tiler, failing on device `fake_failing` as a device that faults: the
 * bands, their queue, a failed band redone elsewhere, the CPU taking
 * what no device could, the message, progress and cancelling, without
 * a GPU.  */
static int fake_failing = -1;

static bm3d_status
fake_device_image (const bm3d_image *in, bm3d_image *out, bm3d_job *job)
{
  if (job->params->device == fake_failing)
    {
      bm3d_job_message (job, "CUDA error in a fake: device %d gone",
                        job->params->device);
      return BM3D_ERR_BACKEND_FAILED;
    }
  return bm3d_run_cpu (in, out, job);
}

typedef struct
{
  double last;
  int    calls, cancel_at;
} progress_seen;

static int
note_progress (double fraction, void *data)
{
  progress_seen *p = data;

  p->last = fraction;
  return ++p->calls == p->cancel_at;
}

/* The split of a 3-channel image over `devices`, `failing` one failing
 * (or -1), against the whole image's result: the status, the message
 * and fall-back, and the PSNR against the whole image in *psnr.  */
static bm3d_status
fake_split (const int *devices, int n, int failing, bm3d_backend backend,
            int cancel_at, bm3d_report *report, progress_seen *seen,
            double *psnr)
{
  static bm3d_algorithm fake;
  test_image in, whole, split;
  bm3d_params params;
  bm3d_job job;
  bm3d_status status;

  noisy_image (&in, 3, 11);
  image_new (&whole, W, H, 3, 0, 0);
  image_new (&split, W, H, 3, 0, 0);
  bm3d_params_init (&params);
  params.sigma = SIGMA;
  params.backend = backend;
  params.devices = devices;
  params.n_devices = n;
  params.progress = note_progress;
  params.progress_data = seen;
  memset (seen, 0, sizeof *seen);
  seen->cancel_at = cancel_at;
  setenv ("BM3D_SPLIT_MIN_PIXELS", "1", 1);
  status = job_for (&job, &params, report, 3);
  unsetenv ("BM3D_SPLIT_MIN_PIXELS");
  fake = *job.algorithm;
  fake.cuda_image = fake_device_image;
  job.algorithm = &fake;
  fake_failing = failing;
  if (status == BM3D_OK)
    status = bm3d_run_cpu (&in.img, &whole.img, &job);
  seen->calls = 0;
  if (status == BM3D_OK)
    status = bm3d_run_cuda (&in.img, &split.img, &job);
  *psnr = psnr_strided (whole.img.data, split.img.data,
                        whole.img.stride * H, 1, 0);
  free (in.buffer);
  free (whole.buffer);
  free (split.buffer);
  return status;
}

static void
check_split_queue (void)
{
  static const int two[] = { 0, 1 }, same[] = { 0, 0 },
                   three[] = { 0, 1, 2 };
  bm3d_report report;
  progress_seen seen;
  double psnr;
  bm3d_status status;

  status = fake_split (two, 2, -1, BM3D_BACKEND_AUTO, 0, &report, &seen,
                       &psnr);
  tap_ok (status == BM3D_OK && psnr >= 60.0 && !report.fell_back
          && !report.message[0] && seen.calls > 0 && seen.last == 1.0,
          "split over devices 0,1: the whole image's result (%.1f dB), "
          "no message, progress to 1", psnr);
  status = fake_split (two, 2, 1, BM3D_BACKEND_AUTO, 0, &report, &seen,
                       &psnr);
  tap_ok (status == BM3D_OK && psnr >= 60.0
          && report.fell_back == BM3D_FALLBACK_DEVICE
          && strcmp (report.message, "CUDA device 1 failed (CUDA error in "
                     "a fake: device 1 gone); its tiles were redone on "
                     "device 0") == 0,
          "device 1 fails: its band redone on device 0, said in one line "
          "(%s)", report.message);
  status = fake_split (three, 3, 2, BM3D_BACKEND_CUDA, 0, &report, &seen,
                       &psnr);
  tap_ok (status == BM3D_OK && psnr >= 60.0
          && strstr (report.message, "redone on device "),
          "three devices, device 2 fails under backend cuda: redone on "
          "another (%s)", report.message);
  status = fake_split (same, 2, 0, BM3D_BACKEND_AUTO, 0, &report, &seen,
                       &psnr);
  tap_ok (status == BM3D_OK && psnr >= 60.0
          && report.fell_back == BM3D_FALLBACK_FAILED
          && strstr (report.message, "; its tiles were redone on the CPU"),
          "devices 0,0 and device 0 fails under auto: the CPU redoes the "
          "bands (%s)", report.message);
  status = fake_split (same, 2, 0, BM3D_BACKEND_CUDA, 0, &report, &seen,
                       &psnr);
  tap_ok (status == BM3D_ERR_BACKEND_FAILED
          && strstr (report.message, "no device was left"),
          "every device failed under backend cuda: the device's error "
          "(%s)", report.message);
  status = fake_split (two, 2, -1, BM3D_BACKEND_AUTO, 1, &report, &seen,
                       &psnr);
  tap_ok (status == BM3D_ERR_CANCELLED,
          "cancelled from the progress callback: the split stops (%s)",
          bm3d_status_string (status));
}

int
main (void)
{
  check_bands (BM3D_MODE_BM3D, 3, 3);
  check_bands (BM3D_MODE_BM3D, 1, 2);
  check_bands (BM3D_MODE_NLM, 3, 2);
  check_bands (BM3D_MODE_ISOLINE, 3, 2);
  check_tile_plan ();
  check_split_queue ();
  check_device_lists ();
  check_fail_switch ();
  return tap_done ();
}
