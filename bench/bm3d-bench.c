/* Engine benchmark: denoises synthetic (or upscaled) images of several
 * sizes with each backend and prints the time of each phase, the
 * engine's total, the peak memory, the PSNR against the clean image and
 * (`xfer`, CUDA) the part of the engine's time spent waiting for copies
 * between host and device that no GPU work hid.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 *   bm3d-bench [--sizes 0.25,2,6,12,24] [--channels 1,3]
 *              [--backends cpu,cuda] [--sigma S] [--mode bm3d|bm3d-fast]
 *              [--threads N] [--repeat N] [--seed N] [--image FILE]
 *              [--noise white,camera] [--pixels float|u8|u16] [--no-warmup]
 *              [--out-scratch] [--brightness-noise A,B]
 *              [--devices SET/SET...]
 *   bm3d-bench --diff IMAGE1 IMAGE2     PSNR and largest difference
 *   bm3d-bench --synth W H CHANNELS OUT write a clean synthetic image
 *
 * Sizes are in megapixels; 0.25 means 512x512, the others are 4:3.  The
 * CUDA rows come after one warm-up call on the same image, so they show
 * the work, not the device's start-up.  Times are the best of --repeat
 * runs.  --noise camera adds rows in camera mode (the noise profile
 * estimated from the noisy image inside the engine's time, then the
 * correlated-noise filter) beside white mode's at the same sigma; its
 * `estim` column is bm3d_estimate_noise_profile alone on that image,
 * with the row's backend: the best and the median of --repeat calls.
 * --pixels u8 or u16 hands the engine the noisy image as 8- or 16-bit
 * pixels (rounded and clipped first, as a file
 * holds them) through bm3d_denoise_pixels, whose conversions then count
 * in its time; PSNR_in and PSNR_out are of those pixels.  --out-scratch
 * tells the engine the result's buffer is scratch, as bm3d-denoise does
 * (params.out_scratch: on CUDA, results of several tiles then come back
 * tile by tile).  --brightness-noise A,B gives the images the noise a
 * camera's sensor leaves instead of white noise: of deviation A + B x at
 * clean value x, rounded and clipped to 8 bits, so that camera mode
 * measures a level function and filters through its stabilising
 * transform; white mode still filters at --sigma.  --devices 0/0,1 runs
 * the CUDA rows once for each set of devices (params.devices: an image
 * of 32 megapixels or more is split over them), the set in a last
 * column: 100 MP RGB on one GPU against two (`engine` is the wall time;
 * the phases are summed over the devices).  */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bm3d.h"
#include "image_io.h"
#include "util.h"

#define MAX_LIST 16

typedef struct
{
  double        sizes[MAX_LIST];
  int           n_sizes;
  int           channels[MAX_LIST];
  int           n_channels;
  bm3d_backend  backends[MAX_LIST];
  int           n_backends;
  bm3d_noise_kind noises[2];      /* --noise: white, camera or both   */
  int           n_noises;
  float         sigma;
  bm3d_mode     mode;
  int           threads;
  int           repeat;
  int           warmup;
  uint64_t      seed;
  double        bright_a, bright_b; /* --brightness-noise; 0, 0: none   */
  const char   *image;
  bm3d_pixel_type pixels;       /* --pixels                         */
  int           out_scratch;    /* --out-scratch                    */
  bm3d_params   mode_options;   /* --nlm-h and the like */
  /* --devices: sets of CUDA devices, each a row of its own.  */
  int           dev_sets[MAX_LIST][BM3D_MAX_DEVICES];
  int           dev_n[MAX_LIST];
  char          dev_names[MAX_LIST][64];
  int           n_dev_sets;
} options;

static const char *const pixel_names[] = { "float", "u8", "u16" };

/* --brightness-noise: Gaussian noise of deviation a + b x at each clean
 * value x (the generator of --sigma's noise, at deviation 1), then
 * rounded and clipped to 0..255 as a camera's file holds it.  */
static int
add_brightness_noise (float *v, size_t n, const options *opt)
{
  float *unit = calloc (n, sizeof *unit);

  if (!unit)
    return -1;
  add_gaussian_noise (unit, n, 1.0, opt->seed);
  for (size_t i = 0; i < n; i++)
    {
      float x = roundf (v[i] + (float) (opt->bright_a + opt->bright_b * v[i])
                               * unit[i]);

      v[i] = x < 0.0f ? 0.0f : x > 255.0f ? 255.0f : x;
    }
  free (unit);
  return 0;
}

