/* Tables shared by the CPU and CUDA backends (see bm3d_tables.h).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "bm3d_tables.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
bm3d_profile_for_sigma (float sigma, bm3d_profile *profile)
{
  /* Honzátko & Kruliš 2017 / Dabov et al. 2007: k=8, n=39, N=16/32, p=3,
   * tau=2500/400, lambda=2.7.  Above sigma 40 the matching thresholds are
   * raised (Lebrun, IPOL 2012: 5000 and 3500) and lambda becomes 2.8, as
   * in Dabov's high-noise profile: noise alone then pushes distances past
   * the low-noise thresholds and groups would shrink to one patch.  */
  int high = sigma > 40.0f;

  profile->hard.step = 3;
  profile->hard.search = 39;
  profile->hard.group_max = 16;
  profile->hard.tau_match = high ? 5000.0f : 2500.0f;
  profile->hard.lambda_3d = high ? 2.8f : 2.7f;
  profile->hard.transform_2d = BM3D_TRANSFORM_BIOR15;
  profile->hard.kaiser_beta = 2.0f;

  profile->wiener.step = 3;
  profile->wiener.search = 39;
  profile->wiener.group_max = 32;
  profile->wiener.tau_match = high ? 3500.0f : 400.0f;
  profile->wiener.lambda_3d = 0.0f;
  profile->wiener.transform_2d = BM3D_TRANSFORM_DCT;
  profile->wiener.kaiser_beta = 2.0f;
}

void
bm3d_nlm_profile_for_sigma (float sigma, int channels,
                            bm3d_nlm_profile *profile)
{
  /* Buades, Coll & Morel, IPOL 2011, table of parameters (patch side
   * 2f + 1, search window side 2r + 1, h; grayscale: 3x3, 5x5, 7x7, 9x9,
   * 11x11 patches up to sigma 15, 30, 45, 75, 100, windows 21x21 then
   * 35x35, h = 0.40, 0.40, 0.35, 0.35, 0.30 sigma; colour: 3x3, 5x5,
   * 7x7 up to sigma 25, 55, 100, windows 21x21, 35x35, 35x35, h = 0.55,
   * 0.40, 0.35 sigma): the patch grows and h shrinks (relative to
   * sigma) as the noise rises; colour patches hold three times the
   * values, so they stay smaller.  Above sigma 100 the last row holds.  */
  static const struct { float sigma_max; int f, r; float h; } gray[] =
  {
    { 15.0f, 1, 10, 0.40f }, { 30.0f, 2, 10, 0.40f },
    { 45.0f, 3, 17, 0.35f }, { 75.0f, 4, 17, 0.35f },
    { 1e9f,  5, 17, 0.30f }
  };
  static const struct { float sigma_max; int f, r; float h; } colour[] =
  {
    { 25.0f, 1, 10, 0.55f }, { 55.0f, 2, 17, 0.40f },
    { 1e9f,  3, 17, 0.35f }
  };
  int i = 0;

  memset (profile, 0, sizeof *profile);
  if (channels == 3)
    {
      while (sigma > colour[i].sigma_max)
        i++;
      profile->patch_radius = colour[i].f;
      profile->search_radius = colour[i].r;
      profile->h = colour[i].h * sigma;
    }
  else
    {
      while (sigma > gray[i].sigma_max)
        i++;
      profile->patch_radius = gray[i].f;
      profile->search_radius = gray[i].r;
      profile->h = gray[i].h * sigma;
    }
}

