/* Camera noise: the noise profile estimator's accuracy and camera mode's
 * quality and time on real photographs with ground truth.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 *   bm3d-camera-quality [--sigmas LIST] [--refine STEP] [--strength K]
 *                       [--chroma-strength K] [--threads N]
 *                       [--only SUBSTRING] [--half 0|1] [--every N]
 *                       [--estimate-only] [--camera-only]
 *                       [--oracle-profile] [--oracle SWEEP] [--timing] DIR
 *
 * DIR holds pairs NAME_real.JPG (noisy) and NAME_mean.JPG (the mean of
 * many shots: the truth), as the PolyU real-noise set does.  For every
 * pair, on the CPU backend, blind (nothing of the truth is used but to
 * score):
 *   - the estimated profile against the truth's (the noise's own lag
 *     table, from noisy - mean): each plane's noise RMS and its share of
 *     power below 0.25 cycles/pixel, estimate / truth;
 *   - PSNR and SSIM (peak 255, the three channels, the output clipped
 *     and rounded to 8 bits) of the noisy input, of camera mode, of
 *     white CBM3D at --sigma auto (the sigma bm3d_estimate_sigma gives),
 *     and of white CBM3D at the best of the sigmas in LIST
 *     (default 10,15,20,25,30), refined by STEP (default 2.5) either
 *     side of the best (the oracle: chosen with the truth);
 *   - with --timing, the time of camera mode (estimation included) and
 *     of white mode at the sigma camera mode's parameters follow, in
 *     the same run, and the estimator's share.
 * --oracle SWEEP takes each photo's best sigma from the output of
 * bench/camera-sweep.sh instead of sweeping here (and denoises at it
 * once, for SSIM).
 * The last lines give the means.  --sigmas none leaves the oracle out;
 * --half H keeps every other photo, from the H-th (to calibrate on one
 * half and check on the other), --every N every N-th; --estimate-only
 * prints the estimator's accuracy alone, --camera-only camera mode's
 * PSNR alone;
 * --oracle-profile gives camera mode the truth's profile instead of
 * the estimate (what the filter can do with a perfect one).  */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <time.h>

#include "bm3d.h"
#include "image_io.h"
#include "util.h"

#define MAX_PHOTOS  256
#define MAX_SIGMAS  32

static double
now_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static float
to_8bit (float v)
{
  v = roundf (v);
  return v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v;
}

static double
psnr_8bit (const float *a, const float *ref, size_t n)
{
  double s = 0.0;

  for (size_t i = 0; i < n; i++)
    {
      double d = to_8bit (a[i]) - ref[i];
      s += d * d;
    }
  return psnr_of_squared_error (s, n);
}

/* Mean SSIM (Wang et al. 2004: 11x11 Gaussian window of deviation 1.5,
 * K1 0.01, K2 0.03, L 255) over the channels, of the 8-bit rounding of
 * `a` against `ref`; windows wholly inside the image.  */
static double
ssim_8bit (const float *a, const float *ref, int w, int h, int ch)
{
  const double c1 = 6.5025, c2 = 58.5225;
  double g[11], gs = 0.0, total = 0.0;
  long count = 0;

  for (int i = 0; i < 11; i++)
    gs += g[i] = exp (-(i - 5) * (i - 5) / (2.0 * 1.5 * 1.5));
  for (int i = 0; i < 11; i++)
    g[i] /= gs;
  for (int c = 0; c < ch; c++)
    for (int y = 0; y + 11 <= h; y++)
      for (int x = 0; x + 11 <= w; x++)
        {
          double mx = 0, my = 0, sxx = 0, syy = 0, sxy = 0;

          for (int j = 0; j < 11; j++)
            for (int i = 0; i < 11; i++)
              {
                size_t o = ((size_t) (y + j) * w + x + i) * ch + c;
                double wt = g[j] * g[i];
                double p = to_8bit (a[o]), q = ref[o];

                mx += wt * p;
                my += wt * q;
                sxx += wt * p * p;
                syy += wt * q * q;
                sxy += wt * p * q;
              }
          sxx -= mx * mx;
          syy -= my * my;
          sxy -= mx * my;
          total += ((2 * mx * my + c1) * (2 * sxy + c2))
                   / ((mx * mx + my * my + c1) * (sxx + syy + c2));
          count++;
        }
  return count ? total / count : 1.0;
}

