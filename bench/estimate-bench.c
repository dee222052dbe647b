/* Noise-estimation benchmark: for each image and noise level, the
 * estimate of bm3d_estimate_sigma, its error, its time, and the time of
 * a BM3D run on the same noisy image with the chosen backend.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 *   bm3d-estimate-bench [--sigmas 2,5,10,25,50] [--backend cpu|cuda]
 *                       [--threads N] [--repeat N] [--8bit] [--draws N]
 *                       [--size WxH] [--bm3d-sigmas 25] IMAGE...
 *
 * The noise is white Gaussian from the command's generator, in float and
 * unclipped, or clipped and rounded to 8 bits with --8bit.  With --draws
 * N each cell sums up N noise draws: mean, least..greatest, and how
 * many fall outside the requirement.  --size makes
 * a bigger picture from each image by mirrored tiling (texture keeps its
 * scale).  BM3D (both phases) runs once per image at each of
 * --bm3d-sigmas (default 25; "none" to skip), after one warm-up call, with
 * the backend given; the estimate always runs on the host (it reads a
 * bounded sample), best of --repeat calls.  Prints Markdown tables: per
 * image the estimate on the clean file, then per sigma the estimate and
 * its error (bold outside 10 %, or 0.5 below sigma 5); then the times.  */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bm3d.h"
#include "image_io.h"
#include "util.h"

#define MAX_LIST 16

/* The timing table, printed after the accuracy table.  */
static char timing_rows[1 << 16];

typedef struct
{
  double        sigmas[MAX_LIST];
  int           n_sigmas;
  double        bm3d_sigmas[MAX_LIST];
  int           n_bm3d_sigmas;
  bm3d_backend  backend;
  int           threads;
  int           repeat;
  int           eight_bit;
  int           draws;           /* noise draws per sigma               */
  int           width, height;   /* --size, 0 = as the file */
} options;

static int
parse_list (const char *s, double *out, int max)
{
  int n = 0;
  char *end;

  if (strcmp (s, "none") == 0)
    return 0;
  while (*s && n < max)
    {
      out[n++] = strtod (s, &end);
      if (end == s)
        return -1;
      s = *end == ',' ? end + 1 : end;
    }
  return n;
}

static int
mirror (int i, int n)
{
  int period = 2 * n;

  i %= period;
  return i < n ? i : period - 1 - i;
}

/* `src` tiled with mirroring to w x h, colour channels only.  */
static float *
tile_image (const Image *src, int w, int h, int channels)
{
  float *data = malloc ((size_t) w * h * channels * sizeof (float));

  if (!data)
    return NULL;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        const float *p = src->data
                         + ((size_t) mirror (y, src->height) * src->width
                            + mirror (x, src->width)) * src->channels;
        for (int c = 0; c < channels; c++)
          data[((size_t) y * w + x) * channels + c] = p[c];
      }
  return data;
}

static double
time_estimate (const bm3d_image *img, const options *opt, float *sigma)
{
  bm3d_params params;
  bm3d_report report;
  double best = INFINITY;

  bm3d_params_init (&params);
  params.backend = opt->backend;
  params.threads = opt->threads;
  for (int r = 0; r < opt->repeat; r++)
    {
      if (bm3d_estimate_sigma (img, &params, sigma, &report) != BM3D_OK)
        {
          fprintf (stderr, "bm3d-estimate-bench: %s\n", report.message);
          return -1.0;
        }
      if (report.seconds_total < best)
        best = report.seconds_total;
    }
  return best;
}

static double
time_bm3d (const bm3d_image *img, const options *opt, double sigma,
           const char **backend_used)
{
  bm3d_params params;
  bm3d_report report;
  bm3d_image out = *img;
  float *buf = malloc ((size_t) img->width * img->height * img->channels
                       * sizeof (float));
  double seconds = -1.0;

  if (!buf)
    return -1.0;
  out.data = buf;
  bm3d_params_init (&params);
  params.sigma = (float) sigma;
  params.backend = opt->backend;
  params.threads = opt->threads;
  /* One warm-up call: device start-up is not the work.  */
  if (bm3d_denoise (img, &out, &params, &report) == BM3D_OK
      && bm3d_denoise (img, &out, &params, &report) == BM3D_OK)
    {
      seconds = report.seconds_total;
      *backend_used = bm3d_backend_name (report.backend_used);
    }
  else
    fprintf (stderr, "bm3d-estimate-bench: BM3D: %s\n", report.message);
  free (buf);
  return seconds;
}