void
bm3d_nlm_weights_init (const bm3d_nlm_profile *profile, float sigma,
                       int channels, bm3d_nlm_weights *weights)
{
  const int f = profile->patch_radius;
  const double log2e = 1.4426950408889634;
  double h2 = (double) profile->h * profile->h, tap_sum = 0.0;

  memset (weights, 0, sizeof *weights);
  weights->radius = f;
  weights->gaussian = profile->gaussian;
  for (int k = -f; k <= f; k++)
    {
      /* Gaussian of deviation a = (f + 1) / 2: the patch's rim still
       * counts (exp (-0.5) for f = 1), its centre counts most.  */
      double a = (f + 1) / 2.0;
      double t = profile->gaussian ? exp (-(double) k * k / (2.0 * a * a))
                                   : 1.0;

      weights->taps[k + f] = (float) t;
      tap_sum += (float) t;
    }
  weights->slope = (float) (-log2e / (h2 * channels * tap_sum * tap_sum));
  weights->offset = (float) (2.0 * sigma * sigma * log2e / h2
                             + BM3D_NLM_WEIGHT_TOP);
  weights->inv_patches = (float) (1.0 / ((2.0 * f + 1.0) * (2.0 * f + 1.0)));
}

void
bm3d_isoline_profile_for_sigma (float sigma, bm3d_isoline_profile *profile)
{
  /* Perrot et al.'s values, chosen at sigma 25.  Both tests compare a
   * difference of means against the noise variance (a chi-square with
   * one degree of freedom when the means agree), so thresholds in
   * sigma^2 units mean the same false-alarm rate at every sigma and
   * need no table by sigma.  The turn limit (two of the 32 directions)
   * keeps an isoline from folding back on itself.  */
  (void) sigma;
  memset (profile, 0, sizeof *profile);
  profile->variant = 0;   /* BM3D_ISOLINE_HYBRID */
  profile->segment = 5;
  profile->length_max = 25;
  profile->t_max = 1.0f;
  profile->t2_max = 2.0f;
  profile->thicken = 0;
  profile->turn_max = 2;
}

int
bm3d_isoline_reach (const bm3d_isoline_profile *profile)
{
  int reach = profile->length_max + (profile->thicken ? 1 : 0);

  /* One more for the 3x3 guide the directions are found on.  */
  return (reach > BM3D_ISOLINE_WINDOW ? reach : BM3D_ISOLINE_WINDOW) + 1;
}

/* Pixel k (0 = the origin) of the digital line in direction theta: k
 * steps along the major axis, the minor coordinate rounded, so the
 * pixels of a segment are distinct and it advances exactly k along
 * its major axis.  */
static void
line_pixel (double theta, int k, int *dx, int *dy, int *major_x)
{
  double c = cos (theta), s = sin (theta);

  /* Exact at multiples of 45 degrees.  */
  if (fabs (c) < 1e-9)
    c = 0.0;
  if (fabs (s) < 1e-9)
    s = 0.0;
  if (fabs (fabs (c) - fabs (s)) < 1e-9)
    s = s > 0 ? fabs (c) : -fabs (c);
  if (fabs (c) >= fabs (s))
    {
      *dx = c > 0 ? k : -k;
      *dy = (int) lround (k * s / fabs (c));
      *major_x = 1;
    }
  else
    {
      *dy = s > 0 ? k : -k;
      *dx = (int) lround (k * c / fabs (s));
      *major_x = 0;
    }
}

/* Side of the line through the centre at o * 45 degrees that (x, y)
 * lies on: 0 or 1, or -1 when it lies within half a pixel of the
 * line.  */
static int
half_side (int o, int x, int y)
{
  double phi = M_PI * o / BM3D_ISOLINE_ORIENTATIONS;
  double s = -x * sin (phi) + y * cos (phi);

  if (fabs (s) < 0.5)
    return -1;
  return s > 0 ? 0 : 1;
}

