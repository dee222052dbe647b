/* Blind estimation of a noise profile (bm3d.h) from the photograph
 * itself, on the host.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Noise is the same everywhere; texture is not.  So the profile is
 * measured where the photograph is flattest, plane by plane of the
 * engine's colour space:
 *
 *  - plan_blocks: blocks of 32x32 pixels on a regular grid, at most
 *    PE_BLOCKS_MAX of them spread over the image, so the cost is
 *    bounded whatever the size.  Pixels with a value at 0 or 255 are
 *    clipped (their noise is squeezed): they are left out of the fit
 *    and their residual is 0; a block with more than PE_CLIP_SHARE of
 *    them is left out.  What remains of noise clipped at an end is a
 *    truncated normal, whose variance is the noise's times a known
 *    ratio of the share clipped (bm3d_truncated_normal): the residual
 *    is scaled back by it and by the share of pixels left.
 *  - block_residual: each plane of a block minus its least-squares
 *    plane a + b x + c y, so smooth shading and gradients do not count
 *    as noise; its variance is the block's texture measure.
 *  - Blocks whose residual variance is below half what rounding to 8
 *    bits alone gives are left out: JPEG flattened them, and they tell
 *    nothing of the noise.
 *  - select_blocks: per plane, first the flattest twentieth of the
 *    blocks, its mean variance corrected for the choice (for Gaussian
 *    noise the flattest share p of pure-noise blocks has the mean
 *    variance mu (1 - cv phi (z) / p), z the normal p-quantile, cv the
 *    relative deviation of a block's variance, sqrt (2 sum rho (d)^2 /
 *    N)); then, three times, every block a noise of that level could
 *    give (variance up to 2 cv above it: 97.7 % of them) and their
 *    level.  Where the noise is stationary this finds all the flat
 *    blocks, and texture stays out.
 *  - block_autocov: the residuals' autocovariance at lags up to 7
 *    (each lag the mean over the pairs it has in the block), averaged
 *    over the selected blocks; each block measured once, when first
 *    selected, or every block at once on the GPU (autocov_on_gpu) when
 *    the job's backend may use one.
 *  - Removing a plane also removes the noise's share in the three
 *    fitted directions, about 3 S / N of the variance at every lag (S
 *    the power at frequency 0, the sum of the autocovariance over all
 *    lags); that is added back.
 *  - A table that is no covariance (estimation noise at the long lags
 *    can give a frequency negative power) is pulled towards white until
 *    it is one.
 *
 * Every block is computed alone and the sums run in block order, so the
 * result is bit-identical for any thread count.  */
#include "config.h"

#include "core/hot_loop.h"
#include "noise/noise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define L    BM3D_NOISE_LAG
#define SIDE BM3D_NOISE_SIDE

#define PE_BLOCK        32        /* block side                           */
#define PE_BLOCK_AREA   (PE_BLOCK * PE_BLOCK)
#define PE_BLOCKS_MAX   2048      /* most blocks read                     */
#define PE_SIDE_MIN     32        /* smaller images are refused           */
#define PE_SEED         0.05      /* the flattest twentieth of the blocks */
/* phi (z) / p for the share p, z its standard normal quantile.  */
#define PE_SEED_BIAS    2.0627
#define PE_BAND         2.0       /* the band: up to 2 cv above the level */
#define PE_ROUNDS       3
#define PE_FLOOR        1e-4f     /* variance of a constant image's model */
#define PE_CLIP_LOW     0.0f
#define PE_CLIP_HIGH    255.0f
#define PE_CLIP_SHARE   0.25      /* most of a block clipped and kept     */
/* Lags dy = 0..L, dx = -L..L: half the table (the rest is symmetric).  */
#define PE_LAGS         ((L + 1) * SIDE)

typedef struct
{
  int      channels;
  int      blocks;
  int     *x0, *y0;
  float   *residual;   /* [block][plane][PE_BLOCK_AREA]                  */
  double  *variance;   /* [plane][block], or -1 for a clipped block      */
  double  *autocov;    /* [plane][block][PE_LAGS], filled for selected   */
  /* [plane][block]: non-zero once the block's autocov is filled (each
   * block is measured once, however many rounds select it).  */
  unsigned char *measured;
  int      threads;
  unsigned char *selected;  /* [plane][block]: in the band now          */
  const bm3d_vst_table *through;  /* job->read_through                  */
} pe_state;

