/* The noise level function of a photograph, estimated blind, and the
 * variance-stabilising transform built from it (noise_vst.h).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The estimate, per colour channel:
 *
 *  - blocks of 8x8 pixels on a grid (strided on large images, so the
 *    cost is bounded).  Pixels at 0 or 255 are clipped: they are left
 *    out, not the block.  The rest of the block is fitted by a plane
 *    a + b x + c y and its residual variance is the block's.  What is
 *    left of noise clipped at one end is a truncated normal: its
 *    variance is that of the noise times 1 + a lambda - lambda^2 and its
 *    mean is shifted by sigma lambda (lambda = phi (a) / (1 - p), p the
 *    share clipped, a its normal quantile), so both are corrected for the
 *    share the block lost (bm3d_truncated_normal).
 *  - each block goes to the brightness bin of its (corrected) mean; per
 *    bin the tenth of the blocks with the least variance measures the
 *    noise (texture only adds variance).  The ratio of that quantile to
 *    the noise's variance depends on the noise's correlation, which is
 *    the same at every brightness: the level function's shape is right
 *    even where its scale is not, and only the shape is kept (the level
 *    is measured after the transform, by the noise profile).
 *  - the spread of a bin's variances tells noise from texture and from
 *    noise a camera cleaned (NLF_SPREAD_MAX): a channel whose bins
 *    spread more is not measured.
 *  - noise changes smoothly with brightness; texture that is left in a
 *    bin's quantile does not: the function is a parabola in brightness
 *    fitted to the bins' logarithms (nlf_shape), used only when it
 *    changes by NLF_RANGE_MIN to NLF_RANGE_MAX.  */
#include "config.h"

#include "noise/noise.h"
#include "noise/noise_vst.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NLF_BLOCK      8
#define NLF_AREA       (NLF_BLOCK * NLF_BLOCK)
#define NLF_VALID_MIN  (NLF_AREA / 2)   /* fewer unclipped: left out    */
#define NLF_BLOCKS_MAX 32768            /* most blocks read per channel */
#define NLF_QUANTILE   0.1
#define NLF_BIN_MIN    8                /* blocks a bin needs           */
/* A level function that changes less than this over the brightness
 * range measured is not told from a flat one: white noise on the test
 * photographs reads 1.1 to 1.2 from texture and the quantiles' own
 * noise; the synthetic phone set 1.5 to 2.6.  */
#define NLF_RANGE_MIN  1.3
/* Nor one that changes by more than this: the synthetic phone set's
 * noise, from black to white through the tone curve, changes by at
 * most 2.6; a parabola fitted to few bins of a textured photograph can
 * change by a hundred.  */
#define NLF_RANGE_MAX  4.0
#define NLF_FLOOR      0.05             /* variance below: no noise     */
/* Noise gives the blocks of a bin variances of a narrow spread: their
 * quarter quantile over their twentieth is 1.4 to 1.7 on the synthetic
 * phone set; a camera's noise reduction and JPEG (the PolyU photos: 2
 * to 80) and texture spread them far more, and a level function read
 * from such bins follows the texture, not the noise.  Above this mean
 * spread the function is not used.  */
#define NLF_SPREAD_MAX 2.0

static double
normal_cdf (double x)
{
  return 0.5 * erfc (-x * 0.70710678118654752440);
}

/* For noise of which a share p (0 <= p < 1) was clipped at the low end:
 * the ratio of the rest's variance to the noise's and the rest's mean
 * shift in noise deviations.  (At the high end the shift changes
 * sign.)  */
void
bm3d_truncated_normal (double p, double *ratio, double *shift)
{
  double lo = -9.0, hi = 9.0, a, lambda;

  if (p <= 0.0)
    {
      *ratio = 1.0;
      *shift = 0.0;
      return;
    }
  for (int i = 0; i < 60; i++)
    {
      a = 0.5 * (lo + hi);
      if (normal_cdf (a) < p)
        lo = a;
      else
        hi = a;
    }
  a = 0.5 * (lo + hi);
  lambda = 0.39894228040143267794 * exp (-0.5 * a * a) / (1.0 - p);
  *ratio = 1.0 + a * lambda - lambda * lambda;
  if (*ratio < 0.05)
    *ratio = 0.05;
  *shift = lambda;
}

