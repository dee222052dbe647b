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
 * Both passes walk the tile in blocks of rows and columns, one OpenMP
 * thread per block; a block owns its output pixels, and every pixel sums
 * its offsets in the same order, so the result is bit-identical for any
 * thread count and for any tiling.  Each row of a block is a handful of
 * loops over contiguous floats that the compiler vectorises (built for
 * AVX2 and for any x86-64, target_clones as in bm3d_cpu.c); arrays are
 * padded so that every loop runs over whole vectors.  */
#include "config.h"

#include "engine.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 \
    && defined(__x86_64__) && defined(__linux__)
#define HOT_LOOP __attribute__ ((target_clones ("arch=x86-64-v3", "default")))
#else
#define HOT_LOOP
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
#define BLOCK_ROWS 32
#define BLOCK_COLS 128

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

/* In place: the weight 2^min (slope * s + offset, 0) of the patch
 * distance sums s.  2^trunc (t) comes from the exponent bits, 2^frac (t)
 * from a degree-5 polynomial fitted on [-1, 0] (relative error 2.4e-7 in
 * float).  Below 2^-126 a weight no longer matters and stays 2^-126, so
 * no denormal is ever made.  */
static INLINE void
weight_of (vec_f *v, float slope, float offset)
{
  const vec_f lowest = (vec_f) { 0.0f } - 126.0f;
  vec_f e = *v * slope + offset, f, p, scale;
  vec_i keep, k;

  keep = e < 0.0f;
  e = (vec_f) ((vec_i) e & keep);                   /* min (e, 0)       */
  keep = e > -126.0f;
  e = (vec_f) (((vec_i) e & keep) | ((vec_i) lowest & ~keep));
  k = __builtin_convertvector (e, vec_i);           /* toward zero      */
  f = e - __builtin_convertvector (k, vec_f);       /* in (-1, 0]       */
  p = f * 0.000943510851f + 0.00920217671f;
  p = p * f + 0.0552940406f;
  p = p * f + 0.240178898f;
  p = p * f + 0.693143547f;
  p = p * f + 1.0f;
  scale = (vec_f) ((k + 127) << 23);
  *v = p * scale;
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

/* One thread's rows of work (see scratch_floats).  */
typedef struct
{
  float *diff;       /* squared differences of one row                   */
  float *rows;       /* 2f + 1 rows of sums across the patch             */
  float *weight;     /* normalised weights of one row                    */
  float *boxes;      /* 2f + 1 rows of weights summed across the patch   */
  float *acc;        /* the block's output sums, channel after channel   */
} nlm_scratch;

static size_t
scratch_floats (const nlm_tile *t, int *row_floats)
{
  /* Rows are at most cols_block + 4f wide, plus whole-vector slack.  */
  int n = round_lanes (t->cols_block + 4 * t->f + 3 * LANES);
  int ring = 2 * t->f + 1;

  *row_floats = n;
  return (size_t) n * (2 + 2 * ring)
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
HOT_LOOP static void
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
HOT_LOOP static void
sum_across (const nlm_tile *t, const float *restrict in, int n,
            float *restrict out)
{
  const int side = 2 * t->f + 1;

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
sum_down (const nlm_tile *t, float *const *rows, int i, vec_f *out)
{
  const int side = 2 * t->f + 1;
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

/* ---- weight_sums (pass 1) ------------------------------------------------ */

/* A row of patch centres at one offset: their weights added to wsum,
 * the largest kept in wmax.  */
HOT_LOOP static void
add_weights (const nlm_tile *t, float *const *rows, int n,
             float *restrict wsum, float *restrict wmax)
{
  for (int i = 0; i < n; i += LANES)
    {
      vec_f w, m = VLOAD (wmax + i);
      vec_i more;

      sum_down (t, rows, i, &w);
      weight_of (&w, t->wt.slope, t->wt.offset);
      VSTORE (wsum + i, VLOAD (wsum + i) + w);
      more = w > m;
      VSTORE (wmax + i, (vec_f) (((vec_i) w & more) | ((vec_i) m & ~more)));
    }
}

/* Pass 1 over the patch centres of rows y0 .. y1 - 1 and columns x0 ..
 * x1 - 1 (coordinates of the centres' region, whose (0, 0) is the tile's
 * (-f, -f)).  */
static void
weight_sums_block (const nlm_tile *t, const nlm_scratch *s, int y0, int y1,
                   int x0, int x1)
{
  const int f = t->f, r = t->r, m = t->margin, side = 2 * f + 1;
  const int n_w = round_lanes (x1 - x0);
  const int n_d = round_lanes (n_w + 2 * f);
  int row_floats;
  float *ring[2 * BM3D_NLM_PATCH_RADIUS_MAX + 1];
  float *rows[2 * BM3D_NLM_PATCH_RADIUS_MAX + 1];

  scratch_floats (t, &row_floats);
  for (int k = 0; k < side; k++)
    ring[k] = s->rows + (size_t) k * row_floats;

  for (int dy = -r; dy <= r; dy++)
    for (int dx = -r; dx <= r; dx++)
      {
        if (dy == 0 && dx == 0)
          continue;
        /* Centre row y (region) is padded row y + m - f; its patch
         * reaches padded rows y + m - 2f .. y + m.  */
        for (int q = y0 - f; q < y1 + f; q++)
          {
            int py = q + m - f;

            diff_row (t, py, x0 + m - 2 * f, dy, dx, n_d, s->diff);
            sum_across (t, s->diff, n_w, ring[(py % side)]);
            if (q >= y0 + f)
              {
                int y = q - f;

                for (int k = 0; k < side; k++)
                  rows[k] = ring[(py - 2 * f + k) % side];
                add_weights (t, rows, n_w,
                             t->wsum + (size_t) y * t->sums_pitch + x0,
                             t->wmax + (size_t) y * t->sums_pitch + x0);
              }
          }
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

/* A row of patch centres at one offset: their weights times 1 / C.  */
HOT_LOOP static void
normalised_weights (const nlm_tile *t, float *const *rows, int n,
                    const float *restrict inv_sum, float *restrict out)
{
  for (int i = 0; i < n; i += LANES)
    {
      vec_f w;

      sum_down (t, rows, i, &w);
      weight_of (&w, t->wt.slope, t->wt.offset);
      VSTORE (out + i, w * VLOAD (inv_sum + i));
    }
}

/* The plain sum across 2f + 1 normalised weights: the share of the
 * offset in each pixel's estimate from the patches of one row.  */
HOT_LOOP static void
box_across (const float *restrict in, int side, int n, float *restrict out)
{
  for (int i = 0; i < n; i += LANES)
    {
      vec_f sum = VLOAD (in + i);

      for (int k = 1; k < side; k++)
        sum += VLOAD (in + i + k);
      VSTORE (out + i, sum);
    }
}

/* Down 2f + 1 rows of those sums, times the noisy values at the offset
 * from output row y (padded), column x, into the block's output sums.  */
HOT_LOOP static void
add_estimates (const nlm_tile *t, float *const *boxes, int y, int x, int dy,
               int dx, int n, float *restrict acc, size_t acc_plane)
{
  const int side = 2 * t->f + 1;
  const size_t src = (size_t) (y + dy) * t->pitch + x + dx;

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

/* Pass 2 for the tile's pixels in rows y0 .. y1 - 1, columns x0 .. x1 -
 * 1: their sums of patch estimates, times 1 / (2f + 1)^2, into `out`.  */
static void
aggregate_block (const nlm_tile *t, const nlm_scratch *s, int y0, int y1,
                 int x0, int x1, bm3d_planes *out)
{
  const int f = t->f, r = t->r, m = t->margin, side = 2 * f + 1;
  const int n_x = round_lanes (x1 - x0);         /* output columns       */
  const int n_w = round_lanes (n_x + 2 * f);     /* patch centres        */
  const int n_d = round_lanes (n_w + 2 * f);     /* squared differences  */
  const size_t acc_plane = (size_t) BLOCK_ROWS * n_x;
  int row_floats;
  float *ring[2 * BM3D_NLM_PATCH_RADIUS_MAX + 1];
  float *box[2 * BM3D_NLM_PATCH_RADIUS_MAX + 1];
  float *rows[2 * BM3D_NLM_PATCH_RADIUS_MAX + 1];

  scratch_floats (t, &row_floats);
  for (int k = 0; k < side; k++)
    {
      ring[k] = s->rows + (size_t) k * row_floats;
      box[k] = s->boxes + (size_t) k * row_floats;
    }
  memset (s->acc, 0, sizeof (float) * t->channels * acc_plane);

  for (int dy = -r; dy <= r; dy++)
    for (int dx = -r; dx <= r; dx++)
      {
        /* Patch centres of rows y0 - f .. y1 + f - 1 (tile coordinates)
         * cover the block's rows; centre row p is padded row p + m, its
         * region row p + f.  */
        for (int q = y0 - 2 * f; q < y1 + 2 * f; q++)
          {
            int py = q + m;           /* padded row of this step's input */
            int p;                    /* centre row now complete         */

            if (dy == 0 && dx == 0)
              {
                /* The centre patch: its weight is the precomputed
                 * share, no distance to compute.  */
                p = q;
                if (p < y0 - f || p >= y1 + f)
                  continue;
                memcpy (s->weight, t->wmax + (size_t) (p + f) * t->sums_pitch
                                   + x0, sizeof (float) * n_w);
              }
            else
              {
                diff_row (t, py, x0 + m - 2 * f, dy, dx, n_d, s->diff);
                sum_across (t, s->diff, n_w, ring[py % side]);
                if (q < y0)
                  continue;
                p = q - f;
                for (int k = 0; k < side; k++)
                  rows[k] = ring[(py - 2 * f + k) % side];
                normalised_weights (t, rows, n_w,
                                    t->wsum + (size_t) (p + f) * t->sums_pitch
                                    + x0, s->weight);
              }
            box_across (s->weight, side, n_x, box[(p + m) % side]);
            if (p >= y0 + f)
              {
                int y = p - f;

                for (int k = 0; k < side; k++)
                  rows[k] = box[(y + m - f + k) % side];
                add_estimates (t, rows, y + m, x0 + m, dy, dx, n_x,
                               s->acc + (size_t) (y - y0) * n_x, acc_plane);
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
  int blocks_done = 0, cancelled = 0, row_floats;

  scratch_floats (t, &row_floats);
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
      s.diff = base;
      s.weight = s.diff + row_floats;
      s.rows = s.weight + row_floats;
      s.boxes = s.rows + (size_t) row_floats * (2 * t->f + 1);
      s.acc = s.boxes + (size_t) row_floats * (2 * t->f + 1);
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
tile_side_or (int fallback)
{
  const char *env = getenv ("BM3D_NLM_TILE_SIDE");
  int v = env ? atoi (env) : 0;

  return v > 0 ? v : fallback;
}

int
bm3d_nlm_cpu_tile_side (const bm3d_job *job)
{
  /* A 1024 + 2 x margin tile holds its planes three times (input,
   * padded copy, output) and two planes of sums: about 60 MB for
   * colour; the margin costs at most 10 % more work.  */
  (void) job;
  return tile_side_or (1024);
}

bm3d_status
bm3d_nlm_cpu_tile (const bm3d_planes *noisy, bm3d_planes *out,
                   bm3d_job *job)
{
  const bm3d_nlm_profile *p = &job->nlm;
  nlm_tile t;
  size_t pad_floats, sums_floats, scratch_each, scratch_floats_all, bytes;
  float *block;
  int workers, row_floats;
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
  t.pitch = round_lanes (t.width + 2 * t.margin + 4 * LANES);
  t.padded_height = t.height + 2 * t.margin;
  t.sums_pitch = round_lanes (t.width + 2 * t.f + 4 * LANES);

  pad_floats = (size_t) t.pitch * t.padded_height;
  sums_floats = (size_t) t.sums_pitch * (t.height + 2 * t.f);
  /* Each thread's share starts on a cache line.  */
  scratch_each = (scratch_floats (&t, &row_floats) + 15) & ~(size_t) 15;
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
