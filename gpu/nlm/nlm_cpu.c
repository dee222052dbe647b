/* Non-local means on the CPU: the reference for nlm_cuda.cu, with the
 * same steps.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The patch-wise NL-means of Buades, Coll & Morel (IPOL 2011), written
 * from the article.  Every patch B(p) of side 2f + 1 is denoised as the
 * weighted mean of the patches B(p + d) centred in its search window
 * (offsets d of at most r in each direction), with the weight
 * exp (-max (d^2 - 2 sigma^2, 0) / h^2) of their distance d^2 (the mean
 * squared difference per value); the patch itself is weighted with the
 * largest weight of the others.  A pixel's result is the mean of the
 * estimates of the (2f + 1)^2 patches that contain it.  Reordered by
 * offset, that is
 *
 *   out (x) = 1 / (2f + 1)^2  sum_d  [ sum_{p in box (x)} w (p, d) / C (p) ]
 *                                     * u (x + d)
 *
 * with C (p) the sum of p's weights, so the work is two passes over the
 * offsets, each a few streaming operations per pixel (as KNLMeansCL
 * computes patch distances):
 *
 *   pad_tile     the tile, extended by reflection at its border by 2f + r
 *                (the tiler gives every core pixel that much context, so
 *                tiles join seamlessly; at the image's border this is the
 *                image's own reflection);
 *   weight_sums  pass 1: for every patch centre p of the tile and the f
 *                pixels around it and every offset d != 0, the squared
 *                differences of the planes, summed over the channels,
 *                summed across the patch separably (rows, then columns),
 *                turned into a weight; C (p) = the sum plus the largest
 *                weight (the centre patch's); kept as 1 / C (p) and
 *                max / C (p);
 *   aggregate    pass 2: for every offset, the weights again, normalised
 *                by C (p), summed over the box of patches covering each
 *                pixel and multiplied with the noisy value at x + d.
 *
 * The weight of two patches does not depend on which is the reference:
 * w (p, d) = w (p + d, -d).  So each pass computes the weights of one
 * offset of every opposite pair, over the block widened by the offset,
 * and uses them for both: in pass 1 w (p, d) and w (p - d, d) add to
 * C (p); in pass 2 they weigh u (x + d) and u (x - d).  That halves the
 * distances and exponentials, the bulk of the work.  (The CUDA kernels
 * compute each offset on its own, keeping everything on chip; their sums
 * differ from these only in the order of the additions.)
 *
 * Both passes walk the tile in blocks of rows and columns, one OpenMP
 * thread per block; a block owns its output pixels, and every pixel sums
 * its offsets in the same order, so the result is bit-identical for any
 * thread count and for any tiling.  Each row of a block is a handful of
 * loops over contiguous floats that the compiler vectorises (built for
 * AVX2 and for any x86-64, target_clones as in bm3d_cpu.c); arrays are
 * padded so that every loop runs over whole vectors.  */
#include "config.h"

#include "core/engine.h"
#include "core/hot_loop.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__GNUC__)
#define INLINE inline __attribute__ ((always_inline))
#else
#define INLINE inline
#endif

/* Loops run over whole groups of LANES floats.  */
#define LANES 8
/* Block of output pixels one thread takes at a time: tall enough that
 * the 2f extra rows of a patch's reach cost little, narrow enough that
 * the block's rows (with the search window's reach) stay in the L2
 * cache while all offsets pass over them.  */
#define BLOCK_ROWS 48
#define BLOCK_COLS 256

static INLINE int
round_lanes (int n)
{
  return (n + LANES - 1) / LANES * LANES;
}

/* Index into [0, n) reflected at the edges (... 1 0 | 0 1 ... n-1 | n-1
 * n-2 ...), periodic beyond, as the tiler mirrors small images.  */
static int
reflect (int i, int n)
{
  int period = 2 * n;

  i %= period;
  if (i < 0)
    i += period;
  return i < n ? i : period - 1 - i;
}

/* LANES floats as one value (GCC vector extension), so that every hot
 * loop keeps its sums in registers and runs over whole vectors, the
 * exponential's clamps and float-to-int conversion included (a scalar
 * loop with those is not vectorised under the default
 * -ftrapping-math).  Vectors are passed by address only: their by-value
 * ABI differs between the two builds.  */