/* Solve the 3x3 system m x = r (Cramer's rule); 0 when singular.  */
int
bm3d_solve3 (double m[3][3], const double *r, double *x)
{
  double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
               - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
               + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);

  if (fabs (det) < 1e-12)
    return 0;
  for (int k = 0; k < 3; k++)
    {
      double t[3][3];

      memcpy (t, m, sizeof t);
      for (int i = 0; i < 3; i++)
        t[i][k] = r[i];
      x[k] = (t[0][0] * (t[1][1] * t[2][2] - t[1][2] * t[2][1])
              - t[0][1] * (t[1][0] * t[2][2] - t[1][2] * t[2][0])
              + t[0][2] * (t[1][0] * t[2][1] - t[1][1] * t[2][0])) / det;
    }
  return 1;
}

/* The sums one block's plane fit needs, for one channel.  */
typedef struct
{
  double s, sx, sy, sxx, syy, sxy, sv, sxv, syv, svv;
  int    n, low, high;
} nlf_sums;

/* One channel's block from its sums: its noise variance and mean
 * brightness, corrected for clipping.  Returns 0 when too much of it
 * is clipped.  `trunc` holds bm3d_truncated_normal for p = k / NLF_AREA.  */
static int
nlf_block_fit (const nlf_sums *a, const double (*trunc)[2], double *var,
               double *mean)
{
  double m[3][3], rhs[3], coef[3], ssr;
  int clipped;

  if (a->n < NLF_VALID_MIN || (a->low && a->high))
    return 0;
  m[0][0] = a->s, m[0][1] = a->sx, m[0][2] = a->sy;
  m[1][0] = a->sx, m[1][1] = a->sxx, m[1][2] = a->sxy;
  m[2][0] = a->sy, m[2][1] = a->sxy, m[2][2] = a->syy;
  rhs[0] = a->sv, rhs[1] = a->sxv, rhs[2] = a->syv;
  if (!bm3d_solve3 (m, rhs, coef))
    return 0;
  /* The residual's sum of squares: sum v^2 - coef . rhs.  */
  ssr = a->svv - (coef[0] * rhs[0] + coef[1] * rhs[1] + coef[2] * rhs[2]);
  *var = (ssr > 0.0 ? ssr : 0.0) / (a->n - 3);
  *mean = a->sv / a->n;
  clipped = a->low + a->high;
  if (clipped)
    {
      *var /= trunc[clipped][0];
      *mean += (a->low ? -1.0 : 1.0) * sqrt (*var) * trunc[clipped][1];
    }
  return 1;
}

/* The block at (x0, y0) of each of the `colour` channels: its noise
 * variance and mean brightness into var[c * slots] and mean[c * slots],
 * whether it counted into ok[c * slots] (nlf_block_fit ()).  The
 * channels are summed in one pass over the block's rows, which a
 * large photograph's blocks read from memory once, not once per
 * channel; each channel's sums keep their order.  */
static inline void
nlf_block (const bm3d_image *in, int colour, int x0, int y0,
           const double (*trunc)[2], long slots, double *var, double *mean,
           unsigned char *ok)
{
  nlf_sums a[BM3D_NOISE_PLANES];

  memset (a, 0, sizeof a);
  for (int y = 0; y < NLF_BLOCK; y++)
    {
      const float *row = in->data + (size_t) (y0 + y) * in->stride
                         + (size_t) x0 * in->channels;

      for (int x = 0; x < NLF_BLOCK; x++, row += in->channels)
        for (int c = 0; c < colour; c++)
          {
            nlf_sums *t = &a[c];
            double v = row[c];

            /* Clipped values pile up on the ends exactly; float noise
             * beyond them was never clipped.  */
            if (v == 0.0)
              t->low++;
            else if (v == 255.0)
              t->high++;
            else
              {
                t->n++;
                t->s += 1, t->sx += x, t->sy += y, t->sxx += x * x;
                t->syy += y * y, t->sxy += x * y, t->sv += v;
                t->sxv += x * v, t->syv += y * v, t->svv += v * v;
              }
          }
    }
  for (int c = 0; c < colour; c++)
    ok[c * slots] = (unsigned char) nlf_block_fit (&a[c], trunc,
                                                   &var[c * slots],
                                                   &mean[c * slots]);
}