/* The truth's profile: the lag table of noisy - mean in the engine's
 * planes, over the whole image (mean removed).  */
static int
truth_profile (const Image *noisy, const Image *mean, bm3d_noise_profile *p)
{
  static const float fwd[3][3] = {
    { 1.0f / 3, 1.0f / 3, 1.0f / 3 }, { 0.5f, 0.0f, -0.5f },
    { 0.25f, -0.5f, 0.25f }
  };
  int w = noisy->width, h = noisy->height, ch = noisy->channels;
  size_t n = (size_t) w * h;
  double *plane = malloc (n * sizeof (double));

  memset (p, 0, sizeof *p);
  p->channels = ch == 3 ? 3 : 1;
  for (int c = 0; c < p->channels; c++)
    {
      double m = 0.0;

      for (size_t i = 0; i < n; i++)
        {
          double v = 0.0;

          if (ch == 3)
            for (int k = 0; k < 3; k++)
              v += fwd[c][k] * (noisy->data[i * 3 + k] - mean->data[i * 3 + k]);
          else
            v = noisy->data[i] - mean->data[i];
          plane[i] = v;
          m += v;
        }
      m /= n;
      for (size_t i = 0; i < n; i++)
        plane[i] -= m;
      for (int dy = -BM3D_NOISE_LAG; dy <= BM3D_NOISE_LAG; dy++)
        for (int dx = -BM3D_NOISE_LAG; dx <= BM3D_NOISE_LAG; dx++)
          {
            double s = 0.0;
            long pairs = 0;

            for (int y = 0; y < h; y++)
              {
                if (y + dy < 0 || y + dy >= h)
                  continue;
                for (int x = 0; x < w; x++)
                  if (x + dx >= 0 && x + dx < w)
                    {
                      s += plane[(size_t) y * w + x]
                           * plane[(size_t) (y + dy) * w + x + dx];
                      pairs++;
                    }
              }
            p->autocov[c][dy + BM3D_NOISE_LAG][dx + BM3D_NOISE_LAG]
              = (float) (s / pairs);
          }
    }
  free (plane);
  return bm3d_noise_profile_update (p, NULL, 0) == BM3D_OK ? 0 : -1;
}

typedef struct
{
  double psnr, ssim, seconds;
} score;

static int
denoise_score (const Image *noisy, const Image *mean, bm3d_params *params,
               score *s, int want_ssim)
{
  bm3d_image in = engine_view (noisy);
  size_t n = (size_t) noisy->width * noisy->height * noisy->channels;
  float *buf = malloc (n * sizeof (float));
  bm3d_image out = in;
  bm3d_report report;
  double t0 = now_seconds ();
  bm3d_status st;

  out.data = buf;
  st = bm3d_denoise (&in, &out, params, &report);
  s->seconds = now_seconds () - t0;
  if (st != BM3D_OK)
    {
      fprintf (stderr, "denoise failed: %s\n", report.message);
      free (buf);
      return -1;
    }
  s->psnr = psnr_8bit (buf, mean->data, n);
  s->ssim = want_ssim ? ssim_8bit (buf, mean->data, noisy->width,
                                   noisy->height, noisy->channels) : 0.0;
  free (buf);
  return 0;
}

/* The sigma of the best PSNR for `name` in a sweep's output ("NAME
 * SIGMA PSNR dB" lines), or 0.  */
static double
oracle_sigma (const char *path, const char *name)
{
  FILE *f = fopen (path, "r");
  char line[512], n[256];
  double sigma, psnr, best = -1.0, best_sigma = 0.0;

  if (!f)
    return 0.0;
  while (fgets (line, sizeof line, f))
    if (sscanf (line, "%255s %lf %lf", n, &sigma, &psnr) == 3
        && strcmp (n, name) == 0 && psnr > best)
      {
        best = psnr;
        best_sigma = sigma;
      }
  fclose (f);
  return best_sigma;
}