/* ---- images ----------------------------------------------------------- */

/* A clean test picture with what BM3D cares about: flat areas, smooth
 * gradients, straight and curved edges, and repeated texture at several
 * scales.  Values stay inside 16..240.  */
static void
synth_image (float *data, int w, int h, int channels)
{
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        double u = (double) x / (w > 1 ? w - 1 : 1);
        double v = (double) y / (h > 1 ? h - 1 : 1);
        double base = 60.0 + 100.0 * u * v;
        double tex = 25.0 * sin (x * 0.35) * sin (y * 0.21)
                     + 12.0 * sin ((x + 2 * y) * 0.9);
        int cell = ((x / 64) + (y / 48)) & 1;
        double dx = fmod (x, 200.0) - 100.0, dy = fmod (y, 160.0) - 80.0;
        int disk = dx * dx + dy * dy < 55.0 * 55.0;
        double g = base + (cell ? tex : 0.0) + (disk ? 50.0 : 0.0);

        for (int c = 0; c < channels; c++)
          {
            double k = channels == 1 ? 1.0 : (c == 0 ? 1.1 : c == 1 ? 0.9 : 0.7);
            double val = g * k + (channels == 1 ? 0.0 : 10.0 * c);

            if (val < 16.0)
              val = 16.0;
            if (val > 240.0)
              val = 240.0;
            data[((size_t) y * w + x) * channels + c] = (float) val;
          }
      }
}