/* The level function's bin of a block of that mean.  */
static int
nlf_bin (double mean)
{
  int at = (int) (mean * BM3D_NLF_BINS / 256.0);

  return at < 0 ? 0 : at >= BM3D_NLF_BINS ? BM3D_NLF_BINS - 1 : at;
}

/* The level function from the measured bins (level > 0, `count`
 * blocks each): the logarithm of the level fitted by a parabola in
 * brightness, weighted by the blocks, held flat beyond the first and
 * last measured bins, scaled to a geometric mean of 1.  A smooth curve
 * of three numbers follows what sensor noise through a tone curve
 * does (it grows from black with the shot noise and falls again where
 * the curve flattens the highlights) and averages out a bin's texture
 * and its quantile's own noise.  Returns 0 when fewer than three bins
 * were measured or the curve changes by less than NLF_RANGE_MIN or
 * more than NLF_RANGE_MAX over them: the noise is then taken as the
 * same at every brightness.  */
static int
nlf_shape (const double *level, const int *count, float *nlf)
{
  double m[3][3] = { { 0 } }, r[3] = { 0 }, coef[3], logs = 0.0;
  double lo = 0.0, hi = 0.0, fit[BM3D_NLF_BINS];
  int first = -1, last = -1, used = 0;

  for (int i = 0; i < BM3D_NLF_BINS; i++)
    if (level[i] > 0.0)
      {
        double b[3] = { 1.0, i, (double) i * i }, y = log (level[i]);

        for (int p = 0; p < 3; p++)
          {
            r[p] += count[i] * b[p] * y;
            for (int q = 0; q < 3; q++)
              m[p][q] += count[i] * b[p] * b[q];
          }
        if (first < 0)
          first = i;
        last = i;
        used++;
      }
  if (used < 3 || !bm3d_solve3 (m, r, coef))
    return 0;
  for (int i = 0; i < BM3D_NLF_BINS; i++)
    {
      int at = i < first ? first : i > last ? last : i;

      fit[i] = coef[0] + coef[1] * at + coef[2] * at * at;
      lo = i == 0 || fit[i] < lo ? fit[i] : lo;
      hi = i == 0 || fit[i] > hi ? fit[i] : hi;
      logs += fit[i];
    }
  if (hi - lo < log (NLF_RANGE_MIN) || hi - lo > log (NLF_RANGE_MAX))
    return 0;
  logs /= BM3D_NLF_BINS;
  for (int i = 0; i < BM3D_NLF_BINS; i++)
    nlf[i] = (float) exp (fit[i] - logs);
  return 1;
}

/* Every sampled block (every `step`-th of the grid both ways) of every
 * colour channel measured, side by side: slot k = row * across + column
 * of channel c holds its variance and mean, ok[] whether it counted.
 * The slots keep the grid's order, so what follows reads the blocks in
 * the same order whatever the thread count.  */
static void
nlf_blocks (const bm3d_image *in, int colour, int step, int threads,
            const double (*trunc)[2], double *var, double *mean,
            unsigned char *ok)
{
  int across = (in->width / NLF_BLOCK + step - 1) / step;
  int down = (in->height / NLF_BLOCK + step - 1) / step;
  long slots = (long) across * down;

#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads)
#endif
  for (long at = 0; at < slots; at++)
    {
      int x0 = (int) (at % across) * step * NLF_BLOCK;
      int y0 = (int) (at / across) * step * NLF_BLOCK;

      /* The channel count a constant in each copy of the loop.  */
      if (colour == 3)
        nlf_block (in, 3, x0, y0, trunc, slots, var + at, mean + at, ok + at);
      else
        nlf_block (in, colour, x0, y0, trunc, slots, var + at, mean + at,
                   ok + at);
    }
  (void) threads;
}

/* The k-th smallest of a[0..n) into a[k], the smaller values before
 * it and the larger after (a quickselect): a bin's quantile without
 * sorting the bin.  A value is the k-th order statistic whatever order
 * the partitions leave the rest in, so the levels are those a sort
 * gives (the variances are never NaN: nlf_block_fit ()).  */