typedef float   vec_f __attribute__ ((vector_size (4 * LANES)));
typedef int32_t vec_i __attribute__ ((vector_size (4 * LANES)));

#define VLOAD(p)      ({ vec_f v_; memcpy (&v_, (p), sizeof v_); v_; })
#define VSTORE(p, v)  do { vec_f v_ = (v); memcpy ((p), &v_, sizeof v_); } \
                      while (0)

/* In place: the (scaled) weight 2^min (slope * s + offset, -83) of the
 * patch distance sums s, 0 below 2^-126 (bm3d_tables.h).  2^trunc (t)
 * comes from the exponent bits, 2^frac (t) from a degree-5 polynomial
 * fitted on [-1, 0] (relative error 2.4e-7 in float).  */
static INLINE void
weight_of (vec_f *v, float slope, float offset)
{
  const vec_f top = (vec_f) { 0.0f } + BM3D_NLM_WEIGHT_TOP;
  vec_f e = *v * slope + offset, f, p, scale;
  vec_i keep, k;

  keep = e < top;
  e = (vec_f) (((vec_i) e & keep) | ((vec_i) top & ~keep));
  keep = e >= BM3D_NLM_WEIGHT_LOW;
  e = (vec_f) ((vec_i) e & keep);                   /* 0 past the cutoff */
  k = __builtin_convertvector (e, vec_i);           /* toward zero      */
  f = e - __builtin_convertvector (k, vec_f);       /* in (-1, 0]       */
  p = f * 0.000943510851f + 0.00920217671f;
  p = p * f + 0.0552940406f;
  p = p * f + 0.240178898f;
  p = p * f + 0.693143547f;
  p = p * f + 1.0f;
  scale = (vec_f) ((k + 127) << 23);
  *v = (vec_f) ((vec_i) (p * scale) & keep);
}

/* Everything the passes share about a tile.  */
typedef struct
{
  int          width, height, channels;
  int          f, r, margin;       /* patch and search radii, f + f + r  */
  int          pitch;              /* floats per row of the padded planes */
  int          padded_height;
  float       *pad[BM3D_MAX_CHANNELS];
  /* Patch centres: the tile and f pixels around it, (width + 2f) x
   * (height + 2f), rows of sums_pitch floats.  Pass 1 sums weights
   * into wsum and wmax; then they hold 1 / C and the centre's share.  */
  int          sums_pitch;
  float       *wsum, *wmax;
  bm3d_nlm_weights wt;
  int          cols_block;         /* columns of a block                  */
} nlm_tile;

/* One thread's work space (see scratch_layout).  */
typedef struct
{
  float *diff;       /* squared differences of one row                   */
  float *rows;       /* 2f + 1 rows of sums across the patch             */
  float *weights;    /* the weights of the block widened by an offset    */
  float *share[2];   /* one row of normalised weights, offset d and -d   */
  float *boxes[2];   /* 2f + 1 rows of those summed across the patch     */
  float *acc;        /* the block's output sums, channel after channel   */
  int    row_floats; /* floats of one row of each                        */
} nlm_scratch;

/* Floats of one row: a block's columns, widened by 2f patch centres, the
 * search radius (the other offset of a pair) and 2f more for the
 * differences, plus whole-vector slack.  */
static int
row_floats (const nlm_tile *t)
{
  return round_lanes (t->cols_block + 4 * t->f + t->r + 3 * LANES);
}

/* Rows of the weights buffer: a block's rows widened likewise.  */
static int
weight_rows (const nlm_tile *t)
{
  return BLOCK_ROWS + 2 * t->f + t->r;
}

static size_t
scratch_layout (const nlm_tile *t, float *base, nlm_scratch *s)
{
  const size_t n = (size_t) row_floats (t), ring = 2 * t->f + 1;
  float *p = base;

  if (s)
    {
      s->row_floats = (int) n;
      s->diff = p;
      s->share[0] = p + n;
      s->share[1] = p + 2 * n;
      s->rows = p + 3 * n;
      s->boxes[0] = s->rows + ring * n;
      s->boxes[1] = s->boxes[0] + ring * n;
      s->weights = s->boxes[1] + ring * n;
      s->acc = s->weights + (size_t) weight_rows (t) * n;
    }
  return n * (3 + 3 * ring + weight_rows (t))
         + (size_t) t->channels * BLOCK_ROWS * n;
}