/* ---- plan_blocks ----------------------------------------------------- */

/* Block origins: the whole grid when it is small enough, else a regular
 * sub-grid of it spread over the image.  Returns the count.  */
static int
plan_blocks (int width, int height, int *x0, int *y0)
{
  int gx = width / PE_BLOCK, gy = height / PE_BLOCK;
  int sx = 1, sy = 1, n = 0;

  while ((long) ((gx + sx - 1) / sx) * ((gy + sy - 1) / sy) > PE_BLOCKS_MAX)
    {
      if ((gx + sx - 1) / sx >= (gy + sy - 1) / sy)
        sx++;
      else
        sy++;
    }
  for (int j = 0; j < gy; j += sy)
    for (int i = 0; i < gx; i += sx)
      {
        if (x0)
          {
            /* Centre the grid: the margins left over split evenly.  */
            x0[n] = (width - gx * PE_BLOCK) / 2 + i * PE_BLOCK;
            y0[n] = (height - gy * PE_BLOCK) / 2 + j * PE_BLOCK;
          }
        n++;
      }
  return n;
}

/* ---- block_residual -------------------------------------------------- */

/* Subtract from each of the `planes` planes at `v` (PE_BLOCK^2 values
 * each, one after the other) its least-squares plane, and put the
 * residual's mean square in var[c].  On the centred grid the three
 * basis functions are orthogonal.  The planes go side by side, pixel by
 * pixel: each plane's sums run in the same order as alone, and the
 * three planes' additions, independent of each other, overlap instead
 * of each waiting on the one before.  Inlined with `planes` a constant,
 * so that the sums stay in registers.  */
static inline __attribute__ ((always_inline)) void
remove_planes (float *v, int planes, double *var)
{
  const double h = (PE_BLOCK - 1) / 2.0;
  double sx2 = 0.0, s[BM3D_NOISE_PLANES] = { 0 };
  double sx[BM3D_NOISE_PLANES] = { 0 }, sy[BM3D_NOISE_PLANES] = { 0 };
  double e[BM3D_NOISE_PLANES] = { 0 };

  for (int i = 0; i < PE_BLOCK; i++)
    sx2 += (i - h) * (i - h);
  sx2 *= PE_BLOCK;
  for (int y = 0; y < PE_BLOCK; y++)
    for (int x = 0; x < PE_BLOCK; x++)
      for (int c = 0; c < planes; c++)
        {
          double t = v[c * PE_BLOCK_AREA + y * PE_BLOCK + x];

          s[c] += t;
          sx[c] += t * (x - h);
          sy[c] += t * (y - h);
        }
  for (int c = 0; c < planes; c++)
    {
      s[c] /= PE_BLOCK_AREA;
      sx[c] /= sx2;
      sy[c] /= sx2;
    }
  for (int y = 0; y < PE_BLOCK; y++)
    for (int x = 0; x < PE_BLOCK; x++)
      for (int c = 0; c < planes; c++)
        {
          float *t = &v[c * PE_BLOCK_AREA + y * PE_BLOCK + x];

          *t = (float) (*t - s[c] - sx[c] * (x - h) - sy[c] * (y - h));
          e[c] += (double) *t * *t;
        }
  for (int c = 0; c < planes; c++)
    var[c] = e[c] / PE_BLOCK_AREA;
}

/* As remove_planes (), each plane's plane fitted on the pixels where
 * `clip` is 0; those where it is 1 get 0.  var[c] is the mean square of
 * the `n` fitted pixels' residual.  */