static void
select_kth (double *a, int n, int k)
{
  int lo = 0, hi = n - 1;

  while (lo < hi)
    {
      double x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi];
      double pivot = x < y ? (y < z ? y : x < z ? z : x)
                           : (x < z ? x : y < z ? z : y);
      int i = lo, j = hi;

      while (i <= j)
        {
          while (a[i] < pivot)
            i++;
          while (a[j] > pivot)
            j--;
          if (i <= j)
            {
              double t = a[i];

              a[i++] = a[j];
              a[j--] = t;
            }
        }
      if (k <= j)
        hi = j;
      else if (k >= i)
        lo = i;
      else
        return;
    }
}

/* The bin's quantiles nlf_levels () reads, each in its place: the
 * quarter first, then the tenth and the twentieth among the values
 * below it.  */
static void
select_quantiles (double *bin, int m)
{
  int quarter = (int) ((m - 1) * 0.25);
  int tenth = (int) ((m - 1) * NLF_QUANTILE);
  int twentieth = (int) ((m - 1) * 0.05);

  select_kth (bin, m, quarter);
  select_kth (bin, quarter + 1, tenth);
  select_kth (bin, tenth + 1, twentieth);
}

/* One channel's level per bin (0: unmeasured) and blocks per bin, from
 * its `n` blocks' variances and means; `binned` holds n values.  The
 * spread of its bins' lower quantiles, which tells noise (the same in
 * every flat block) from texture, goes to `*spread` weighted by
 * `*weight` blocks.  */
static void
nlf_levels (const double *var, const double *mean, int n, double *binned,
            int threads, double *level, int *count, double *spread,
            int *weight)
{
  /* The variances gathered bin by bin (a counting sort that keeps their
   * order), then each bin's quantiles selected.  */
  int first[BM3D_NLF_BINS + 1] = { 0 }, fill[BM3D_NLF_BINS];

  for (int k = 0; k < n; k++)
    first[nlf_bin (mean[k]) + 1]++;
  for (int b = 0; b < BM3D_NLF_BINS; b++)
    {
      first[b + 1] += first[b];
      fill[b] = first[b];
    }
  for (int k = 0; k < n; k++)
    binned[fill[nlf_bin (mean[k])]++] = var[k];
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
#endif
  for (int b = 0; b < BM3D_NLF_BINS; b++)
    if (first[b + 1] - first[b] >= NLF_BIN_MIN)
      select_quantiles (binned + first[b], first[b + 1] - first[b]);
  (void) threads;
  *spread = 0.0;
  *weight = 0;
  for (int b = 0; b < BM3D_NLF_BINS; b++)
    {
      const double *bin = binned + first[b];
      int m = first[b + 1] - first[b];
      double q;

      level[b] = 0.0;
      count[b] = 0;
      if (m < NLF_BIN_MIN)
        continue;
      q = bin[(int) ((m - 1) * NLF_QUANTILE)];
      level[b] = q > NLF_FLOOR ? sqrt (q) : 0.0;
      count[b] = m;
      if (level[b] > 0.0)
        {
          *spread += m * log (bin[(int) ((m - 1) * 0.25)]
                              / bin[(int) ((m - 1) * 0.05)]);
          *weight += m;
        }
    }
}

/* The noise level function of `in`'s colour channels into `nlf`
 * (bm3d.h), each channel's geometric mean 1.  Returns the number of
 * channels measured; a channel with nothing to measure (all clipped,
 * or flat) gets a flat function.  The blocks are measured on `threads`
 * threads, the result the same for any count.  */