/* ---- pad_tile ----------------------------------------------------------- */

static void
pad_tile (const bm3d_planes *noisy, nlm_tile *t)
{
  const int m = t->margin;

  for (int c = 0; c < t->channels; c++)
    for (int y = 0; y < t->padded_height; y++)
      {
        const float *src = noisy->plane[c]
                           + (size_t) reflect (y - m, t->height) * t->width;
        float *dst = t->pad[c] + (size_t) y * t->pitch;
        int x = 0;

        for (; x < m; x++)
          dst[x] = src[reflect (x - m, t->width)];
        memcpy (dst + m, src, sizeof (float) * t->width);
        for (x = m + t->width; x < t->pitch; x++)
          dst[x] = x < 2 * m + t->width ? src[reflect (x - m, t->width)]
                                        : 0.0f;
      }
}

/* ---- the rows both passes share ----------------------------------------- */

/* Squared differences summed over the channels, for n values from
 * padded row y, column x, against the same at offset (dy, dx).  */
static INLINE void
diff_row (const nlm_tile *t, int y, int x, int dy, int dx, int n,
          float *restrict out)
{
  const size_t a = (size_t) y * t->pitch + x;
  const size_t b = (size_t) (y + dy) * t->pitch + x + dx;

  for (int i = 0; i < n; i += LANES)
    {
      vec_f d = VLOAD (t->pad[0] + a + i) - VLOAD (t->pad[0] + b + i);
      vec_f sum = d * d;

      for (int c = 1; c < t->channels; c++)
        {
          d = VLOAD (t->pad[c] + a + i) - VLOAD (t->pad[c] + b + i);
          sum += d * d;
        }
      VSTORE (out + i, sum);
    }
}

/* out[i] = sum over k < 2f + 1 of taps[k] * in[i + k]: plain sums when
 * the taps are all 1.  */
static INLINE void
sum_across (const nlm_tile *t, const int f, const float *restrict in, int n,
            float *restrict out)
{
  const int side = 2 * f + 1;

  for (int i = 0; i < n; i += LANES)
    {
      vec_f sum;

      if (!t->wt.gaussian)
        {
          sum = VLOAD (in + i);
          for (int k = 1; k < side; k++)
            sum += VLOAD (in + i + k);
        }
      else
        {
          sum = VLOAD (in + i) * t->wt.taps[0];
          for (int k = 1; k < side; k++)
            sum += VLOAD (in + i + k) * t->wt.taps[k];
        }
      VSTORE (out + i, sum);
    }
}

/* The same down the 2f + 1 rows of across-sums of a row of patch
 * centres (rows[k] holds centre row + k - f): the patches' distance
 * sums, lanes i .. i + LANES - 1.  */
static INLINE void
sum_down (const nlm_tile *t, const int f, float *const *rows, int i,
          vec_f *out)
{
  const int side = 2 * f + 1;
  vec_f sum;

  if (!t->wt.gaussian)
    {
      sum = VLOAD (rows[0] + i);
      for (int k = 1; k < side; k++)
        sum += VLOAD (rows[k] + i);
    }
  else
    {
      sum = VLOAD (rows[0] + i) * t->wt.taps[0];
      for (int k = 1; k < side; k++)
        sum += VLOAD (rows[k] + i) * t->wt.taps[k];
    }
  *out = sum;
}

/* The weights of one offset (dy, dx) for the patch centres of padded
 * rows y0 .. y1 - 1 and n (a multiple of LANES) columns from padded
 * column x0, into rows of s->weights.  The differences walk down the
 * rows; the last 2f + 1 rows of their across-sums are kept in a ring.  */