static inline __attribute__ ((always_inline)) void
remove_planes_masked (float *v, int planes, const unsigned char *clip,
                      int n, double *var)
{
  /* The normal equations' matrix, sums of 1, x, y and their products
   * over the fitted pixels: the whole block's less the clipped ones'.
   * Integers all, far below 2^53, so exact in any order.  */
  const double n1 = PE_BLOCK, sx = n1 * (n1 - 1) / 2;
  const double sxx = (n1 - 1) * n1 * (2 * n1 - 1) / 6;
  double m[3][3] = { { n1 * n1, n1 * sx, n1 * sx },
                     { n1 * sx, n1 * sxx, sx * sx },
                     { n1 * sx, sx * sx, n1 * sxx } };
  double rhs[BM3D_NOISE_PLANES][3] = { { 0 } };
  double coef[BM3D_NOISE_PLANES][3] = { { 0 } };
  double e[BM3D_NOISE_PLANES] = { 0 };

  for (int y = 0; y < PE_BLOCK; y++)
    for (int x = 0; x < PE_BLOCK; x++)
      {
        if (clip[y * PE_BLOCK + x])
          {
            double b[3] = { 1.0, x, y };

            for (int i = 0; i < 3; i++)
              for (int j = 0; j < 3; j++)
                m[i][j] -= b[i] * b[j];
            continue;
          }
        for (int c = 0; c < planes; c++)
          {
            double t = v[c * PE_BLOCK_AREA + y * PE_BLOCK + x];

            rhs[c][0] += t;
            rhs[c][1] += x * t;
            rhs[c][2] += y * t;
          }
      }
  /* At least 3 PE_BLOCK_AREA / 4 pixels: never singular.  */
  for (int c = 0; c < planes; c++)
    {
      double a[3][3];

      memcpy (a, m, sizeof a);
      bm3d_solve3 (a, rhs[c], coef[c]);
    }
  for (int y = 0; y < PE_BLOCK; y++)
    for (int x = 0; x < PE_BLOCK; x++)
      for (int c = 0; c < planes; c++)
        {
          float *t = &v[c * PE_BLOCK_AREA + y * PE_BLOCK + x];

          if (clip[y * PE_BLOCK + x])
            *t = 0.0f;
          else
            {
              *t = (float) (*t - coef[c][0] - coef[c][1] * x
                            - coef[c][2] * y);
              e[c] += (double) *t * *t;
            }
        }
  for (int c = 0; c < planes; c++)
    var[c] = e[c] / n;
}

/* Read block b into its planes (the engine's colour transform).  */
static int
read_block (const bm3d_image *in, const pe_state *st, int b, float *res,
            unsigned char *clip)
{
  int colour = st->channels == 3, clipped = 0;

  for (int y = 0; y < PE_BLOCK; y++)
    {
      const float *row = in->data + (size_t) (st->y0[b] + y) * in->stride
                         + (size_t) st->x0[b] * in->channels;

      for (int x = 0; x < PE_BLOCK; x++, row += in->channels)
        {
          int o = y * PE_BLOCK + x;
          float v[3];

          /* Through the stabilising transform, when there is one, as
           * its copy of the image would hold them (which keeps 0 and
           * 255).  */
          for (int c = 0; c < st->channels; c++)
            v[c] = st->through ? bm3d_vst_lookup (st->through[c], row[c])
                               : row[c];
          /* Float noise never lands on the ends exactly; clipped
           * noise piles up there.  */
          clip[o] = 0;
          for (int c = 0; c < st->channels; c++)
            clip[o] |= v[c] == PE_CLIP_LOW || v[c] == PE_CLIP_HIGH;
          clipped += clip[o];
          if (!colour)
            res[o] = v[0];
          else
            for (int c = 0; c < 3; c++)
              res[c * PE_BLOCK_AREA + o]
                = bm3d_colour_fwd[c][0] * v[0]
                  + bm3d_colour_fwd[c][1] * v[1]
                  + bm3d_colour_fwd[c][2] * v[2];
        }
    }
  return clipped;
}

/* Block b's residual planes and their variances; -1 for a block mostly
 * clipped.  */