void
bm3d_isoline_tables_init (const bm3d_isoline_profile *p, const float *sigma,
                          int planes, bm3d_isoline_tables *t)
{
  const int D = BM3D_ISOLINE_DIRECTIONS;
  const double var = (double) sigma[0] * sigma[0];
  int n;

  memset (t, 0, sizeof *t);
  t->segment = p->segment;
  t->segments_max = p->length_max / p->segment;
  t->across = p->thicken ? BM3D_ISOLINE_ACROSS : 1;
  t->turn_max = p->turn_max;
  t->hybrid = p->variant == 0;

  for (int d = 0; d < D; d++)
    for (int k = 1; k <= p->segment; k++)
      {
        int dx, dy, major_x;
        signed char (*px)[2] = t->pattern[d][k - 1];

        line_pixel (2.0 * M_PI * d / D, k, &dx, &dy, &major_x);
        for (int a = 0; a < BM3D_ISOLINE_ACROSS; a++)
          {
            /* Index 0 on the line, then one pixel to either side of it
             * across the major axis.  */
            int side = a == 0 ? 0 : a == 1 ? -1 : 1;

            px[a][0] = (signed char) (dx + (major_x ? 0 : side));
            px[a][1] = (signed char) (dy + (major_x ? side : 0));
          }
      }

  /* The radius-3 window in raster order, then the rest of radius 5.  */
  n = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int y = -BM3D_ISOLINE_WINDOW; y <= BM3D_ISOLINE_WINDOW; y++)
      for (int x = -BM3D_ISOLINE_WINDOW; x <= BM3D_ISOLINE_WINDOW; x++)
        {
          int inner = abs (x) <= 3 && abs (y) <= 3;

          if (inner == (pass == 0))
            {
              t->window_px[n][0] = (signed char) x;
              t->window_px[n][1] = (signed char) y;
              n++;
            }
        }
  t->region_count[0] = 49;
  t->region_count[1] = 121;

  /* Each half: its radius-2 pixels, then the rest of radius 3.  */
  for (int h = 0; h < BM3D_ISOLINE_HALVES; h++)
    {
      int o = h / 2, side = h % 2, count[2] = { 0, 0 };

      n = 0;
      for (int pass = 0; pass < 2; pass++)
        for (int y = -3; y <= 3; y++)
          for (int x = -3; x <= 3; x++)
            {
              int inner = abs (x) <= 2 && abs (y) <= 2;

              if (inner == (pass == 0) && half_side (o, x, y) == side
                  && n < 21)
                {
                  t->half_px[h][n][0] = (signed char) x;
                  t->half_px[h][n][1] = (signed char) y;
                  n++;
                  count[pass]++;
                }
            }
      t->region_count[2 + h] = count[0];
      t->region_count[2 + BM3D_ISOLINE_HALVES + h] = count[0] + count[1];
    }

  for (int m = 1; m < (int) (sizeof t->inv_count / sizeof t->inv_count[0]);
       m++)
    t->inv_count[m] = (float) (1.0 / m);
  t->glrt_limit = (float) (p->t_max * var);
  /* The first segment joins the pixel unless they differ by three
   * deviations of their difference: in noise alone 0.3 % are refused,
   * and at a low sigma texture stays texture.  */
  t->first_limit = (float) (9.0 * var);
  t->guide_noise = (float) (var / 9.0);
  t->edge_scale = (float) (1.0 / (4.0 * p->t2_max * var));
  /* Chrominance is smoother than luminance: it tolerates ten times the
   * luminance's mismatch (Kodak24: +0.06 dB over one time, and within
   * 0.02 dB of anything from 5 to 100 times).  */
  t->chroma_scale = t->edge_scale * 0.1f;
  /* The residual comes back where its power exceeds the noise's by 10 %
   * (gray) or at all (the luminance of colour, whose chrominance
   * already carries much of the structure), and on the chrominance
   * where it exceeds twice the noise's: measured best on Set12 and
   * Kodak24.  */
  for (int c = 0; c < planes && c < BM3D_MAX_CHANNELS; c++)
    t->residual_floor[c] = (float) ((c > 0 ? 2.0 : planes == 3 ? 1.0 : 1.1)
                                    * sigma[c] * sigma[c]);
}

static void
dct_matrix (double m[BM3D_PATCH][BM3D_PATCH])
{
  const int n = BM3D_PATCH;

  for (int u = 0; u < n; u++)
    for (int x = 0; x < n; x++)
      m[u][x] = (u == 0 ? sqrt (1.0 / n) : sqrt (2.0 / n))
                * cos (M_PI * (2 * x + 1) * u / (2.0 * n));
}

