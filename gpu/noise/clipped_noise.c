/* Clipped noise: the bias it leaves in an average, and its removal.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * A noisy value stored in an integer format was clipped to 0..255 after
 * the noise was added: z = clip (u + n), n ~ N (0, sigma^2).  Near black
 * and white its mean is no longer u but
 *
 *   g (u) = E [z] = u (Phi (b) - Phi (a)) + sigma (phi (a) - phi (b))
 *                   + 255 (1 - Phi (b)),    a = -u / sigma,
 *                                           b = (255 - u) / sigma
 *
 * (g (0) = 0.40 sigma, g (255) = 255 - 0.40 sigma, g (u) = u to within
 * 1e-7 sigma from 5 sigma inside the range).  A weighted mean of such
 * values, which is what NL-means computes, estimates g (u) rather than
 * u: dark and bright areas come out lifted towards grey, by 20 levels in
 * black at sigma 50.  Mapping the result through the inverse of g
 * removes that bias (Foi, "Clipped noisy images: heteroskedastic
 * modeling and practical denoising", Signal Processing 2009).
 *
 * g^-1 is tabulated once per call on a uniform grid of results between
 * g (0) and g (255) and read with linear interpolation; results outside
 * that span map to 0 and 255.
 *
 * Clipping also squeezes the noise: z's variance is sigma^2 times
 *
 *   r (u) = [u^2 (Phi (b) - Phi (a)) + 2 u sigma (phi (a) - phi (b))
 *            + sigma^2 (Phi (b) - Phi (a) + a phi (a) - b phi (b))
 *            + 255^2 (1 - Phi (b)) - g (u)^2] / sigma^2
 *
 * (r = 0.34 at u = 0, 0.75 one sigma inside, 0.96 two sigmas inside), and
 * a share Phi (a) + 1 - Phi (b) of the values lands on 0 or 255.  The
 * noise estimate (noise_estimate.c) reads both at a patch's clipped mean
 * g (u), from a table of them on a grid of g as above.  */
#include "config.h"

#include "noise/noise.h"

#include <math.h>

#define UNCLIP_STEPS BM3D_UNCLIP_STEPS

typedef bm3d_unclip_table unclip_table;

/* The normal's terms at the two ends: a = -u / sigma, b = (255 - u) /
 * sigma, Phi and phi at each.  */
typedef struct
{
  double a, b, cdf_a, cdf_b, pdf_a, pdf_b;
} clip_terms;

static clip_terms
clip_terms_at (double u, double sigma)
{
  const double inv_sqrt2 = 0.70710678118654752440;
  const double inv_sqrt2pi = 0.39894228040143267794;
  clip_terms t;

  t.a = -u / sigma;
  t.b = (255.0 - u) / sigma;
  t.cdf_a = 0.5 * erfc (-t.a * inv_sqrt2);
  t.cdf_b = 0.5 * erfc (-t.b * inv_sqrt2);
  t.pdf_a = inv_sqrt2pi * exp (-0.5 * t.a * t.a);
  t.pdf_b = inv_sqrt2pi * exp (-0.5 * t.b * t.b);
  return t;
}

static double
clipped_mean (double u, double sigma)
{
  clip_terms t = clip_terms_at (u, sigma);

  return u * (t.cdf_b - t.cdf_a) + sigma * (t.pdf_a - t.pdf_b)
         + 255.0 * (1.0 - t.cdf_b);
}

/* r (u) above, the variance of z over sigma^2, and into `share` the
 * share of z at 0 or 255.  */
static double
clipped_variance_ratio (double u, double sigma, double *share)
{
  clip_terms t = clip_terms_at (u, sigma);
  double inside = t.cdf_b - t.cdf_a, mean = clipped_mean (u, sigma);
  double second = u * u * inside + 2.0 * u * sigma * (t.pdf_a - t.pdf_b)
                  + sigma * sigma * (inside + t.a * t.pdf_a - t.b * t.pdf_b)
                  + 255.0 * 255.0 * (1.0 - t.cdf_b);
  double r = (second - mean * mean) / (sigma * sigma);

  *share = t.cdf_a + (1.0 - t.cdf_b);
  return r > 0.0 ? r : 0.0;
}

/* g^-1 on `steps` + 1 even steps of the clipped mean between g (0)
 * and g (255), into `u`; returns g (0), g (255) into `lo`, `hi`.  g at
 * `steps` + 1 even steps of u, inverted by linear interpolation: g
 * rises strictly and bends little (at most 0.4 / sigma), so at 2048
 * steps this is within 0.002 levels of the exact inverse, at one
 * evaluation of g per step.  */