static int
bench_image (const char *path, const options *opt)
{
  char error[512];
  const char *name = strrchr (path, '/') ? strrchr (path, '/') + 1 : path;
  Image img;
  float *clean, *noisy;
  int w, h, channels;
  size_t n;

  if (image_read (path, &img, error, sizeof error) < 0)
    {
      fprintf (stderr, "bm3d-estimate-bench: %s\n", error);
      return 1;
    }
  channels = img.channels - img.has_alpha;
  w = opt->width ? opt->width : img.width;
  h = opt->height ? opt->height : img.height;
  clean = tile_image (&img, w, h, channels);
  n = (size_t) w * h * channels;
  noisy = malloc (n * sizeof (float));
  if (!clean || !noisy)
    {
      fprintf (stderr, "bm3d-estimate-bench: out of memory\n");
      return 1;
    }

  /* The clean file's own level first, then one cell per sigma.  */
  {
    bm3d_image view;
    float est;
    double slowest = 0.0;

    view.width = w;
    view.height = h;
    view.channels = channels;
    view.has_alpha = 0;
    view.stride = (size_t) w * channels;
    view.data = clean;
    if (time_estimate (&view, opt, &est) < 0.0)
      return 1;
    printf ("| %s | %dx%d %s | %.2f |", name, w, h,
            channels == 3 ? "RGB" : "gray", (double) est);
    view.data = noisy;
    for (int s = 0; s < opt->n_sigmas; s++)
      {
        double sigma = opt->sigmas[s], seconds;
        double tol = sigma < 5.0 ? 0.5 : 0.1 * sigma;
        double lo = INFINITY, hi = -INFINITY, sum = 0.0;
        int outside = 0;

        /* Draw 0 is the one the single-draw table shows.  */
        for (int d = 0; d < opt->draws; d++)
          {
            memcpy (noisy, clean, n * sizeof (float));
            add_gaussian_noise (noisy, n, sigma,
                                4000 + (uint64_t) (10 * sigma)
                                + 100000 * (uint64_t) d);
            if (opt->eight_bit)
              for (size_t i = 0; i < n; i++)
                noisy[i] = noisy[i] < 0.0f ? 0.0f
                           : noisy[i] > 255.0f ? 255.0f : rintf (noisy[i]);
            seconds = time_estimate (&view, opt, &est);
            if (seconds < 0.0)
              return 1;
            slowest = seconds > slowest ? seconds : slowest;
            lo = est < lo ? est : lo;
            hi = est > hi ? est : hi;
            sum += est;
            outside += fabs (est - sigma) > tol;
          }
        /* Outside the requirement (10 %, 0.5 below sigma 5): bold.  */
        if (opt->draws == 1)
          printf (outside ? " **%.2f (%+.1f %%)** |" : " %.2f (%+.1f %%) |",
                  lo, 100.0 * (lo - sigma) / sigma);
        else
          printf (outside ? " %.2f, %.2f..%.2f, **%d out** |"
                          : " %.2f, %.2f..%.2f |",
                  sum / opt->draws, lo, hi, outside);
      }
    printf (" %.2f |\n", slowest * 1e3);
    fflush (stdout);
  }

  for (int b = 0; b < opt->n_bm3d_sigmas; b++)
    {
      bm3d_image view;
      double sigma = opt->bm3d_sigmas[b], seconds;
      const char *used = "?";

      memcpy (noisy, clean, n * sizeof (float));
      add_gaussian_noise (noisy, n, sigma, 5000);
      view.width = w;
      view.height = h;
      view.channels = channels;
      view.has_alpha = 0;
      view.stride = (size_t) w * channels;
      view.data = noisy;
      seconds = time_bm3d (&view, opt, sigma, &used);
      {
        float est;
        double e = time_estimate (&view, opt, &est) * 1e3;

        size_t len = strlen (timing_rows);

        snprintf (timing_rows + len, sizeof timing_rows - len,
                  "| %s | %dx%d | %s | %g | %s | %.1f | %.2f | %.2f %% |\n",
                  name, w, h, channels == 3 ? "RGB" : "gray", sigma, used,
                  seconds * 1e3, e, 100.0 * e / (seconds * 1e3));
      }
    }

  free (noisy);
  free (clean);
  image_free (&img);
  return 0;
}