/* Biorthogonal 1.5 analysis filters.  The low pass is symmetric about
 * 4.5 (taps 3/256, 22/256 and 128/256 times sqrt 2), the high pass is the
 * Haar difference.  */
static const double bior15_low[10] = {
   3.0 / 256, -3.0 / 256, -22.0 / 256, 22.0 / 256, 128.0 / 256,
   128.0 / 256, 22.0 / 256, -22.0 / 256, -3.0 / 256, 3.0 / 256
};

/* One level of the periodic analysis of x[0..n) into n/2 approximation
 * and n/2 detail values.  */
static void
bior15_level (const double *x, int n, double *approx, double *detail)
{
  for (int i = 0; i < n / 2; i++)
    {
      double a = 0.0;

      for (int j = 0; j < 10; j++)
        a += bior15_low[j] * M_SQRT2 * x[((2 * i + j - 4) % n + n) % n];
      approx[i] = a;
      detail[i] = (x[2 * i + 1] - x[2 * i]) * M_SQRT1_2;
    }
}

/* Full three-level decomposition: [a3 d3 d2 d2 d1 d1 d1 d1].  */
static void
bior15_matrix (double m[BM3D_PATCH][BM3D_PATCH])
{
  for (int col = 0; col < BM3D_PATCH; col++)
    {
      double x[BM3D_PATCH] = { 0 }, out[BM3D_PATCH], tmp[BM3D_PATCH];
      int n = BM3D_PATCH;

      x[col] = 1.0;
      while (n > 1)
        {
          bior15_level (x, n, tmp, out + n / 2);
          memcpy (x, tmp, sizeof (double) * (n / 2));
          n /= 2;
        }
      out[0] = x[0];
      for (int row = 0; row < BM3D_PATCH; row++)
        m[row][col] = out[row];
    }
}

/* Gauss-Jordan inverse with partial pivoting (8x8, well conditioned).  */
static void
invert (double a[BM3D_PATCH][BM3D_PATCH], double inv[BM3D_PATCH][BM3D_PATCH])
{
  const int n = BM3D_PATCH;
  double w[BM3D_PATCH][2 * BM3D_PATCH];

  for (int i = 0; i < n; i++)
    for (int j = 0; j < 2 * n; j++)
      w[i][j] = j < n ? a[i][j] : (j - n == i);

  for (int c = 0; c < n; c++)
    {
      int p = c;
      for (int r = c + 1; r < n; r++)
        if (fabs (w[r][c]) > fabs (w[p][c]))
          p = r;
      for (int j = 0; j < 2 * n; j++)
        {
          double t = w[c][j];
          w[c][j] = w[p][j];
          w[p][j] = t;
        }
      double d = w[c][c];
      for (int j = 0; j < 2 * n; j++)
        w[c][j] /= d;
      for (int r = 0; r < n; r++)
        if (r != c)
          {
            double f = w[r][c];
            for (int j = 0; j < 2 * n; j++)
              w[r][j] -= f * w[c][j];
          }
    }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      inv[i][j] = w[i][j + n];
}

void
bm3d_transform_2d_init (bm3d_transform_kind kind, bm3d_transform_2d *t)
{
  double f[BM3D_PATCH][BM3D_PATCH], g[BM3D_PATCH][BM3D_PATCH];

  if (kind == BM3D_TRANSFORM_BIOR15)
    bior15_matrix (f);
  else
    dct_matrix (f);

  /* Unit-norm rows make every coefficient's noise deviation equal sigma,
   * so one threshold fits all of them (biorthogonal rows are not).  */
  for (int r = 0; r < BM3D_PATCH; r++)
    {
      double s = 0.0;
      for (int c = 0; c < BM3D_PATCH; c++)
        s += f[r][c] * f[r][c];
      s = sqrt (s);
      for (int c = 0; c < BM3D_PATCH; c++)
        f[r][c] /= s;
    }
  invert (f, g);
  for (int r = 0; r < BM3D_PATCH; r++)
    for (int c = 0; c < BM3D_PATCH; c++)
      {
        t->fwd[r][c] = (float) f[r][c];
        t->inv[r][c] = (float) g[r][c];
      }
}