static INLINE void
offset_weights (const nlm_tile *t, const int f, const nlm_scratch *s, int dy,
                int dx, int y0, int y1, int x0, int n)
{
  const int side = 2 * f + 1;
  const int n_d = round_lanes (n + 2 * f);
  float *rows[2 * BM3D_NLM_PATCH_RADIUS_MAX + 1];

  for (int y = y0 - f; y < y1 + f; y++)
    {
      diff_row (t, y, x0 - f, dy, dx, n_d, s->diff);
      sum_across (t, f, s->diff, n,
                  s->rows + (size_t) (y % side) * s->row_floats);
      if (y >= y0 + f)
        {
          const int c = y - f;          /* the centre row now complete */
          float *out = s->weights + (size_t) (c - y0) * s->row_floats;

          for (int k = 0; k < side; k++)
            rows[k] = s->rows + (size_t) ((c - f + k) % side) * s->row_floats;
          for (int i = 0; i < n; i += LANES)
            {
              vec_f w;

              sum_down (t, f, rows, i, &w);
              weight_of (&w, t->wt.slope, t->wt.offset);
              VSTORE (out + i, w);
            }
        }
    }
}

/* ---- weight_sums (pass 1) ------------------------------------------------ */

static INLINE void
add_weights (const float *restrict w, int n, float *restrict wsum,
             float *restrict wmax)
{
  for (int i = 0; i < n; i += LANES)
    {
      vec_f v = VLOAD (w + i), m = VLOAD (wmax + i);
      vec_i more = v > m;

      VSTORE (wsum + i, VLOAD (wsum + i) + v);
      VSTORE (wmax + i, (vec_f) (((vec_i) v & more) | ((vec_i) m & ~more)));
    }
}

/* The offsets of the search window with dy > 0, or dy = 0 and dx > 0:
 * one of each opposite pair, in raster order.  */
#define FOR_HALF_WINDOW(r, dy, dx)                                      \
  for (int dy = 0; dy <= (r); dy++)                                     \
    for (int dx = dy == 0 ? 1 : -(r); dx <= (r); dx++)

/* Pass 1 over the patch centres of rows y0 .. y1 - 1 and columns x0 ..
 * x1 - 1 (coordinates of the centres' region, whose (0, 0) is the tile's
 * (-f, -f), padded (m - f, m - f)).  */
static INLINE void
weight_sums_block_f (const nlm_tile *t, const int f, const nlm_scratch *s,
                     int y0, int y1, int x0, int x1)
{
  const int m = t->margin;
  const int n = round_lanes (x1 - x0);

  FOR_HALF_WINDOW (t->r, dy, dx)
    {
      /* Centres from dy rows above and from max (dx, 0) columns left of
       * the block: each centre p gets w (p, d) and w (p - d, d).  */
      const int left = dx > 0 ? dx : 0;
      const int wy0 = y0 - dy + m - f, wx0 = x0 - left + m - f;

      offset_weights (t, f, s, dy, dx, wy0, y1 + m - f, wx0,
                      round_lanes (n + (dx < 0 ? -dx : dx)));
      for (int y = y0; y < y1; y++)
        {
          const float *own = s->weights + (size_t) (y - y0 + dy) * s->row_floats
                             + left;
          const float *mirror = s->weights + (size_t) (y - y0) * s->row_floats
                                + left - dx;
          float *sum = t->wsum + (size_t) y * t->sums_pitch + x0;
          float *max = t->wmax + (size_t) y * t->sums_pitch + x0;

          add_weights (own, n, sum, max);
          add_weights (mirror, n, sum, max);
        }
    }
}

/* The block functions, built for the common patch radii as constants
 * (the loops across and down a patch unroll) and for any other.  */
HOT_LOOP static void
weight_sums_block (const nlm_tile *t, const nlm_scratch *s, int y0, int y1,
                   int x0, int x1)
{
  switch (t->f)
    {
    case 1: weight_sums_block_f (t, 1, s, y0, y1, x0, x1); break;
    case 2: weight_sums_block_f (t, 2, s, y0, y1, x0, x1); break;
    case 3: weight_sums_block_f (t, 3, s, y0, y1, x0, x1); break;
    default: weight_sums_block_f (t, t->f, s, y0, y1, x0, x1); break;
    }
}

/* 1 / C (p) and the centre patch's normalised weight.  A patch no other
 * patch resembles at all (every weight 0) keeps its own values.  */
HOT_LOOP static void
normalise_sums (float *restrict wsum, float *restrict wmax, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      float centre = wmax[i] > 0.0f ? wmax[i] : 1.0f;
      float inv = 1.0f / (wsum[i] + centre);

      wsum[i] = inv;
      wmax[i] = centre * inv;
    }
}