static int
clamp_index (int i, int n)
{
  return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* Along one axis, target sample `i` of `n` falls between source samples
 * *i0 and *i1 of `src_n` (pixel centres aligned, edges repeated), at the
 * fraction *f from *i0.  */
static void
source_neighbours (int i, int n, int src_n, int *i0, int *i1, double *f)
{
  double s = (i + 0.5) * src_n / n - 0.5;
  int k = (int) floor (s);

  *f = s - k;
  *i0 = clamp_index (k, src_n);
  *i1 = clamp_index (k + 1, src_n);
}

/* Bilinear resampling of `src` (colour channels only) to w x h.  */
static void
resample (const Image *src, float *data, int w, int h, int channels)
{
  for (int y = 0; y < h; y++)
    {
      int y0, y1;
      double fy;

      source_neighbours (y, h, src->height, &y0, &y1, &fy);
      for (int x = 0; x < w; x++)
        {
          int x0, x1;
          double fx;

          source_neighbours (x, w, src->width, &x0, &x1, &fx);
          for (int c = 0; c < channels; c++)
            {
              /* Gray sources feed every channel of an RGB target.  */
              int sc = c < src->channels - src->has_alpha ? c : 0;
              const float *p = src->data;
              int n = src->channels;
              double a = p[((size_t) y0 * src->width + x0) * n + sc] * (1 - fx)
                         + p[((size_t) y0 * src->width + x1) * n + sc] * fx;
              double b = p[((size_t) y1 * src->width + x0) * n + sc] * (1 - fx)
                         + p[((size_t) y1 * src->width + x1) * n + sc] * fx;

              data[((size_t) y * w + x) * channels + c]
                = (float) (a * (1 - fy) + b * fy);
            }
        }
    }
}

/* PSNR (peak 255) of `a` against `b`, values clipped to 0..255 first
 * when `clip` is set; `maxdiff` gets the largest absolute difference.  */
static double
psnr (const float *a, const float *b, size_t n, int clip, double *maxdiff)
{
  double sum = 0.0, mx = 0.0;

  for (size_t i = 0; i < n; i++)
    {
      double x = a[i], y = b[i];

      if (clip)
        {
          x = x < 0.0 ? 0.0 : x > 255.0 ? 255.0 : x;
          y = y < 0.0 ? 0.0 : y > 255.0 ? 255.0 : y;
        }
      sum += (x - y) * (x - y);
      if (fabs (x - y) > mx)
        mx = fabs (x - y);
    }
  if (maxdiff)
    *maxdiff = mx;
  return psnr_of_squared_error (sum, n);
}

/* ---- actions ---------------------------------------------------------- */

static int
run_diff (const char *pa, const char *pb)
{
  Image a, b;
  char error[512];
  int status = 1;

  if (image_read (pa, &a, error, sizeof error) < 0)
    {
      fprintf (stderr, "bm3d-bench: %s\n", error);
      return 1;
    }
  if (image_read (pb, &b, error, sizeof error) < 0)
    {
      fprintf (stderr, "bm3d-bench: %s\n", error);
      image_free (&a);
      return 1;
    }
  if (a.width != b.width || a.height != b.height || a.channels != b.channels)
    fprintf (stderr, "bm3d-bench: %s and %s differ in size or channels\n",
             pa, pb);
  else
    {
      int colour = a.channels - a.has_alpha;
      size_t n = (size_t) a.width * a.height;
      double sum = 0.0, mx = 0.0;

      for (size_t i = 0; i < n; i++)
        for (int c = 0; c < colour; c++)
          {
            double d = (double) a.data[i * a.channels + c]
                       - b.data[i * b.channels + c];

            sum += d * d;
            if (fabs (d) > mx)
              mx = fabs (d);
          }
      if (sum == 0.0)
        printf ("psnr inf max_abs_diff 0\n");
      else
        printf ("psnr %.4f max_abs_diff %.6g\n",
                psnr_of_squared_error (sum, n * colour), mx);
      status = 0;
    }
  image_free (&a);
  image_free (&b);
  return status;
}

static int
run_synth (int w, int h, int channels, const char *path)
{
  Image img;
  char error[512];
  int status;

  if (w < 1 || h < 1 || (channels != 1 && channels != 3))
    {
      fprintf (stderr, "bm3d-bench: --synth needs W H and 1 or 3 channels\n");
      return 2;
    }
  if (image_alloc (&img, w, h, channels, 0, 32, error, sizeof error) < 0)
    {
      fprintf (stderr, "bm3d-bench: %s\n", error);
      return 1;
    }
  synth_image (img.data, w, h, channels);
  status = image_write (path, &img, 32, error, sizeof error);
  if (status < 0)
    fprintf (stderr, "bm3d-bench: %s\n", error);
  image_free (&img);
  return status < 0 ? 1 : 0;
}

static void
size_for (double mp, int *w, int *h)
{
  if (fabs (mp - 0.25) < 1e-9)
    {
      *w = *h = 512;
      return;
    }
  *w = (int) (sqrt (mp * 1e6 * 4.0 / 3.0) / 8.0 + 0.5) * 8;
  *h = *w * 3 / 4;
}

static double
now_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
compare_ms (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* The best and the median of --repeat times of
 * bm3d_estimate_noise_profile on `in` with `backend` (its block
 * statistics on the GPU unless the CPU), in ms, as "best/median" into
 * `cell`; "fail" when it fails.  The median shows what a best of
 * several hides: a tail from lease to lease, or from call to call.  */
static void
estimate_cell (const options *opt, const bm3d_image *in,
               bm3d_backend backend, char *cell, size_t size)
{
  bm3d_params params;
  bm3d_noise_profile profile;
  bm3d_report report;
  double *ms = malloc (opt->repeat * sizeof *ms);

  params = opt->mode_options;
  params.threads = opt->threads;
  params.backend = backend;
  snprintf (cell, size, "fail");
  if (!ms)
    return;
  for (int r = 0; r < opt->repeat; r++)
    {
      double t = now_seconds ();

      if (bm3d_estimate_noise_profile (in, &params, &profile, &report)
          != BM3D_OK)
        {
          free (ms);
          return;
        }
      ms[r] = (now_seconds () - t) * 1e3;
    }
  qsort (ms, opt->repeat, sizeof *ms, compare_ms);
  snprintf (cell, size, "%.2f/%.2f", ms[0], ms[opt->repeat / 2]);
  free (ms);
}

static const char *
noise_name (bm3d_noise_kind noise)
{
  return noise == BM3D_NOISE_PROFILE ? "camera" : "white";
}

/* `noisy` as pixels of `type` in `px` (its buffer allocated; NULL data
 * when out of memory), and `noisy` rounded and clipped to them.  */
static void
pixels_of (bm3d_pixel_type type, float *noisy, int w, int h, int ch,
           bm3d_pixels *px)
{
  const size_t n = (size_t) w * h * ch;

  px->width = w;
  px->height = h;
  px->channels = ch;
  px->has_alpha = 0;
  px->stride = (size_t) w * ch;
  px->type = type;
  px->data = malloc (n * bm3d_pixel_size (type));
  if (!px->data || type == BM3D_PIXELS_FLOAT)
    {
      if (px->data)
        memcpy (px->data, noisy, n * sizeof (float));
      return;
    }
  for (size_t i = 0; i < n; i++)
    {
      double c = noisy[i] > 0.0f ? (noisy[i] < 255.0f ? noisy[i] : 255.0)
                                 : 0.0;

      if (type == BM3D_PIXELS_U8)
        {
          ((uint8_t *) px->data)[i] = (uint8_t) (c + 0.5);
          noisy[i] = ((uint8_t *) px->data)[i];
        }
      else
        {
          ((uint16_t *) px->data)[i] = (uint16_t) (c * 257.0 + 0.5);
          noisy[i] = ((uint16_t *) px->data)[i] / 257.0f;
        }
    }
}

/* The result pixels back to floats for the PSNR.  */
static void
floats_of (const bm3d_pixels *px, float *dst)
{
  const size_t n = (size_t) px->width * px->height * px->channels;

  for (size_t i = 0; i < n; i++)
    dst[i] = px->type == BM3D_PIXELS_U8
             ? ((const uint8_t *) px->data)[i]
             : px->type == BM3D_PIXELS_U16
             ? ((const uint16_t *) px->data)[i] / 257.0f
             : ((const float *) px->data)[i];
}

/* `set` is an index into --devices's sets, or -1.  */
static int
bench_one (const options *opt, const float *clean, const float *noisy,
           int w, int h, int channels, bm3d_backend backend,
           bm3d_noise_kind noise, int set)
{
  bm3d_pixels in, out;
  bm3d_image in_float;
  bm3d_params params;
  bm3d_report report, best;
  bm3d_status status;
  size_t n = (size_t) w * h * channels;
  float *result = malloc (n * sizeof (float));
  float *noisy_px = malloc (n * sizeof (float));
  double dummy;

  in.data = out.data = NULL;
  if (result && noisy_px)
    {
      memcpy (noisy_px, noisy, n * sizeof (float));
      pixels_of (opt->pixels, noisy_px, w, h, channels, &in);
      out = in;
      out.data = malloc (n * bm3d_pixel_size (opt->pixels));
    }
  if (!result || !noisy_px || !in.data || !out.data)
    {
      fprintf (stderr, "bm3d-bench: out of memory\n");
      free (result);
      free (noisy_px);
      free (in.data);
      free (out.data);
      return 1;
    }
  in_float.width = w;
  in_float.height = h;
  in_float.channels = channels;
  in_float.has_alpha = 0;
  in_float.stride = (size_t) w * channels;
  in_float.data = noisy_px;

  params = opt->mode_options;
  params.sigma = opt->sigma;
  params.mode = opt->mode;
  params.backend = backend;
  params.threads = opt->threads;
  params.noise = noise;
  params.out_scratch = opt->out_scratch;
  if (set >= 0)
    {
      params.device = opt->dev_sets[set][0];
      params.devices = opt->dev_sets[set];
      params.n_devices = opt->dev_n[set];
    }

  /* CUDA: start the device and size its buffers before timing.  */
  if (backend == BM3D_BACKEND_CUDA && opt->warmup
      && (status = bm3d_denoise_pixels (&in, &out, &params, &report)) != BM3D_OK)
    {
      printf ("%-6.2f %5dx%-5d %2d %-5s %-6s failed: %s\n",
              w * (double) h / 1e6, w, h, channels,
              bm3d_backend_name (backend), noise_name (noise),
              report.message);
      free (result);
      free (noisy_px);
      free (in.data);
      free (out.data);
      return 1;
    }
  memset (&best, 0, sizeof best);
  for (int r = 0; r < opt->repeat; r++)
    {
      status = bm3d_denoise_pixels (&in, &out, &params, &report);
      if (status != BM3D_OK)
        {
          printf ("%-6.2f %5dx%-5d %2d %-5s %-6s failed: %s\n",
                  w * (double) h / 1e6, w, h, channels,
                  bm3d_backend_name (backend), noise_name (noise),
                  report.message);
          free (result);
          free (noisy_px);
          free (in.data);
          free (out.data);
          return 1;
        }
      if (r == 0 || report.seconds_total < best.seconds_total)
        best = report;
    }
  char estim[32] = "-";

  if (noise == BM3D_NOISE_PROFILE)
    estimate_cell (opt, &in_float, backend, estim, sizeof estim);
  printf ("%-6.2f %5dx%-5d %2d %-5s %-6s %10.2f %10.2f %13s %10.2f %9.1f %9.1f %8.2f %8.2f %8.2f%s%s\n",
          w * (double) h / 1e6, w, h, channels, bm3d_backend_name (backend),
          noise_name (noise),
          best.seconds_phase[0] * 1e3, best.seconds_phase[1] * 1e3, estim,
          best.seconds_total * 1e3,
          best.peak_device_bytes / 1048576.0, best.peak_host_bytes / 1048576.0,
          psnr (noisy_px, clean, n, 1, &dummy),
          (floats_of (&out, result), psnr (result, clean, n, 1, &dummy)),
          best.seconds_transfer * 1e3, set >= 0 ? " " : "",
          set >= 0 ? opt->dev_names[set] : "");
  if (best.fell_back && best.message[0])
    printf ("# %s\n", best.message);
  fflush (stdout);
  free (result);
  free (noisy_px);
  free (in.data);
  free (out.data);
  return 0;
}

static int
run_bench (const options *opt)
{
  Image src = { 0 };
  char error[512];
  int failures = 0;

  if (opt->image && image_read (opt->image, &src, error, sizeof error) < 0)
    {
      fprintf (stderr, "bm3d-bench: %s\n", error);
      return 1;
    }
  printf ("# sigma %g, mode %s, %s, %s pixels%s, best of %d run(s); "
          "times in ms\n", (double) opt->sigma, bm3d_mode_name (opt->mode),
          opt->image ? opt->image : "synthetic images",
          pixel_names[opt->pixels],
          opt->out_scratch ? ", output scratch" : "", opt->repeat);
  if (opt->bright_a > 0.0 || opt->bright_b > 0.0)
    printf ("# noise: deviation %g + %g x, rounded and clipped to 8 bits\n",
            opt->bright_a, opt->bright_b);
  printf ("%-6s %11s %2s %-5s %-6s %10s %10s %13s %10s %9s %9s %8s %8s %8s\n",
          "MP", "size", "ch", "back", "noise", "phase1", "phase2", "estim",
          "engine", "dev_MiB", "host_MiB", "PSNR_in", "PSNR_out", "xfer");
  for (int s = 0; s < opt->n_sizes; s++)
    for (int c = 0; c < opt->n_channels; c++)
      {
        int w, h, ch = opt->channels[c];
        size_t n;
        float *clean, *noisy;

        size_for (opt->sizes[s], &w, &h);
        n = (size_t) w * h * ch;
        clean = malloc (n * sizeof (float));
        noisy = malloc (n * sizeof (float));
        if (!clean || !noisy)
          {
            fprintf (stderr, "bm3d-bench: out of memory for %dx%d\n", w, h);
            free (clean);
            free (noisy);
            failures++;
            continue;
          }
        if (opt->image)
          resample (&src, clean, w, h, ch);
        else
          synth_image (clean, w, h, ch);
        memcpy (noisy, clean, n * sizeof (float));
        if ((opt->bright_a > 0.0 || opt->bright_b > 0.0)
            && add_brightness_noise (noisy, n, opt) < 0)
          {
            fprintf (stderr, "bm3d-bench: out of memory for the noise\n");
            free (clean);
            free (noisy);
            failures++;
            continue;
          }
        else if (opt->bright_a == 0.0 && opt->bright_b == 0.0)
          add_gaussian_noise (noisy, n, opt->sigma, opt->seed);
        for (int b = 0; b < opt->n_backends; b++)
          {
            char why[200];

            if (opt->backends[b] == BM3D_BACKEND_CUDA
                && !bm3d_cuda_available (why, sizeof why))
              {
                printf ("%-6.2f %5dx%-5d %2d %-5s skipped: %s\n",
                        w * (double) h / 1e6, w, h, ch, "cuda", why);
                continue;
              }
            int sets = opt->backends[b] == BM3D_BACKEND_CUDA
                       ? opt->n_dev_sets : 0;

            for (int d = sets ? 0 : -1; d < sets; d++)
              for (int k = 0; k < opt->n_noises; k++)
                failures += bench_one (opt, clean, noisy, w, h, ch,
                                       opt->backends[b], opt->noises[k], d);
          }
        free (clean);
        free (noisy);
      }
  if (opt->image)
    image_free (&src);
  return failures ? 1 : 0;
}

/* ---- options ---------------------------------------------------------- */

static int
parse_doubles (const char *s, double *out, int max)
{
  int n = 0;
  char *end;

  while (*s && n < max)
    {
      out[n++] = strtod (s, &end);
      if (end == s || out[n - 1] <= 0.0)
        return -1;
      s = *end == ',' ? end + 1 : end;
      if (*end && *end != ',')
        return -1;
    }
  return n;
}

/* "0/0,1": sets of device ordinals, '/' between sets, ',' inside.  */
static int
parse_device_sets (const char *arg, options *opt)
{
  const char *p = arg;

  opt->n_dev_sets = 0;
  while (*p && opt->n_dev_sets < MAX_LIST)
    {
      const int s = opt->n_dev_sets++;
      const char *start = p;
      char *end;

      opt->dev_n[s] = 0;
      for (;;)
        {
          long d = *p >= '0' && *p <= '9' ? strtol (p, &end, 10) : -1;

          if (d < 0 || d > 1023 || opt->dev_n[s] == BM3D_MAX_DEVICES)
            return -1;
          opt->dev_sets[s][opt->dev_n[s]++] = (int) d;
          p = end;
          if (*p != ',')
            break;
          p++;
        }
      snprintf (opt->dev_names[s], sizeof opt->dev_names[s], "%.*s",
                (int) (p - start), start);
      if (*p == '/')
        p++;
      else if (*p)
        return -1;
    }
  return *p || opt->n_dev_sets == 0 ? -1 : 0;
}

static void
usage (void)
{
  fprintf (stderr,
           "Usage: bm3d-bench [--sizes MP,...] [--channels 1,3] "
           "[--backends cpu,cuda]\n"
           "                  [--sigma S] [--mode bm3d|bm3d-fast] "
           "[--threads N] [--repeat N]\n"
           "                  [--seed N] [--image FILE] [--noise white,camera]\n"
           "                  [--pixels float|u8|u16] [--no-warmup] "
           "[--out-scratch] [--brightness-noise A,B]\n"
           "                  [--devices SET/SET...] (a SET: 0 or 0,1)\n"
           "       bm3d-bench --diff IMAGE1 IMAGE2\n"
           "       bm3d-bench --synth W H CHANNELS OUT\n");
}

int
main (int argc, char **argv)
{
  options opt;
  double tmp[MAX_LIST];

  memset (&opt, 0, sizeof opt);
  opt.n_sizes = parse_doubles ("0.25,2,6,12,24", opt.sizes, MAX_LIST);
  opt.channels[0] = 1;
  opt.channels[1] = 3;
  opt.n_channels = 2;
  opt.backends[0] = BM3D_BACKEND_CPU;
  opt.backends[1] = BM3D_BACKEND_CUDA;
  opt.n_backends = 2;
  opt.noises[0] = BM3D_NOISE_WHITE;
  opt.n_noises = 1;
  opt.sigma = 25.0f;
  opt.mode = BM3D_MODE_BM3D;
  bm3d_params_init (&opt.mode_options);
  opt.repeat = 1;
  opt.warmup = 1;
  opt.seed = 1;

  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      const char *v = i + 1 < argc ? argv[i + 1] : NULL;

      if (strcmp (a, "--diff") == 0 && i + 2 < argc)
        return run_diff (argv[i + 1], argv[i + 2]);
      if (strcmp (a, "--synth") == 0 && i + 4 < argc)
        return run_synth (atoi (argv[i + 1]), atoi (argv[i + 2]),
                          atoi (argv[i + 3]), argv[i + 4]);
      if (strcmp (a, "--no-warmup") == 0)
        {
          opt.warmup = 0;
          continue;
        }
      if (strcmp (a, "--out-scratch") == 0)
        {
          opt.out_scratch = 1;
          continue;
        }
      if (strncmp (a, "--", 2) == 0)
        {
          char error[200];
          int takes = engine_option_takes_value (a + 2);
          int set = engine_option_set (&opt.mode_options, a + 2,
                                       takes ? v : NULL, error, sizeof error);

          if (set < 0 || (set > 0 && takes && !v))
            {
              fprintf (stderr, "bm3d-bench: %s\n",
                       set < 0 ? error : "option needs a value");
              return 2;
            }
          if (set > 0)
            {
              i += takes;
              continue;
            }
        }
      if (!v)
        {
          usage ();
          return 2;
        }
      i++;
      if (strcmp (a, "--sizes") == 0)
        {
          if ((opt.n_sizes = parse_doubles (v, opt.sizes, MAX_LIST)) < 1)
            {
              usage ();
              return 2;
            }
        }
      else if (strcmp (a, "--channels") == 0)
        {
          int n = parse_doubles (v, tmp, MAX_LIST);

          if (n < 1)
            {
              usage ();
              return 2;
            }
          opt.n_channels = 0;
          for (int k = 0; k < n; k++)
            if (tmp[k] == 1.0 || tmp[k] == 3.0)
              opt.channels[opt.n_channels++] = (int) tmp[k];
        }
      else if (strcmp (a, "--backends") == 0)
        {
          char buf[256];
          char *save = NULL;

          snprintf (buf, sizeof buf, "%s", v);
          opt.n_backends = 0;
          for (char *t = strtok_r (buf, ",", &save); t && opt.n_backends < MAX_LIST;
               t = strtok_r (NULL, ",", &save))
            {
              int b = bm3d_backend_parse (t);

              if (b < 0)
                {
                  usage ();
                  return 2;
                }
              opt.backends[opt.n_backends++] = (bm3d_backend) b;
            }
        }
      else if (strcmp (a, "--noise") == 0)
        {
          if (strcmp (v, "white") == 0 || strcmp (v, "camera") == 0)
            {
              opt.noises[0] = strcmp (v, "white") == 0 ? BM3D_NOISE_WHITE
                                                       : BM3D_NOISE_PROFILE;
              opt.n_noises = 1;
            }
          else if (strcmp (v, "white,camera") == 0)
            {
              opt.noises[0] = BM3D_NOISE_WHITE;
              opt.noises[1] = BM3D_NOISE_PROFILE;
              opt.n_noises = 2;
            }
          else
            {
              usage ();
              return 2;
            }
        }
      else if (strcmp (a, "--pixels") == 0)
        {
          int t = -1;

          for (int k = 0; k < 3; k++)
            if (strcmp (v, pixel_names[k]) == 0)
              t = k;
          if (t < 0)
            {
              fprintf (stderr, "bm3d-bench: --pixels takes float, u8 or u16 "
                       "(got \"%s\")\n", v);
              return 2;
            }
          opt.pixels = (bm3d_pixel_type) t;
        }
      else if (strcmp (a, "--sigma") == 0)
        opt.sigma = (float) atof (v);
      else if (strcmp (a, "--mode") == 0)
        {
          int m = bm3d_mode_parse (v);

          if (m < 0)
            {
              usage ();
              return 2;
            }
          opt.mode = (bm3d_mode) m;
        }
      else if (strcmp (a, "--threads") == 0)
        opt.threads = atoi (v);
      else if (strcmp (a, "--devices") == 0)
        {
          if (parse_device_sets (v, &opt) < 0)
            {
              fprintf (stderr, "bm3d-bench: --devices: expected sets of "
                       "device numbers, e.g. 0/0,1\n");
              return 2;
            }
        }
      else if (strcmp (a, "--repeat") == 0)
        opt.repeat = atoi (v) > 0 ? atoi (v) : 1;
      else if (strcmp (a, "--seed") == 0)
        opt.seed = strtoull (v, NULL, 10);
      else if (strcmp (a, "--image") == 0)
        opt.image = v;
      else if (strcmp (a, "--brightness-noise") == 0)
        {
          if (sscanf (v, "%lf,%lf", &opt.bright_a, &opt.bright_b) != 2
              || opt.bright_a < 0.0 || opt.bright_b < 0.0)
            {
              fprintf (stderr, "bm3d-bench: --brightness-noise wants A,B, "
                       "both at least 0 (got %s)\n", v);
              return 2;
            }
        }
      else
        {
          usage ();
          return 2;
        }
    }
  return run_bench (&opt);
}