static int
compare_names (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

int
main (int argc, char **argv)
{
  double sigmas[MAX_SIGMAS] = { 10, 15, 20, 25, 30 };
  int n_sigmas = 5, threads = 0;
  float strength = 0.0f, chroma_strength = 0.0f;
  int estimate_only = 0, oracle_profile = 0, half = -1, every = 2;
  int camera_only = 0, timing = 0;
  const char *oracle = NULL;
  double refine = 2.5;
  const char *dir = NULL, *only = NULL;
  char *names[MAX_PHOTOS];
  int n_photos = 0;
  DIR *d;
  struct dirent *e;
  double sum[16] = { 0 };
  int counted = 0, below_input = 0;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--sigmas") == 0 && i + 1 < argc)
        {
          char *s = argv[++i];

          n_sigmas = 0;
          while (strcmp (s, "none") != 0 && *s && n_sigmas < MAX_SIGMAS)
            {
              sigmas[n_sigmas++] = strtod (s, &s);
              if (*s == ',')
                s++;
            }
        }
      else if (strcmp (argv[i], "--half") == 0 && i + 1 < argc)
        half = atoi (argv[++i]), every = 2;
      else if (strcmp (argv[i], "--every") == 0 && i + 1 < argc)
        every = atoi (argv[++i]), half = 0;
      else if (strcmp (argv[i], "--oracle") == 0 && i + 1 < argc)
        oracle = argv[++i];
      else if (strcmp (argv[i], "--timing") == 0)
        timing = 1;
      else if (strcmp (argv[i], "--camera-only") == 0)
        camera_only = 1;
      else if (strcmp (argv[i], "--oracle-profile") == 0)
        oracle_profile = 1;
      else if (strcmp (argv[i], "--estimate-only") == 0)
        estimate_only = 1;
      else if (strcmp (argv[i], "--refine") == 0 && i + 1 < argc)
        refine = atof (argv[++i]);
      else if (strcmp (argv[i], "--strength") == 0 && i + 1 < argc)
        strength = (float) atof (argv[++i]);
      else if (strcmp (argv[i], "--chroma-strength") == 0 && i + 1 < argc)
        chroma_strength = (float) atof (argv[++i]);
      else if (strcmp (argv[i], "--threads") == 0 && i + 1 < argc)
        threads = atoi (argv[++i]);
      else if (strcmp (argv[i], "--only") == 0 && i + 1 < argc)
        only = argv[++i];
      else if (argv[i][0] != '-' && !dir)
        dir = argv[i];
      else
        {
          fprintf (stderr, "usage: %s [--sigmas LIST] [--refine STEP] "
                   "[--strength K] [--chroma-strength K] [--threads N] "
                   "[--only SUBSTRING] [--half 0|1] [--every N] "
                   "[--estimate-only] [--camera-only] [--oracle-profile] "
                   "[--oracle SWEEP] [--timing] DIR\n", argv[0]);
          return 2;
        }
    }
  if (!dir || !(d = opendir (dir)))
    {
      fprintf (stderr, "%s: cannot read the folder %s\n", argv[0],
               dir ? dir : "(none)");
      return 1;
    }
  while ((e = readdir (d)) && n_photos < MAX_PHOTOS)
    {
      size_t len = strlen (e->d_name);

      if (len > 9 && strcmp (e->d_name + len - 9, "_real.JPG") == 0
          && (!only || strstr (e->d_name, only)))
        {
          names[n_photos] = strdup (e->d_name);
          names[n_photos][len - 9] = '\0';
          n_photos++;
        }
    }
  closedir (d);
  qsort (names, n_photos, sizeof *names, compare_names);
  /* --half H: every other photo, from the H-th (a calibration set and
   * the set held out).  */
  if (half >= 0 && every > 0)
    {
      int kept = 0;

      for (int p = 0; p < n_photos; p++)
        if (p % every == half)
          names[kept++] = names[p];
        else
          free (names[p]);
      n_photos = kept;
    }

  printf ("# photo | input dB | camera dB SSIM | --sigma auto: sigma dB | "
          "best sigma: sigma dB SSIM | luma RMS est/true | chroma RMS "
          "est/true | luma low share est true | camera s, white s, "
          "estimate s\n");
  for (int p = 0; p < n_photos; p++)
    {
      char path[4096], error[512];
      Image noisy, mean;
      bm3d_noise_profile est, truth;
      bm3d_params params;
      bm3d_report report;
      bm3d_image in;
      size_t n;
      score cam, white, best = { -1, 0, 0 }, aut;
      float auto_sigma;
      double best_sigma = 0.0, input_psnr, t0, t_est;
      double rms_ratio[3];

      snprintf (path, sizeof path, "%s/%s_real.JPG", dir, names[p]);
      if (image_read (path, &noisy, error, sizeof error) != 0)
        {
          fprintf (stderr, "%s\n", error);
          return 1;
        }
      snprintf (path, sizeof path, "%s/%s_mean.JPG", dir, names[p]);
      if (image_read (path, &mean, error, sizeof error) != 0)
        {
          fprintf (stderr, "%s\n", error);
          return 1;
        }
      n = (size_t) noisy.width * noisy.height * noisy.channels;
      input_psnr = psnr_8bit (noisy.data, mean.data, n);
      in = engine_view (&noisy);

      bm3d_params_init (&params);
      params.backend = BM3D_BACKEND_CPU;
      params.threads = threads;
      t0 = now_seconds ();
      if (bm3d_estimate_noise_profile (&in, &params, &est, &report) != BM3D_OK)
        {
          fprintf (stderr, "%s: %s\n", names[p], report.message);
          return 1;
        }
      t_est = now_seconds () - t0;
      truth_profile (&noisy, &mean, &truth);
      for (int c = 0; c < 3; c++)
        rms_ratio[c] = est.sigma[c] / truth.sigma[c];

      if (estimate_only)
        {
          printf ("%s | luma %.2f/%.2f | chroma1 %.2f/%.2f | chroma2 "
                  "%.2f/%.2f | low %.2f/%.2f %.2f/%.2f | white sigma %.1f | "
                  "%.3f s\n", names[p], (double) est.sigma[0],
                  (double) truth.sigma[0], (double) est.sigma[1],
                  (double) truth.sigma[1], (double) est.sigma[2],
                  (double) truth.sigma[2], (double) est.low_share[0],
                  (double) truth.low_share[0], (double) est.low_share[1],
                  (double) truth.low_share[1], (double) est.sigma_white,
                  t_est);
          for (int c = 0; c < 3; c++)
            sum[c] += fabs (rms_ratio[c] - 1.0) <= 0.15;
          sum[3] += fabs (est.low_share[0] - truth.low_share[0]) <= 0.05;
          sum[4] += fabs (est.low_share[1] - truth.low_share[1]) <= 0.05;
          sum[5] += t_est;
          for (int c = 0; c < 3; c++)
            sum[6 + c] += log (rms_ratio[c]);
          counted++;
          image_free (&noisy);
          image_free (&mean);
          continue;
        }

      /* Camera mode, blind: estimation inside the call.  */
      params.noise = BM3D_NOISE_PROFILE;
      params.strength = strength;
      params.chroma_strength = chroma_strength;
      if (oracle_profile)
        params.profile = &truth;
      if (denoise_score (&noisy, &mean, &params, &cam, 1) != 0)
        return 1;

      if (camera_only)
        {
          printf ("%s | %.2f | %.2f %.4f | %.2f s\n", names[p], input_psnr,
                  cam.psnr, cam.ssim, cam.seconds);
          sum[0] += input_psnr;
          sum[1] += cam.psnr;
          below_input += cam.psnr < input_psnr;
          counted++;
          image_free (&noisy);
          image_free (&mean);
          continue;
        }

      /* --sigma auto.  */
      bm3d_params_init (&params);
      params.backend = BM3D_BACKEND_CPU;
      params.threads = threads;
      bm3d_estimate_sigma (&in, &params, &auto_sigma, &report);
      params.sigma = auto_sigma > 0.1f ? auto_sigma : 0.1f;
      if (denoise_score (&noisy, &mean, &params, &aut, 0) != 0)
        return 1;

      /* The oracle: the best white sigma, chosen against the truth, from
       * a sweep's output (--oracle), else by a sweep here ("--sigmas
       * none": left out, for quick runs).  */
      if (oracle && (best_sigma = oracle_sigma (oracle, names[p])) > 0.0)
        {
          params.sigma = (float) best_sigma;
          if (denoise_score (&noisy, &mean, &params, &best, 1) != 0)
            return 1;
        }
      for (int pass = 0; pass < 2 && n_sigmas > 0 && !oracle; pass++)
        {
          double list[MAX_SIGMAS];
          int m = 0;

          if (pass == 0)
            for (int i = 0; i < n_sigmas; i++)
              list[m++] = sigmas[i];
          else if (refine > 0.0)
            {
              list[m++] = best_sigma - refine;
              list[m++] = best_sigma + refine;
            }
          for (int i = 0; i < m; i++)
            {
              score s;

              if (list[i] <= 0.0)
                continue;
              params.sigma = (float) list[i];
              if (denoise_score (&noisy, &mean, &params, &s, 1) != 0)
                return 1;
              if (s.psnr > best.psnr)
                {
                  best = s;
                  best_sigma = list[i];
                }
            }
        }
      memset (&white, 0, sizeof white);
      if (timing)
        {
          /* White mode's time at the same sigma camera mode follows.  */
          params.sigma = est.sigma_white > 0.5f ? est.sigma_white : 0.5f;
          denoise_score (&noisy, &mean, &params, &white, 0);
        }

      {
        double chroma_est = sqrt (0.5 * (est.sigma[1] * est.sigma[1]
                                         + est.sigma[2] * est.sigma[2]));
        double chroma_true = sqrt (0.5 * (truth.sigma[1] * truth.sigma[1]
                                          + truth.sigma[2] * truth.sigma[2]));

        printf ("%s | %.2f | %.2f %.4f | %.2f %.2f | %.1f %.2f %.4f | "
                "%.2f/%.2f | %.2f/%.2f | %.2f %.2f | %.2f %.2f %.3f\n",
                names[p], input_psnr, cam.psnr, cam.ssim, auto_sigma,
                aut.psnr, best_sigma, best.psnr, best.ssim,
                (double) est.sigma[0], (double) truth.sigma[0], chroma_est,
                chroma_true, (double) est.low_share[0],
                (double) truth.low_share[0], cam.seconds, white.seconds,
                t_est);
        fflush (stdout);
        sum[0] += input_psnr;
        sum[1] += cam.psnr;
        sum[2] += cam.ssim;
        sum[3] += aut.psnr;
        sum[4] += best.psnr;
        sum[5] += best.ssim;
        sum[6] += cam.seconds;
        sum[7] += white.seconds;
        sum[8] += t_est;
        sum[9] += fabs (rms_ratio[0] - 1.0) <= 0.15;
        sum[10] += fabs (chroma_est / chroma_true - 1.0) <= 0.15;
        sum[11] += fabs (est.low_share[0] - truth.low_share[0]) <= 0.05;
        sum[12] += est.sigma_white;
        sum[13] += best_sigma;
        below_input += cam.psnr < input_psnr;
        counted++;
      }
      image_free (&noisy);
      image_free (&mean);
    }
  if (counted && estimate_only)
    printf ("# %d photos: RMS within 15 %%: luma %d, chroma1 %d, chroma2 %d; "
            "low share within 0.05: luma %d, chroma1 %d; geometric mean "
            "RMS ratio %.3f %.3f %.3f; estimate %.3f s\n", counted,
            (int) sum[0], (int) sum[1], (int) sum[2], (int) sum[3],
            (int) sum[4], exp (sum[6] / counted), exp (sum[7] / counted),
            exp (sum[8] / counted), sum[5] / counted);
  else if (counted && camera_only)
    printf ("# %d photos: input %.2f dB, camera %.2f dB, below their input "
            "%d\n", counted, sum[0] / counted, sum[1] / counted,
            below_input);
  else if (counted)
    {
      printf ("# mean of %d photos: input %.2f dB, camera %.2f dB (SSIM "
              "%.4f), --sigma auto %.2f dB, best single sigma %.2f dB (SSIM "
              "%.4f)\n", counted, sum[0] / counted, sum[1] / counted,
              sum[2] / counted, sum[3] / counted, sum[4] / counted,
              sum[5] / counted);
      printf ("# camera - best sigma %+.2f dB, camera - input %+.2f dB, "
              "photos below their input: %d\n",
              (sum[1] - sum[4]) / counted, (sum[1] - sum[0]) / counted,
              below_input);
      printf ("# time: camera %.2f s (estimate %.3f s), white %.2f s: "
              "ratio %.2f\n", sum[6] / counted, sum[8] / counted,
              sum[7] / counted, sum[7] > 0.0 ? sum[6] / sum[7] : 0.0);
      printf ("# estimator within 15 %%: luma RMS %d, chroma RMS %d of %d; "
              "luma low share within 0.05: %d; mean white sigma %.1f "
              "(best %.1f)\n", (int) sum[9], (int) sum[10], counted,
              (int) sum[11], sum[12] / counted, sum[13] / counted);
    }
  for (int p = 0; p < n_photos; p++)
    free (names[p]);
  return 0;
}