/* ---- aggregate (pass 2) -------------------------------------------------- */

/* The plain sum across 2f + 1 values of `in` (times `scale` first, when
 * given): the share of one row of patches in each pixel's estimate.  */
static INLINE void
box_across (const float *restrict in, const float *restrict scale, int side,
            int n_in, int n, float *restrict tmp, float *restrict out)
{
  if (scale)
    {
      for (int i = 0; i < n_in; i += LANES)
        VSTORE (tmp + i, VLOAD (in + i) * VLOAD (scale + i));
      in = tmp;
    }
  for (int i = 0; i < n; i += LANES)
    {
      vec_f sum = VLOAD (in + i);

      for (int k = 1; k < side; k++)
        sum += VLOAD (in + i + k);
      VSTORE (out + i, sum);
    }
}

/* Down 2f + 1 rows of those sums, times the noisy values from padded row
 * y, column x, into the block's output sums.  */
static INLINE void
add_estimates (const nlm_tile *t, const int f, float *const *boxes, int y,
               int x, int n, float *restrict acc, size_t acc_plane)
{
  const int side = 2 * f + 1;
  const size_t src = (size_t) y * t->pitch + x;

  for (int i = 0; i < n; i += LANES)
    {
      vec_f share = VLOAD (boxes[0] + i);

      for (int k = 1; k < side; k++)
        share += VLOAD (boxes[k] + i);
      for (int c = 0; c < t->channels; c++)
        {
          float *a = acc + c * acc_plane + i;

          VSTORE (a, VLOAD (a) + share * VLOAD (t->pad[c] + src + i));
        }
    }
}

/* The box of 2f + 1 rows of across-sums ending at centre row p (tile
 * coordinates) of ring `ring`.  */
static INLINE void
ring_rows (const nlm_scratch *s, float *ring, int side, int m, int p,
           float **rows)
{
  for (int k = 0; k < side; k++)
    rows[k] = ring + (size_t) ((p + m - side + 1 + k) % side) * s->row_floats;
}

/* Pass 2 for the tile's pixels in rows y0 .. y1 - 1, columns x0 .. x1 -
 * 1: their sums of patch estimates, times 1 / (2f + 1)^2, into `out`.
 * The patch centres covering them are rows y0 - f .. y1 + f - 1, columns
 * x0 - f ..; centre p's 1 / C is at region row p + f.  */
static INLINE void
aggregate_block_f (const nlm_tile *t, const int f, const nlm_scratch *s,
                   int y0, int y1, int x0, int x1, bm3d_planes *out)
{
  const int m = t->margin, side = 2 * f + 1;
  const int n_x = round_lanes (x1 - x0);         /* output columns       */
  const int n_c = round_lanes (n_x + 2 * f);     /* patch centres        */
  const size_t acc_plane = (size_t) BLOCK_ROWS * n_x;
  float *rows[2 * BM3D_NLM_PATCH_RADIUS_MAX + 1];

  memset (s->acc, 0, sizeof (float) * t->channels * acc_plane);

  /* The centre patch: its share was computed in pass 1.  */
  for (int p = y0 - f; p < y1 + f; p++)
    {
      box_across (t->wmax + (size_t) (p + f) * t->sums_pitch + x0, NULL,
                  side, n_c, n_x, NULL,
                  s->boxes[0] + (size_t) ((p + m) % side) * s->row_floats);
      if (p >= y0 + f)
        {
          ring_rows (s, s->boxes[0], side, m, p, rows);
          add_estimates (t, f, rows, p - f + m, x0 + m, n_x,
                         s->acc + (size_t) (p - f - y0) * n_x, acc_plane);
        }
    }

  FOR_HALF_WINDOW (t->r, dy, dx)
    {
      /* Weights of centres from dy rows above and max (dx, 0) columns
       * left of the covering centres: centre p takes w (p, d) for
       * u (x + d) and w (p - d, d) for u (x - d).  */
      const int left = dx > 0 ? dx : 0;
      const int wy0 = y0 - f - dy + m, wx0 = x0 - f - left + m;

      offset_weights (t, f, s, dy, dx, wy0, y1 + f + m, wx0,
                      round_lanes (n_c + (dx < 0 ? -dx : dx)));
      for (int p = y0 - f; p < y1 + f; p++)
        {
          const float *inv = t->wsum + (size_t) (p + f) * t->sums_pitch + x0;
          const float *own = s->weights + (size_t) (p + m - wy0) * s->row_floats
                             + left;
          const float *mirror = s->weights
                                + (size_t) (p + m - dy - wy0) * s->row_floats
                                + left - dx;
          const size_t slot = (size_t) ((p + m) % side) * s->row_floats;

          box_across (own, inv, side, n_c, n_x, s->share[0],
                      s->boxes[0] + slot);
          box_across (mirror, inv, side, n_c, n_x, s->share[1],
                      s->boxes[1] + slot);
          if (p >= y0 + f)
            {
              const int y = p - f;
              float *acc = s->acc + (size_t) (y - y0) * n_x;

              ring_rows (s, s->boxes[0], side, m, p, rows);
              add_estimates (t, f, rows, y + m + dy, x0 + m + dx, n_x, acc,
                             acc_plane);
              ring_rows (s, s->boxes[1], side, m, p, rows);
              add_estimates (t, f, rows, y + m - dy, x0 + m - dx, n_x, acc,
                             acc_plane);
            }
        }
    }

  for (int c = 0; c < t->channels; c++)
    for (int y = y0; y < y1; y++)
      {
        const float *a = s->acc + c * acc_plane + (size_t) (y - y0) * n_x;
        float *o = out->plane[c] + (size_t) y * t->width;

        for (int x = x0; x < x1; x++)
          o[x] = a[x - x0] * t->wt.inv_patches;
      }
}