void
bm3d_wht (float *v, int n, int stride)
{
  for (int h = 1; h < n; h *= 2)
    for (int i = 0; i < n; i += 2 * h)
      for (int j = i; j < i + h; j++)
        {
          float a = v[j * stride], b = v[(j + h) * stride];
          v[j * stride] = a + b;
          v[(j + h) * stride] = a - b;
        }
  if (n > 1)
    {
      float s = 1.0f / sqrtf ((float) n);
      for (int i = 0; i < n; i++)
        v[i * stride] *= s;
    }
}

void
bm3d_haar (float *v, int n, int stride)
{
  const float r = 0.70710678118654752f;
  float tmp[BM3D_GROUP_MAX];

  for (int len = n; len > 1; len /= 2)
    {
      for (int i = 0; i < len / 2; i++)
        {
          float a = v[2 * i * stride], b = v[(2 * i + 1) * stride];

          tmp[i] = (a + b) * r;
          tmp[len / 2 + i] = (a - b) * r;
        }
      for (int i = 0; i < len; i++)
        v[i * stride] = tmp[i];
    }
}

void
bm3d_haar_inverse (float *v, int n, int stride)
{
  const float r = 0.70710678118654752f;
  float tmp[BM3D_GROUP_MAX];

  for (int len = 2; len <= n; len *= 2)
    {
      for (int i = 0; i < len / 2; i++)
        {
          float a = v[i * stride], d = v[(len / 2 + i) * stride];

          tmp[2 * i] = (a + d) * r;
          tmp[2 * i + 1] = (a - d) * r;
        }
      for (int i = 0; i < len; i++)
        v[i * stride] = tmp[i];
    }
}

/* Modified Bessel function of the first kind, order 0 (power series).  */
static double
bessel_i0 (double x)
{
  double sum = 1.0, term = 1.0;

  for (int k = 1; k < 50; k++)
    {
      term *= (x / (2.0 * k)) * (x / (2.0 * k));
      sum += term;
      if (term < 1e-17 * sum)
        break;
    }
  return sum;
}

void
bm3d_kaiser_1d (float beta, double window[BM3D_PATCH])
{
  for (int i = 0; i < BM3D_PATCH; i++)
    {
      double r = 2.0 * i / (BM3D_PATCH - 1) - 1.0;
      window[i] = bessel_i0 (beta * sqrt (1.0 - r * r)) / bessel_i0 (beta);
    }
}

void
bm3d_kaiser_window (float beta, float window[BM3D_PATCH][BM3D_PATCH])
{
  double w[BM3D_PATCH];

  bm3d_kaiser_1d (beta, w);
  for (int i = 0; i < BM3D_PATCH; i++)
    for (int j = 0; j < BM3D_PATCH; j++)
      window[i][j] = (float) (w[i] * w[j]);
}

/* Opponent colour space (Dabov et al.'s CBM3D default).  Its luminance
 * row is the plain mean, the row with the smallest noise gain any
 * luminance can have (1/sqrt 3): block matching sees the least noise.  */
const float bm3d_colour_fwd[3][3] = {
  { 1.0f / 3.0f, 1.0f / 3.0f, 1.0f / 3.0f },
  { 0.5f, 0.0f, -0.5f },
  { 0.25f, -0.5f, 0.25f }
};

const float bm3d_colour_inv[3][3] = {
  { 1.0f, 1.0f, 2.0f / 3.0f },
  { 1.0f, 0.0f, -4.0f / 3.0f },
  { 1.0f, -1.0f, 2.0f / 3.0f }
};

const float bm3d_colour_noise_gain[3] = {
  0.57735027f,   /* sqrt (1/3)  */
  0.70710678f,   /* sqrt (1/2)  */
  0.61237244f    /* sqrt (3/8)  */
};