static void
block_residual (const bm3d_image *in, pe_state *st, int b)
{
  float *res = st->residual + (size_t) b * st->channels * PE_BLOCK_AREA;
  unsigned char clip[PE_BLOCK_AREA];
  int clipped = read_block (in, st, b, res, clip);
  int n = PE_BLOCK_AREA - clipped;
  double ratio, shift, scale, var[BM3D_NOISE_PLANES];

  if (clipped > PE_CLIP_SHARE * PE_BLOCK_AREA)
    {
      for (int c = 0; c < st->channels; c++)
        st->variance[(size_t) c * st->blocks + b] = -1.0;
      return;
    }
  bm3d_truncated_normal ((double) clipped / PE_BLOCK_AREA, &ratio, &shift);
  /* Lags' means over all pairs see n / N of them: scaled back, with the
   * truncation's loss.  */
  scale = clipped ? sqrt ((double) PE_BLOCK_AREA / n / ratio) : 1.0;
  if (clipped && st->channels == 3)
    remove_planes_masked (res, 3, clip, n, var);
  else if (clipped)
    remove_planes_masked (res, 1, clip, n, var);
  else if (st->channels == 3)
    remove_planes (res, 3, var);
  else
    remove_planes (res, 1, var);
  for (int c = 0; c < st->channels; c++)
    {
      float *v = res + c * PE_BLOCK_AREA;

      if (clipped)
        {
          var[c] /= ratio;
          for (int i = 0; i < PE_BLOCK_AREA; i++)
            v[i] = (float) (v[i] * scale);
        }
      st->variance[(size_t) c * st->blocks + b] = var[c];
    }
}

/* ---- block_autocov --------------------------------------------------- */


/* The 15 lags dx = -L..L of one dy side by side, in four vectors of
 * four doubles (lane j is dx = j - L; the sixteenth lane is never
 * read).  Each lane adds its products in the order the scalar sum did,
 * row by row and x by x, and every product of two floats is exact in
 * double, so a fused multiply-add rounds as a multiply and an add do:
 * the tables are the same bit for bit as one lag at a time (and as the
 * GPU's, noise_profile_cuda.cu).  What the vectors buy is many sums in
 * flight where the scalar loop waited on one addition at a time.  */
#define AC_LANES   16
#define AC_VECTORS (AC_LANES / 4)
/* A block row as doubles with L zeros before it and room after it for
 * the last lane's reads: q's x + dx is the padded row's x + j.  */
#define AC_ROW     (PE_BLOCK + AC_LANES)

_Static_assert (SIDE <= AC_LANES, "the lags dx = -L..L fit the lanes");

typedef double lag4 __attribute__ ((vector_size (32)));
typedef long long lag4_mask __attribute__ ((vector_size (32)));
typedef double lag4_unaligned
  __attribute__ ((vector_size (32), aligned (8), may_alias));
#define load_lags(p) (*(const lag4_unaligned *) (p))

/* Lanes whose pair (x, x + dx) lies in the block: all ones, else 0.
 * Only the first and last L columns have lanes outside; a product
 * there is dropped, not multiplied by a zero, so that a non-finite
 * residual adds to the same lags as in the scalar sum.  A macro, as
 * vectors passed by value differ between the two builds' ABIs.  */
#define lanes_inside(x, k)                                              \
  ((((lag4_mask) { 4 * (k), 4 * (k) + 1, 4 * (k) + 2, 4 * (k) + 3 }     \
     + ((x) - L)) >= 0)                                                 \
   & (((lag4_mask) { 4 * (k), 4 * (k) + 1, 4 * (k) + 2, 4 * (k) + 3 }   \
       + ((x) - L)) < PE_BLOCK))

/* The products of p[x] (`pa`, broadcast) with one padded row q, for
 * the four vectors of lanes, added to s0..s3; `edge` (a constant where
 * it is used) keeps only the lanes inside the block (block_autocov's
 * `inside`).  */
#define ADD_PRODUCTS(q, x, edge, s0, s1, s2, s3)                        \
  do {                                                                  \
    if (edge)                                                           \
      {                                                                 \
        s0 += (lag4) ((lag4_mask) (pa * load_lags ((q) + (x)))          \
                      & inside[x][0]);                                  \
        s1 += (lag4) ((lag4_mask) (pa * load_lags ((q) + (x) + 4))      \
                      & inside[x][1]);                                  \
        s2 += (lag4) ((lag4_mask) (pa * load_lags ((q) + (x) + 8))      \
                      & inside[x][2]);                                  \
        s3 += (lag4) ((lag4_mask) (pa * load_lags ((q) + (x) + 12))     \
                      & inside[x][3]);                                  \
      }                                                                 \
    else                                                                \
      {                                                                 \
        s0 += pa * load_lags ((q) + (x));                               \
        s1 += pa * load_lags ((q) + (x) + 4);                           \
        s2 += pa * load_lags ((q) + (x) + 8);                           \
        s3 += pa * load_lags ((q) + (x) + 12);                          \
      }                                                                 \
  } while (0)