HOT_LOOP static void
aggregate_block (const nlm_tile *t, const nlm_scratch *s, int y0, int y1,
                 int x0, int x1, bm3d_planes *out)
{
  switch (t->f)
    {
    case 1: aggregate_block_f (t, 1, s, y0, y1, x0, x1, out); break;
    case 2: aggregate_block_f (t, 2, s, y0, y1, x0, x1, out); break;
    case 3: aggregate_block_f (t, 3, s, y0, y1, x0, x1, out); break;
    default: aggregate_block_f (t, t->f, s, y0, y1, x0, x1, out); break;
    }
}

/* ---- the tile ----------------------------------------------------------- */

static int
current_thread (void)
{
#ifdef _OPENMP
  return omp_get_thread_num ();
#else
  return 0;
#endif
}

/* Run `pass` (0: weight sums over the centres' region, 1: aggregation
 * over the tile) block by block on the job's threads.  `done` and `share`
 * place the pass in the tile's progress.  */
static bm3d_status
run_blocks (nlm_tile *t, int pass, bm3d_planes *out, bm3d_job *job,
            float *scratch, size_t scratch_each, double done, double share)
{
  const int rows = pass == 0 ? t->height + 2 * t->f : t->height;
  const int cols = pass == 0 ? t->width + 2 * t->f : t->width;
  const int by = (rows + BLOCK_ROWS - 1) / BLOCK_ROWS;
  const int bx = (cols + t->cols_block - 1) / t->cols_block;
  const int blocks = by * bx;
  int workers = job->threads < blocks ? job->threads : blocks;
  int blocks_done = 0, cancelled = 0;

  if (workers < 1)
    workers = 1;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(workers)
#endif
  for (int b = 0; b < blocks; b++)
    {
      int tid = current_thread (), stop;
      float *base = scratch + scratch_each * tid;
      nlm_scratch s;
      int y0 = b / bx * BLOCK_ROWS, x0 = b % bx * t->cols_block;
      int y1 = y0 + BLOCK_ROWS < rows ? y0 + BLOCK_ROWS : rows;
      int x1 = x0 + t->cols_block < cols ? x0 + t->cols_block : cols;

#ifdef _OPENMP
#pragma omp atomic read
#endif
      stop = cancelled;
      if (stop)
        continue;
      scratch_layout (t, base, &s);
      if (pass == 0)
        weight_sums_block (t, &s, y0, y1, x0, x1);
      else
        aggregate_block (t, &s, y0, y1, x0, x1, out);

#ifdef _OPENMP
#pragma omp atomic
#endif
      blocks_done++;
      /* Progress and cancellation from the calling thread alone.  */
      if (tid == 0)
        {
          int n;

#ifdef _OPENMP
#pragma omp atomic read
#endif
          n = blocks_done;
          if (job->tick (job, done + share * n / blocks))
            {
#ifdef _OPENMP
#pragma omp atomic write
#endif
              cancelled = 1;
            }
        }
    }
  if (!cancelled && job->tick (job, done + share))
    cancelled = 1;
  if (cancelled)
    {
      bm3d_job_message (job, "cancelled");
      return BM3D_ERR_CANCELLED;
    }
  return BM3D_OK;
}