int
bm3d_nlf_estimate (const bm3d_image *in, int threads,
                   float nlf[BM3D_NOISE_PLANES][BM3D_NLF_BINS])
{
  int colour = in->channels - (in->has_alpha ? 1 : 0);
  int gx = in->width / NLF_BLOCK, gy = in->height / NLF_BLOCK;
  int step = 1, measured = 0;
  long slots;
  double trunc[NLF_AREA + 1][2];
  double *var, *mean, *binned;
  unsigned char *ok;

  while ((long) ((gx + step - 1) / step) * ((gy + step - 1) / step)
         > NLF_BLOCKS_MAX)
    step++;
  slots = (long) ((gx + step - 1) / step) * ((gy + step - 1) / step);
  for (int k = 0; k <= NLF_AREA; k++)
    bm3d_truncated_normal ((double) k / NLF_AREA, &trunc[k][0], &trunc[k][1]);
  var = malloc ((sizeof (double) * 2 + 1) * colour * slots
                + sizeof (double) * slots);
  if (!var)
    return -1;
  mean = var + colour * slots;
  binned = mean + colour * slots;
  ok = (unsigned char *) (binned + slots);
  nlf_blocks (in, colour, step, threads, (const double (*)[2]) trunc, var,
              mean, ok);
  for (int c = 0; c < colour; c++)
    {
      double level[BM3D_NLF_BINS], spread;
      int n = 0, weight, count[BM3D_NLF_BINS];
      double *cv = var + c * slots, *cm = mean + c * slots;

      /* The counted blocks first, in the grid's order.  */
      for (long k = 0; k < slots; k++)
        if (ok[c * slots + k])
          {
            cv[n] = cv[k];
            cm[n] = cm[k];
            n++;
          }
      nlf_levels (cv, cm, n, binned, threads, level, count, &spread,
                  &weight);
      if (weight && exp (spread / weight) <= NLF_SPREAD_MAX
          && nlf_shape (level, count, nlf[c]))
        measured++;
      else
        for (int b = 0; b < BM3D_NLF_BINS; b++)
          nlf[c][b] = 1.0f;
    }
  for (int c = colour; c < BM3D_NOISE_PLANES; c++)
    memset (nlf[c], 0, sizeof nlf[c]);
  free (var);
  /* One transform for all channels or none: the planes mix them.  */
  return measured == colour ? measured : 0;
}

/* Does the profile carry a level function?  */
int
bm3d_nlf_present (const bm3d_noise_profile *profile)
{
  return profile->nlf[0][0] > 0.0f;
}

/* The relative noise deviation at brightness x: linear between the
 * bins' centres, flat beyond the end ones.  */
static double
nlf_at (const float *nlf, double x)
{
  double p = x * BM3D_NLF_BINS / 256.0 - 0.5;
  int i;

  if (p <= 0.0)
    return nlf[0];
  if (p >= BM3D_NLF_BINS - 1)
    return nlf[BM3D_NLF_BINS - 1];
  i = (int) p;
  return nlf[i] + (nlf[i + 1] - nlf[i]) * (p - i);
}

/* The forward table: f (x) = 255 F (x) / F (255), F the integral of
 * 1 / nlf from 0 (the trapezoid rule on the table's steps).  */
static void
vst_forward (const float *nlf, float *fwd)
{
  const double step = 255.0 / BM3D_VST_STEPS;
  double sum = 0.0, prev = 1.0 / nlf_at (nlf, 0.0);
  double f[BM3D_VST_STEPS + 1];

  f[0] = 0.0;
  for (int i = 1; i <= BM3D_VST_STEPS; i++)
    {
      double cur = 1.0 / nlf_at (nlf, i * step);

      sum += 0.5 * (prev + cur) * step;
      f[i] = sum;
      prev = cur;
    }
  for (int i = 0; i <= BM3D_VST_STEPS; i++)
    fwd[i] = (float) (255.0 * f[i] / sum);
  fwd[BM3D_VST_STEPS] = 255.0f;
}

/* Gauss-Hermite would do; even steps of the normal over +-4.5 deviations
 * are as exact here and simpler.  */
#define VST_NODES 37

/* The inverse table: h (u) = E [f (z)], z the noisy value of u (noise
 * of deviation sigma in the stabilised domain, so sigma / f' (u) in
 * 0..255, clipped to 0..255 when `clipped`), inverted on even steps of
 * its value.  h is what the filter estimates: mapping through its
 * inverse removes the bias the transform's curvature and the clipping
 * put on a mean.  */