/* Row p's products with rows qa and qb (qb NULL: qa alone), x by x,
 * the columns with lanes outside the block apart.  */
#define ADD_ROW(p, qa, qb, x0, x1, edge)                                \
  for (int x = (x0); x < (x1); x++)                                     \
    {                                                                   \
      const double a = (p)[x + L];                                      \
      const lag4 pa = { a, a, a, a };                                   \
                                                                        \
      ADD_PRODUCTS (qa, x, edge, a0, a1, a2, a3);                       \
      if (qb)                                                           \
        ADD_PRODUCTS (qb, x, edge, b0, b1, b2, b3);                     \
    }

/* Lags dy and dy + 1 (the second when `qb` is set) of one row y.  */
#define ADD_ROWS(p, qa, qb)                                             \
  do {                                                                  \
    ADD_ROW (p, qa, qb, 0, L, 1)                                        \
    ADD_ROW (p, qa, qb, L, PE_BLOCK - L, 0)                             \
    ADD_ROW (p, qa, qb, PE_BLOCK - L, PE_BLOCK, 1)                      \
  } while (0)

/* Lag dy's sums (lane j: dx = j - L) as means over the pairs.  */
static void
lag_means (int dy, const lag4 s[AC_VECTORS], double *out)
{
  for (int dx = -L; dx <= L; dx++)
    {
      int xa = dx < 0 ? -dx : 0, xb = dx > 0 ? PE_BLOCK - dx : PE_BLOCK;
      int j = dx + L;

      out[dy * SIDE + j] = s[j / 4][j % 4]
                           / ((double) (PE_BLOCK - dy) * (xb - xa));
    }
}

/* Autocovariance of one residual block at lags dy = 0..L, dx = -L..L,
 * each the mean over the pairs inside the block.  Two dy at a time:
 * eight sums in registers, enough to hide an addition's latency.
 * Built for two processors (HOT_LOOP, core/hot_loop.h).  */
static HOT_LOOP void
block_autocov (const float *v, double *out)
{
  double pad[PE_BLOCK][AC_ROW];
  lag4_mask inside[PE_BLOCK][AC_VECTORS];

  for (int x = 0; x < PE_BLOCK; x++)
    for (int k = 0; k < AC_VECTORS; k++)
      inside[x][k] = lanes_inside (x, k);
  for (int y = 0; y < PE_BLOCK; y++)
    for (int i = 0; i < AC_ROW; i++)
      pad[y][i] = i >= L && i < L + PE_BLOCK ? v[y * PE_BLOCK + i - L] : 0.0;
  for (int dy = 0; dy <= L; dy += 2)
    {
      const int two = dy + 1 <= L;
      lag4 a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };
      lag4 b0 = { 0 }, b1 = { 0 }, b2 = { 0 }, b3 = { 0 };
      int y = 0;

      if (two)
        for (; y + dy + 1 < PE_BLOCK; y++)
          ADD_ROWS (pad[y], pad[y + dy], pad[y + dy + 1]);
      for (; y + dy < PE_BLOCK; y++)
        ADD_ROWS (pad[y], pad[y + dy], (const double *) NULL);
      lag_means (dy, (const lag4[AC_VECTORS]) { a0, a1, a2, a3 }, out);
      if (two)
        lag_means (dy + 1, (const lag4[AC_VECTORS]) { b0, b1, b2, b3 },
                   out);
    }
}

/* ---- select_blocks --------------------------------------------------- */

/* qsort's order of doubles (noise.h).  */
int
bm3d_compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* Relative deviation of a block's residual variance under Gaussian
 * noise of the lag table `r` (full, SIDE x SIDE): sqrt (2 sum rho^2 /
 * N).  */