int
main (int argc, char **argv)
{
  options opt;
  int first = 0, status = 0;

  memset (&opt, 0, sizeof opt);
  opt.n_sigmas = parse_list ("2,5,10,25,50", opt.sigmas, MAX_LIST);
  opt.n_bm3d_sigmas = parse_list ("25", opt.bm3d_sigmas, MAX_LIST);
  opt.backend = BM3D_BACKEND_CPU;
  opt.repeat = 3;
  opt.draws = 1;

  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      const char *v = i + 1 < argc ? argv[i + 1] : NULL;

      if (strcmp (a, "--8bit") == 0)
        opt.eight_bit = 1;
      else if (a[0] == '-' && a[1] == '-' && !v)
        {
          fprintf (stderr, "bm3d-estimate-bench: %s needs a value\n", a);
          return 2;
        }
      else if (strcmp (a, "--sigmas") == 0 && i++)
        opt.n_sigmas = parse_list (v, opt.sigmas, MAX_LIST);
      else if (strcmp (a, "--bm3d-sigmas") == 0 && i++)
        opt.n_bm3d_sigmas = parse_list (v, opt.bm3d_sigmas, MAX_LIST);
      else if (strcmp (a, "--backend") == 0 && i++)
        opt.backend = (bm3d_backend) bm3d_backend_parse (v);
      else if (strcmp (a, "--threads") == 0 && i++)
        opt.threads = atoi (v);
      else if (strcmp (a, "--repeat") == 0 && i++)
        opt.repeat = atoi (v);
      else if (strcmp (a, "--draws") == 0 && i++)
        opt.draws = atoi (v);
      else if (strcmp (a, "--size") == 0 && i++)
        {
          if (sscanf (v, "%dx%d", &opt.width, &opt.height) != 2
              || opt.width < 8 || opt.height < 8)
            {
              fprintf (stderr, "bm3d-estimate-bench: bad size '%s'\n", v);
              return 2;
            }
        }
      else if (a[0] == '-')
        {
          fprintf (stderr, "bm3d-estimate-bench: unknown option %s\n", a);
          return 2;
        }
      else
        {
          first = i;
          break;
        }
    }
  if (!first || opt.n_sigmas < 0 || opt.n_bm3d_sigmas < 0
      || (int) opt.backend < 0 || opt.repeat < 1 || opt.draws < 1)
    {
      fprintf (stderr, "usage: bm3d-estimate-bench [--sigmas LIST] "
               "[--backend cpu|cuda] [--threads N] [--repeat N] [--8bit] "
               "[--draws N] [--size WxH] [--bm3d-sigmas LIST|none] "
               "IMAGE...\n");
      return 2;
    }

  printf ("Noise: %s, %d draw(s).  Estimate: best of %d, threads %d "
          "(0 = all).\n\n", opt.eight_bit ? "clipped and rounded to 8 bits"
                                          : "float, unclipped",
          opt.draws, opt.repeat, opt.threads);
  printf ("| image | size | clean file |");
  for (int s = 0; s < opt.n_sigmas; s++)
    printf (" sigma %g |", opt.sigmas[s]);
  printf (" slowest estimate ms |\n|---|---|---|");
  for (int s = 0; s <= opt.n_sigmas; s++)
    printf ("---|");
  printf ("\n");
  for (int i = first; i < argc; i++)
    status |= bench_image (argv[i], &opt);
  if (timing_rows[0])
    printf ("\n| image | size | | sigma | BM3D backend | BM3D ms | "
            "estimate ms | estimate / BM3D |\n"
            "|---|---|---|---|---|---|---|---|\n%s", timing_rows);
  return status;
}