static void
vst_inverse (const float *fwd, double sigma, int clipped, float *inv)
{
  const double step = 255.0 / BM3D_VST_STEPS;
  double h[BM3D_VST_STEPS + 1], w[VST_NODES], wsum = 0.0;

  for (int k = 0; k < VST_NODES; k++)
    {
      double t = -4.5 + 9.0 * k / (VST_NODES - 1);

      w[k] = exp (-0.5 * t * t);
      wsum += w[k];
    }
  for (int i = 0; i <= BM3D_VST_STEPS; i++)
    {
      double u = i * step;
      int a = i > 0 ? i - 1 : 0, b = i < BM3D_VST_STEPS ? i + 1 : i;
      double slope = (fwd[b] - fwd[a]) / ((b - a) * step);
      double s = sigma / (slope > 1e-6 ? slope : 1e-6), e = 0.0;

      for (int k = 0; k < VST_NODES; k++)
        {
          double z = u + s * (-4.5 + 9.0 * k / (VST_NODES - 1));

          if (clipped)
            z = z < 0.0 ? 0.0 : z > 255.0 ? 255.0 : z;
          e += w[k] * bm3d_vst_lookup (fwd, (float) z);
        }
      h[i] = e / wsum;
      if (i > 0 && h[i] < h[i - 1])
        h[i] = h[i - 1];
    }
  /* Invert on even steps of y: the u where h crosses y.  */
  for (int j = 0, i = 0; j <= BM3D_VST_STEPS; j++)
    {
      double y = j * step;

      while (i < BM3D_VST_STEPS && h[i + 1] < y)
        i++;
      if (y <= h[0])
        inv[j] = 0.0f;
      else if (i >= BM3D_VST_STEPS)
        inv[j] = 255.0f;
      else
        {
          double d = h[i + 1] - h[i];

          inv[j] = (float) ((i + (d > 0.0 ? (y - h[i]) / d : 0.0)) * step);
        }
    }
}

void
bm3d_vst_forward (const bm3d_noise_profile *profile, bm3d_vst_table *fwd)
{
  for (int c = 0; c < profile->channels; c++)
    vst_forward (profile->nlf[c], fwd[c]);
}

/* The tables of `profile`'s level function; `sigma` the noise deviation
 * the filter assumes in the stabilised domain (RGB terms).  */
void
bm3d_vst_init (bm3d_vst *vst, const bm3d_noise_profile *profile,
               float sigma, int clipped)
{
  vst->channels = profile->channels;
  for (int c = 0; c < profile->channels; c++)
    {
      vst_forward (profile->nlf[c], vst->fwd[c]);
      vst_inverse (vst->fwd[c], sigma, clipped, vst->inv[c]);
    }
}

/* Every colour value of `img` through table[c] (alpha kept), in place
 * when in == out.  */
void
bm3d_vst_apply (const bm3d_image *in, bm3d_image *out,
                const bm3d_vst_table *table, int threads)
{
  int colour = in->channels - (in->has_alpha ? 1 : 0);

#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads)
#endif
  for (int y = 0; y < in->height; y++)
    {
      const float *src = in->data + (size_t) y * in->stride;
      float *dst = out->data + (size_t) y * out->stride;

      for (int x = 0; x < in->width; x++)
        for (int c = 0; c < in->channels; c++)
          {
            size_t o = (size_t) x * in->channels + c;

            dst[o] = c < colour ? bm3d_vst_lookup (table[c], src[o]) : src[o];
          }
    }
  (void) threads;
}

/* A copy of `in` with its colour values through the forward tables
 * `fwd`, the variance-stabilised image the CPU filters in camera mode;
 * NULL when out of memory (with a message).  Free with
 * bm3d_stabilised_free.  */
bm3d_image *
bm3d_stabilised (const bm3d_image *in, const bm3d_vst_table *fwd,
                 bm3d_job *job)
{
  size_t values = (size_t) in->width * in->height * in->channels;
  bm3d_image *out = malloc (sizeof *out);

  if (out)
    {
      *out = *in;
      out->stride = in->width * in->channels;
      out->data = bm3d_alloc (job, values * sizeof (float));
    }
  if (!out || !out->data)
    {
      free (out);
      bm3d_job_message (job, "out of memory for the stabilised image");
      return NULL;
    }
  bm3d_vst_apply (in, out, fwd, job->threads);
  return out;
}

void
bm3d_stabilised_free (bm3d_image *img, bm3d_job *job)
{
  if (!img)
    return;
  bm3d_free (job, img->data,
             (size_t) img->width * img->height * img->channels
             * sizeof (float));
  free (img);
}