static void
clipped_mean_inverse (double sigma, int steps, double *g, double *u,
                      double *lo, double *hi)
{
  for (int j = 0; j <= steps; j++)
    g[j] = clipped_mean (255.0 * j / steps, sigma);
  *lo = g[0];
  *hi = g[steps];
  for (int k = 0, j = 0; k <= steps; k++)
    {
      double target = *lo + (*hi - *lo) * k / steps;

      while (j < steps - 1 && g[j + 1] < target)
        j++;
      u[k] = 255.0 * (j + (target - g[j]) / (g[j + 1] - g[j])) / steps;
    }
}

void
bm3d_clip_squeeze_init (bm3d_clip_squeeze_table *t, float sigma_f)
{
  const int steps = BM3D_CLIP_SQUEEZE_STEPS;
  const double sigma = sigma_f;
  double g[BM3D_CLIP_SQUEEZE_STEPS + 1], u[BM3D_CLIP_SQUEEZE_STEPS + 1];
  double lo, hi, share;

  /* r and the share at g^-1 of even steps of the clipped mean, on a
   * coarser grid than bm3d_unclip_table_init ()'s: a share is wanted to
   * a few thousandths, not a level to a few.  */
  clipped_mean_inverse (sigma, steps, g, u, &lo, &hi);
  t->lo = (float) lo;
  t->per_step = (float) (steps / (hi - lo));
  for (int k = 0; k <= steps; k++)
    {
      t->variance[k] = (float) clipped_variance_ratio (u[k], sigma, &share);
      t->clipped[k] = (float) share;
    }
}

float
bm3d_clip_squeeze (const bm3d_clip_squeeze_table *t, float mean,
                   float *clipped)
{
  float pos = (mean - t->lo) * t->per_step, f;
  int k;

  pos = pos > 0.0f ? pos : 0.0f;
  k = (int) pos;
  k = k < BM3D_CLIP_SQUEEZE_STEPS ? k : BM3D_CLIP_SQUEEZE_STEPS - 1;
  f = pos - (float) k;
  f = f < 1.0f ? f : 1.0f;
  *clipped = t->clipped[k] + f * (t->clipped[k + 1] - t->clipped[k]);
  return t->variance[k] + f * (t->variance[k + 1] - t->variance[k]);
}

void
bm3d_unclip_table_init (unclip_table *t, float sigma_f)
{
  const double sigma = sigma_f;
  double g[UNCLIP_STEPS + 1], u[UNCLIP_STEPS + 1], lo, hi;

  clipped_mean_inverse (sigma, UNCLIP_STEPS, g, u, &lo, &hi);
  t->lo = (float) lo;
  t->hi = (float) hi;
  t->per_step = (float) (UNCLIP_STEPS / (hi - lo));
  /* g (u) - u < 1e-7 sigma at 5 sigma from either end.  */
  if (10.0 * sigma < 255.0)
    {
      t->pass_lo = (float) (5.0 * sigma);
      t->pass_hi = (float) (255.0 - 5.0 * sigma);
    }
  else
    {
      t->pass_lo = 1.0f;
      t->pass_hi = 0.0f;      /* empty: every value goes through g^-1 */
    }
  for (int k = 0; k <= UNCLIP_STEPS; k++)
    t->u[k] = (float) u[k];
}

static float
unclip_value (const unclip_table *t, float v)
{
  float pos;
  int k;

  if (v >= t->pass_lo && v <= t->pass_hi)
    return v;
  if (!(v > t->lo))
    return 0.0f;
  if (!(v < t->hi))
    return 255.0f;
  pos = (v - t->lo) * t->per_step;
  k = (int) pos;
  if (k >= UNCLIP_STEPS)
    return t->u[UNCLIP_STEPS];
  return t->u[k] + (pos - (float) k) * (t->u[k + 1] - t->u[k]);
}

void
bm3d_unclip (bm3d_image *img, float sigma, int threads)
{
  const int colour = img->channels - (img->has_alpha ? 1 : 0);
  unclip_table table, *t = &table;

  if (!(sigma > 0.0f))
    return;
  bm3d_unclip_table_init (t, sigma);
#ifdef _OPENMP
#pragma omp parallel for num_threads (threads) schedule (static)
#endif
  for (int y = 0; y < img->height; y++)
    {
      float *row = img->data + (size_t) y * img->stride;

      for (int x = 0; x < img->width; x++)
        for (int c = 0; c < colour; c++)
          {
            float *v = row + (size_t) x * img->channels + c;

            *v = unclip_value (t, *v);
          }
    }
  (void) threads;
}

int
bm3d_image_within_range (const bm3d_image *img)
{
  const int colour = img->channels - (img->has_alpha ? 1 : 0);

  for (int y = 0; y < img->height; y++)
    {
      const float *row = img->data + (size_t) y * img->stride;

      for (int x = 0; x < img->width; x++)
        for (int c = 0; c < colour; c++)
          {
            float v = row[(size_t) x * img->channels + c];

            if (!(v >= 0.0f && v <= 255.0f))
              return 0;
          }
    }
  return 1;
}