static double
variance_cv (const double (*r)[SIDE])
{
  double s = 0.0;

  if (r[L][L] <= 0.0)
    return 0.0;
  for (int dy = 0; dy < SIDE; dy++)
    for (int dx = 0; dx < SIDE; dx++)
      s += (r[dy][dx] / r[L][L]) * (r[dy][dx] / r[L][L]);
  return sqrt (2.0 * s / PE_BLOCK_AREA);
}

/* The mean lag table of the selected blocks of plane c, with the
 * plane fit's share added back.  Returns the count used.  */
static int
mean_autocov (const pe_state *st, int c, double (*r)[SIDE])
{
  const double *a = st->autocov + (size_t) c * st->blocks * PE_LAGS;
  const unsigned char *sel = st->selected + (size_t) c * st->blocks;
  double half[PE_LAGS] = { 0 };
  double s = 0.0;
  int n = 0;

  for (int b = 0; b < st->blocks; b++)
    if (sel[b])
      {
        for (int k = 0; k < PE_LAGS; k++)
          half[k] += a[(size_t) b * PE_LAGS + k];
        n++;
      }
  for (int dy = 0; dy <= L; dy++)
    for (int dx = -L; dx <= L; dx++)
      {
        double v = n ? half[dy * SIDE + dx + L] / n : 0.0;

        r[L + dy][L + dx] = v;
        r[L - dy][L - dx] = v;
      }
  /* The plane fit took about 3 S / N from every lag, S the power at
   * frequency 0, the sum of the true table: with S = S_raw + SIDE^2
   * delta and delta = 3 S / N, delta = 3 S_raw / (N - 3 SIDE^2).  */
  for (int dy = 0; dy < SIDE; dy++)
    for (int dx = 0; dx < SIDE; dx++)
      s += r[dy][dx];
  if (s > 0.0)
    {
      double delta = 3.0 * s / (PE_BLOCK_AREA - 3.0 * SIDE * SIDE);

      for (int dy = 0; dy < SIDE; dy++)
        for (int dx = 0; dx < SIDE; dx++)
          r[dy][dx] += delta;
    }
  return n;
}

/* The blocks of plane c with a residual variance from `floor` to
 * `limit`: selected, measured, their mean lag table into `r`.
 * Returns how many.  */
static int
select_band (pe_state *st, int c, double floor, double limit,
             double (*r)[SIDE])
{
  const double *var = st->variance + (size_t) c * st->blocks;
  unsigned char *sel = st->selected + (size_t) c * st->blocks;
  double *acov = st->autocov + (size_t) c * st->blocks * PE_LAGS;
  unsigned char *done = st->measured + (size_t) c * st->blocks;
  int used = 0, unmeasured = 0;

  for (int b = 0; b < st->blocks; b++)
    {
      sel[b] = var[b] >= floor && var[b] <= limit;
      used += sel[b];
      unmeasured += sel[b] && !done[b];
    }
  /* The newly selected blocks' tables, side by side: each block's sums
   * run in its own order, so the tables are the same for any thread
   * count.  None when the GPU measured every block: no team to wake
   * (twelve a call, each waiting on its slowest thread).  */
  if (unmeasured > 0)
    {
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 8) num_threads(st->threads)
#endif
      for (int b = 0; b < st->blocks; b++)
        if (sel[b] && !done[b])
          {
            block_autocov (st->residual
                           + ((size_t) b * st->channels + c) * PE_BLOCK_AREA,
                           acov + (size_t) b * PE_LAGS);
            done[b] = 1;
          }
    }
  mean_autocov (st, c, r);
  return used;
}

/* Choose plane c's blocks and measure their mean lag table into `r`.
 * Returns the blocks used (0: none).  */