/* A tile side for tests that must see several tiles: BM3D_NLM_TILE_SIDE
 * in the environment, else `fallback`.  */
static int
tile_side_or (const bm3d_job *job, int fallback)
{
  int v = job->env.nlm_tile_side;

  return v > 0 ? v : fallback;
}

int
bm3d_nlm_cpu_tile_side (const bm3d_job *job)
{
  /* A 1024 + 2 x margin tile holds its planes three times (input,
   * padded copy, output) and two planes of sums: about 60 MB for
   * colour; the margin costs at most 10 % more work.  */
  return tile_side_or (job, 1024);
}

bm3d_status
bm3d_nlm_cpu_tile (const bm3d_planes *noisy, bm3d_planes *out,
                   bm3d_job *job)
{
  const bm3d_nlm_profile *p = &job->nlm;
  nlm_tile t;
  size_t pad_floats, sums_floats, scratch_each, scratch_floats_all, bytes;
  float *block;
  int workers;
  bm3d_status status;
  double t0;

  memset (&t, 0, sizeof t);
  t.width = noisy->width;
  t.height = noisy->height;
  t.channels = noisy->channels;
  t.f = p->patch_radius;
  t.r = p->search_radius;
  t.margin = 2 * t.f + t.r;
  t.cols_block = BLOCK_COLS;
  bm3d_nlm_weights_init (p, noisy->sigma[0], t.channels, &t.wt);
  /* Whole vectors past the last column and past the search window's
   * reach stay inside the row.  */
  t.pitch = round_lanes (t.width + 2 * t.margin + 8 * LANES);
  t.padded_height = t.height + 2 * t.margin;
  t.sums_pitch = round_lanes (t.width + 2 * t.f + 4 * LANES);

  pad_floats = (size_t) t.pitch * t.padded_height;
  sums_floats = (size_t) t.sums_pitch * (t.height + 2 * t.f);
  /* Each thread's share starts on a cache line.  */
  scratch_each = (scratch_layout (&t, NULL, NULL) + 15) & ~(size_t) 15;
  workers = job->threads > 0 ? job->threads : 1;
  scratch_floats_all = scratch_each * workers;
  bytes = sizeof (float) * (pad_floats * t.channels + 2 * sums_floats
                            + scratch_floats_all);
  block = bm3d_alloc (job, bytes);
  if (!block)
    {
      bm3d_job_message (job, "out of memory for a %dx%d NL-means tile "
                        "(%zu bytes of work space)", t.width, t.height,
                        bytes);
      return BM3D_ERR_OUT_OF_MEMORY;
    }
  for (int c = 0; c < t.channels; c++)
    t.pad[c] = block + pad_floats * c;
  t.wsum = block + pad_floats * t.channels;
  t.wmax = t.wsum + sums_floats;
  /* Defined values everywhere whole vectors reach past the data.  */
  memset (t.wsum, 0, sizeof (float) * (2 * sums_floats + scratch_floats_all));
  pad_tile (noisy, &t);

  t0 = bm3d_seconds ();
  status = run_blocks (&t, 0, out, job, t.wmax + sums_floats, scratch_each,
                       0.0, 0.4);
  if (status == BM3D_OK)
    normalise_sums (t.wsum, t.wmax, sums_floats);
  job->report->seconds_phase[0] += bm3d_seconds () - t0;
  if (status == BM3D_OK)
    {
      t0 = bm3d_seconds ();
      status = run_blocks (&t, 1, out, job, t.wmax + sums_floats,
                           scratch_each, 0.4, 0.6);
      job->report->seconds_phase[1] += bm3d_seconds () - t0;
    }
  bm3d_free (job, block, bytes);
  return status;
}