static int
select_blocks (pe_state *st, int c, double (*r)[SIDE], double *sorted)
{
  const double *var = st->variance + (size_t) c * st->blocks;
  /* Half the variance that rounding to 8 bits alone gives the plane.  */
  double gain = st->channels == 3 ? bm3d_colour_noise_gain[c] : 1.0;
  double floor = 0.5 * gain * gain / 12.0;
  int n = 0, used;
  double cv, level;

  for (int b = 0; b < st->blocks; b++)
    if (var[b] >= floor)
      sorted[n++] = var[b];
  if (n == 0)
    return 0;
  qsort (sorted, n, sizeof *sorted, bm3d_compare_double);

  /* The seed: the flattest twentieth, whose mean variance is that of
   * the noise times 1 - cv phi (z) / p for Gaussian noise.  */
  used = select_band (st, c, floor, sorted[(int) ((n - 1) * PE_SEED)], r);
  cv = variance_cv ((const double (*)[SIDE]) r);
  level = 0.0;
  for (int b = 0; b < st->blocks; b++)
    if (st->selected[(size_t) c * st->blocks + b])
      level += var[b];
  level /= used * (1.0 - cv * PE_SEED_BIAS > 0.5
                   ? 1.0 - cv * PE_SEED_BIAS : 0.5);

  /* Then every block a noise of that level could give, up to 2 cv
   * above it (97.7 % of them), again with their level, a few times.  */
  for (int round = 0; round < PE_ROUNDS; round++)
    {
      used = select_band (st, c, floor, level * (1.0 + PE_BAND * cv), r);
      cv = variance_cv ((const double (*)[SIDE]) r);
      level = 0.0;
      for (int b = 0; b < st->blocks; b++)
        if (st->selected[(size_t) c * st->blocks + b])
          level += var[b];
      level /= used;
    }
  return used;
}

/* ---- the profile ----------------------------------------------------- */

/* Every block's lag tables at once on the GPU (noise_profile_cuda.cu),
 * the same values as block_autocov's, unless the job's backend is the
 * CPU or no device is usable.  The residuals are written straight to
 * the device's pinned memory when it has some (autocov_open ()), else
 * sent from the host's.  A failure leaves the host to measure them,
 * with the report's message as it was: nothing is lost.  */
static int
gpu_usable (const bm3d_job *job)
{
  const bm3d_params *params = job->params;

  return params->backend != BM3D_BACKEND_CPU && bm3d_cuda_available (NULL, 0)
         && params->device < bm3d_cuda_device_count ();
}

/* Where block_residual () writes: the device's pinned memory, held
 * until autocov_on_gpu (), or NULL (the host's st->residual).  */
static float *
autocov_open (pe_state *st, bm3d_job *job)
{
  char message[sizeof job->report->message];
  float *pinned;

  if (!gpu_usable (job))
    return NULL;
  memcpy (message, job->report->message, sizeof message);
  pinned = bm3d_cuda_autocov_open (job, st->blocks, st->channels);
  if (!pinned)
    memcpy (job->report->message, message, sizeof message);
  return pinned;
}

/* The tables on the GPU: from the residuals written where
 * autocov_open () said (`pinned`, which gives the device back; on
 * failure the residuals are copied to st->residual for the host), else
 * from st->residual.  Returns non-zero when the tables are filled.  */
static int
autocov_on_gpu (pe_state *st, bm3d_job *job, int pinned)
{
  char message[sizeof job->report->message];
  bm3d_status status;

  if (!pinned && !gpu_usable (job))
    return 0;
  memcpy (message, job->report->message, sizeof message);
  status = pinned
           ? bm3d_cuda_autocov_close (job, st->blocks, st->channels,
                                      st->autocov, st->residual)
           : bm3d_cuda_block_autocov (st->residual, st->blocks,
                                      st->channels, st->autocov, job);
  if (status != BM3D_OK)
    {
      memcpy (job->report->message, message, sizeof message);
      return 0;
    }
  job->report->backend_used = BM3D_BACKEND_CUDA;
  return 1;
}

/* Pull the off-zero lags of plane c towards white until the table is a
 * covariance (bm3d_noise_profile_update accepts it).  */
static bm3d_status
make_valid (bm3d_noise_profile *p)
{
  for (int round = 0; round < 64; round++)
    {
      bm3d_noise_profile t = *p;

      if (bm3d_noise_profile_update (&t, NULL, 0) == BM3D_OK)
        {
          *p = t;
          return BM3D_OK;
        }
      for (int c = 0; c < p->channels; c++)
        for (int dy = 0; dy < SIDE; dy++)
          for (int dx = 0; dx < SIDE; dx++)
            if (dy != L || dx != L)
              p->autocov[c][dy][dx] *= 0.9f;
    }
  return BM3D_ERR_INVALID_ARGUMENT;
}

bm3d_status
bm3d_estimate_profile_cpu (const bm3d_image *in, bm3d_job *job,
                           bm3d_noise_profile *profile)
{
  pe_state st;
  bm3d_noise_profile p;
  size_t bytes[7], total = 0;
  void *part[7];
  char *mem;
  double *sorted;
  float *host_residual, *pinned;
  bm3d_status status = BM3D_OK;

  memset (&st, 0, sizeof st);
  memset (&p, 0, sizeof p);
  st.channels = in->channels - (in->has_alpha ? 1 : 0);
  st.blocks = plan_blocks (in->width, in->height, NULL, NULL);
  /* One allocation, carved into 64-byte aligned parts.  */
  bytes[0] = 2 * (size_t) st.blocks * sizeof (int);
  bytes[1] = (size_t) st.blocks * st.channels * PE_BLOCK_AREA * sizeof (float);
  bytes[2] = (size_t) st.channels * st.blocks * sizeof (double);
  bytes[3] = (size_t) st.blocks * sizeof (double);
  bytes[4] = (size_t) st.channels * st.blocks * PE_LAGS * sizeof (double);
  bytes[5] = (size_t) st.channels * st.blocks;
  bytes[6] = bytes[5];
  for (int i = 0; i < 7; i++)
    total += (bytes[i] + 63) & ~(size_t) 63;
  mem = bm3d_alloc (job, total);
  if (!mem)
    {
      bm3d_job_message (job, "out of memory for the noise estimate");
      return BM3D_ERR_OUT_OF_MEMORY;
    }
  for (int i = 0, o = 0; i < 7; i++)
    {
      part[i] = mem + o;
      o += (int) ((bytes[i] + 63) & ~(size_t) 63);
    }
  st.x0 = part[0];
  st.y0 = st.x0 + st.blocks;
  st.residual = part[1];
  st.variance = part[2];
  sorted = part[3];
  st.autocov = part[4];
  st.selected = part[5];
  st.measured = part[6];
  st.threads = job->threads;
  st.through = job->read_through;
  memset (st.selected, 0, bytes[5]);
  memset (st.measured, 0, bytes[6]);
  plan_blocks (in->width, in->height, st.x0, st.y0);

  host_residual = st.residual;
  if ((pinned = autocov_open (&st, job)) != NULL)
    st.residual = pinned;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(job->threads)
#endif
  for (int b = 0; b < st.blocks; b++)
    block_residual (in, &st, b);
  st.residual = host_residual;
  if (autocov_on_gpu (&st, job, pinned != NULL))
    memset (st.measured, 1, bytes[6]);
  if (job->tick (job, 0.5))
    {
      bm3d_job_message (job, "cancelled");
      status = BM3D_ERR_CANCELLED;
    }

  p.channels = st.channels;
  for (int c = 0; c < st.channels && status == BM3D_OK; c++)
    {
      double r[SIDE][SIDE];

      if (select_blocks (&st, c, r, sorted) == 0 || !(r[L][L] > PE_FLOOR))
        {
          if (c == 0)
            job->report->noise_unmeasured = 1;
          /* Nothing unclipped, or no noise: a tiny white noise.  */
          memset (r, 0, sizeof r);
          r[L][L] = PE_FLOOR;
        }
      for (int dy = 0; dy < SIDE; dy++)
        for (int dx = 0; dx < SIDE; dx++)
          p.autocov[c][dy][dx] = (float) r[dy][dx];
    }
  if (status == BM3D_OK && make_valid (&p) != BM3D_OK)
    {
      /* Never seen: a table this far from a covariance.  */
      for (int c = 0; c < p.channels; c++)
        {
          float v = p.autocov[c][L][L];

          memset (p.autocov[c], 0, sizeof p.autocov[c]);
          p.autocov[c][L][L] = v;
        }
      status = make_valid (&p);
    }
  bm3d_free (job, mem, total);
  if (status == BM3D_OK)
    {
      *profile = p;
      job->tick (job, 1.0);
    }
  return status;
}
