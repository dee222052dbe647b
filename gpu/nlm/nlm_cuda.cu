/* BM3D Denoise — non-local means on CUDA, with the steps of nlm_cpu.c.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The patch-wise NL-means of nlm_cpu.c (see there for the algorithm):
 *
 *   pad_tile     each block reads its window of the tile (its pixels plus
 *                the patches' and the search window's reach) into shared
 *                memory once, reflecting at the tile's border as the CPU
 *                does;
 *   weight_sums  pass 1: a lane per column of patch centres, a warp per
 *                NLM_ROWS rows of them; for each pair of offsets (the
 *                centre's values read once for both) the warp walks
 *                down its rows: squared differences of the planes, the
 *                sum across the patch from the neighbouring lanes
 *                (shuffles), the sum down the patch from the last 2f + 1
 *                rows kept in registers, the weight; each centre's sum and
 *                largest weight stay in registers over all offsets, and
 *                only 1 / C and the centre's share are written;
 *   aggregate    pass 2: the same walk, two patches further, for the
 *                output pixels: normalised weights, summed across (lanes)
 *                and down (registers) the box of patches covering each
 *                pixel, times the noisy value at the offset (kept from the
 *                walk), added into per-pixel sums in registers.
 *
 * Nothing goes through global memory per offset.  The arithmetic is the
 * CPU's, step for step and in the same order (fused multiply-adds where
 * the CPU's AVX2 build fuses them); only 2^x differs (the hardware's
 * approximation here, a polynomial there), by a few units in the last
 * place.
 *
 * A tile is launched in batches of blocks so that progress can be
 * reported and cancelling stops within a batch.  Every batch but the
 * last is a whole number of waves (the blocks the GPU runs at once):
 * the blocks all take the same time, so a batch ending in a partial
 * wave would leave most multiprocessors idle while it finishes.  */
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/cuda_device.cuh"

/* Rows of centres (pass 1) or pixels (pass 2) a warp walks per offset:
 * enough that the 2f or 4f rows a walk needs before its first result
 * cost little, few enough that its sums stay in registers (fewer for the
 * large patches, which need more registers for their rows).  */
#define NLM_ROWS(F)    ((F) <= 3 ? 16 : 8)
/* Warps stacked in a block; they share the block's window.  */
#define NLM_WARPS_MAX  8
/* At most this many launches per pass of a tile, for progress.  */
#define NLM_BATCHES    8
#define FULL_MASK      0xffffffffu

/* The patch's taps (1 for the plain mean; see bm3d_nlm_weights).  */
__constant__ float c_taps[2 * BM3D_NLM_PATCH_RADIUS_MAX + 1];

typedef struct
{
  const float *plane[BM3D_MAX_CHANNELS];   /* the tile, width x height   */
  int          width, height;
  int          r;                          /* search radius              */
  float        slope, offset, inv_patches;
  int          warps;
  int          x0, y0, x1, y1;             /* what the pass computes     */
  int          grid_x;                     /* blocks across              */
  int          block0;                     /* first block of a batch     */
  /* Patch centres: rows sums_y0 .. sums_y1 - 1, columns sums_x0 ..
   * sums_x1 - 1 of the tile (the tile's margin of f included), rows of
   * sums_pitch floats: 1 / C and the centre patch's normalised weight.  */
  float       *inv_sum;
  float       *centre;
  int          sums_x0, sums_y0, sums_x1, sums_y1, sums_pitch;
  float       *out[BM3D_MAX_CHANNELS];     /* tile-sized planes          */
} nlm_args;

typedef void (*nlm_kernel) (nlm_args);

/* ---- device helpers ------------------------------------------------------- */

/* nlm_cpu.c's reflect: ... 1 0 | 0 1 ... n-1 | n-1 n-2 ..., periodic.  */
__device__ __forceinline__ int
reflect (int i, int n)
{
  const int period = 2 * n;

  i %= period;
  if (i < 0)
    i += period;
  return i < n ? i : period - 1 - i;
}

/* pad_tile: the window of the tile starting at (wx0, wy0), wc x wr
 * pixels, channel after channel.  */
template <int C>
__device__ void
load_window (float *win, const nlm_args &a, int wx0, int wy0, int wc, int wr)
{
  const int n = wc * wr;

  for (int i = threadIdx.x; i < n; i += blockDim.x)
    {
      const int row = i / wc, col = i - row * wc;
      const size_t src = (size_t) reflect (wy0 + row, a.height) * a.width
                         + reflect (wx0 + col, a.width);

#pragma unroll
      for (int c = 0; c < C; c++)
        win[c * n + i] = a.plane[c][src];
    }
}

/* Squared differences summed over the channels (diff_row's arithmetic),
 * window index a against two offsets of it, b0 and b1: the centre's
 * values are read once for both.  */
template <int C>
__device__ __forceinline__ void
diff_sq_pair (const float *win, int n, int a, int b0, int b1, float &s0,
              float &s1)
{
  float v = win[a], d0 = v - win[b0], d1 = v - win[b1];

  s0 = d0 * d0;
  s1 = d1 * d1;
#pragma unroll
  for (int c = 1; c < C; c++)
    {
      v = win[c * n + a];
      d0 = v - win[c * n + b0];
      d1 = v - win[c * n + b1];
      s0 = fmaf (d0, d0, s0);
      s1 = fmaf (d1, d1, s1);
    }
}

/* The search offsets in raster order, (0, 0) left out: from (-r, -r),
 * the one after (dy, dx).  There are 4r^2 + 4r of them, an even count,
 * so pass 1 can take them two at a time.  */
__device__ __forceinline__ void
next_offset (int &dy, int &dx, int r)
{
  if (++dx > r)
    {
      dx = -r;
      dy++;
    }
  if (dy == 0 && dx == 0)
    dx = 1;
}

/* The same when the values at the offset, sh[c], are already loaded.  */
template <int C>
__device__ __forceinline__ float
diff_sq_at (const float *win, int n, int a, const float (&sh)[C])
{
  float d = win[a] - sh[0];
  float s = d * d;

#pragma unroll
  for (int c = 1; c < C; c++)
    {
      d = win[c * n + a] - sh[c];
      s = fmaf (d, d, s);
    }
  return s;
}

/* sum_across: the lanes lane - f .. lane + f, tap-weighted, in that
 * order (multiplying by a tap of 1 and adding is exact: the box's plain
 * sums).  Lanes near the warp's edge get junk; they are never used.  */
template <int F>
__device__ __forceinline__ float
across (float v, int lane)
{
  float s = __shfl_sync (FULL_MASK, v, lane - F) * c_taps[0];

#pragma unroll
  for (int k = 1; k <= 2 * F; k++)
    s = fmaf (k == F ? v : __shfl_sync (FULL_MASK, v, lane - F + k),
              c_taps[k], s);
  return s;
}

/* box_across: the plain sum of lanes lane - f .. lane + f.  */
template <int F>
__device__ __forceinline__ float
box_across (float v, int lane)
{
  float s = __shfl_sync (FULL_MASK, v, lane - F);

#pragma unroll
  for (int k = 1; k <= 2 * F; k++)
    s += k == F ? v : __shfl_sync (FULL_MASK, v, lane - F + k);
  return s;
}

/* A shift register of the last N rows: ring[0] oldest.  */
template <int N>
__device__ __forceinline__ void
push (float (&ring)[N], float v)
{
#pragma unroll
  for (int k = 0; k < N - 1; k++)
    ring[k] = ring[k + 1];
  ring[N - 1] = v;
}

/* 2^e, the same value as exp2f (the same hardware approximation), and
 * 0 where that would be below 2^-126, the smallest normal float: the
 * weights' cutoff (bm3d_tables.h), with no instruction spent on it.  */
__device__ __forceinline__ float
exp2_ftz (float e)
{
  float v;

  asm ("ex2.approx.ftz.f32 %0, %1;" : "=f" (v) : "f" (e));
  return v;
}

/* sum_down and weight_of: the weight of the patch whose across-sums are
 * in `ring`.  */
template <int F>
__device__ __forceinline__ float
weight_of (const float (&ring)[2 * F + 1], float slope, float offset)
{
  float s = ring[0] * c_taps[0], e;

#pragma unroll
  for (int k = 1; k <= 2 * F; k++)
    s = fmaf (ring[k], c_taps[k], s);
  e = fmaf (s, slope, offset);
  return exp2_ftz (fminf (e, BM3D_NLM_WEIGHT_TOP));
}

/* The first result column and row of this block, block a.block0 +
 * blockIdx.x of a pass whose blocks are a.grid_x across and hold cols x
 * rows results.  The block index is read through a volatile asm so that
 * the compiler derives the origin again where it is needed instead of
 * holding it in registers through the offset loop, where every register
 * is in use.  */
__device__ __forceinline__ int2
block_origin (const nlm_args &a, int cols, int rows)
{
  int id, block;

  asm volatile ("mov.u32 %0, %%ctaid.x;" : "=r" (id));
  block = a.block0 + id;
  return make_int2 (a.x0 + block % a.grid_x * cols,
                    a.y0 + block / a.grid_x * rows);
}

/* ---- weight_sums (pass 1) --------------------------------------------------- */

template <int F, int C>
__global__ void __launch_bounds__ (NLM_WARPS_MAX * 32, F <= 3 ? 2 : 1)
weight_sums (nlm_args a)
{
  extern __shared__ float win[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int cols = 32 - 2 * F;
  /* Lane l's column of squared differences; a centre when f <= l <
   * 32 - f.  */
  const int rows = a.warps * NLM_ROWS (F);
  int2 origin = block_origin (a, cols, rows);
  const int wc = 32 + 2 * a.r;
  const int wr = rows + 2 * F + 2 * a.r;
  const int n = wc * wr;
  /* Window row of the warp's first row of differences (centre row - f)
   * and column of the lane.  */
  const int row0 = warp * NLM_ROWS (F) + a.r, col = lane + a.r;
  float sum[NLM_ROWS (F)], best[NLM_ROWS (F)];

  load_window<C> (win, a, origin.x - F - a.r, origin.y - F - a.r, wc, wr);
  __syncthreads ();

#pragma unroll
  for (int i = 0; i < NLM_ROWS (F); i++)
    sum[i] = best[i] = 0.0f;

  /* Two offsets per step, the second's weight added after the first's
   * (the CPU's order), sharing the reads of the centre rows.  */
  for (int k = 0, dy = -a.r, dx = -a.r; k < 4 * a.r * (a.r + 1); k += 2)
    {
      int dy1 = dy, dx1 = dx;
      float ring0[2 * F + 1], ring1[2 * F + 1];

      next_offset (dy1, dx1, a.r);
      const int b0 = dy * wc + dx, b1 = dy1 * wc + dx1;
#pragma unroll
      for (int j = 0; j < 2 * F; j++)
        {
          const int at = (row0 + j) * wc + col;
          float s0, s1;

          diff_sq_pair<C> (win, n, at, at + b0, at + b1, s0, s1);
          push (ring0, across<F> (s0, lane));
          push (ring1, across<F> (s1, lane));
        }
#pragma unroll
      for (int i = 0; i < NLM_ROWS (F); i++)
        {
          const int at = (row0 + 2 * F + i) * wc + col;
          float s0, s1, w;

          diff_sq_pair<C> (win, n, at, at + b0, at + b1, s0, s1);
          push (ring0, across<F> (s0, lane));
          push (ring1, across<F> (s1, lane));
          w = weight_of<F> (ring0, a.slope, a.offset);
          sum[i] += w;
          best[i] = w > best[i] ? w : best[i];
          w = weight_of<F> (ring1, a.slope, a.offset);
          sum[i] += w;
          best[i] = w > best[i] ? w : best[i];
        }
      dy = dy1;
      dx = dx1;
      next_offset (dy, dx, a.r);
    }

  origin = block_origin (a, cols, rows);
  const int x = origin.x - F + lane;
  if (lane < F || lane >= 32 - F || x >= a.x1)
    return;
#pragma unroll
  for (int i = 0; i < NLM_ROWS (F); i++)
    {
      const int y = origin.y + warp * NLM_ROWS (F) + i;

      if (y < a.y1)
        {
          /* normalise_sums: a patch no other resembles keeps itself.  */
          const float centre = best[i] > 0.0f ? best[i] : 1.0f;
          const float inv = 1.0f / (sum[i] + centre);
          const size_t o = (size_t) (y - a.sums_y0) * a.sums_pitch
                           + (x - a.sums_x0);

          a.inv_sum[o] = inv;
          a.centre[o] = centre * inv;
        }
    }
}

/* ---- aggregate (pass 2) ------------------------------------------------------ */

/* This lane's column and the warp's first output row (block_origin's,
 * so derived where used).  */
template <int F>
__device__ __forceinline__ int2
output_origin (const nlm_args &a, int lane, int warp)
{
  const int2 o = block_origin (a, 32 - 4 * F, a.warps * NLM_ROWS (F));

  return make_int2 (o.x - 2 * F + lane, o.y + warp * NLM_ROWS (F));
}

/* One value of a sums plane, or 0 outside the centres it holds (lanes and
 * rows whose results are not used).  */
__device__ __forceinline__ float
sums_at (const nlm_args &a, const float *plane, int y, int x)
{
  if (y < a.sums_y0 || y >= a.sums_y1 || x < a.sums_x0 || x >= a.sums_x1)
    return 0.0f;
  return plane[(size_t) (y - a.sums_y0) * a.sums_pitch + (x - a.sums_x0)];
}

template <int F, int C>
__global__ void __launch_bounds__ (NLM_WARPS_MAX * 32, F <= 3 ? 2 : 1)
aggregate (nlm_args a)
{
  extern __shared__ float win[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int cols = 32 - 4 * F;
  /* Lane l's column: of differences, of patch centres, and of output
   * pixels (when 2f <= l < 32 - 2f).  */
  const int rows = a.warps * NLM_ROWS (F);
  const int2 origin = block_origin (a, cols, rows);
  const int wc = 32 + 2 * a.r;
  const int wr = rows + 4 * F + 2 * a.r;
  const int n = wc * wr;
  const int row0 = warp * NLM_ROWS (F) + a.r, col = lane + a.r;
  int2 at = output_origin<F> (a, lane, warp);
  float acc[NLM_ROWS (F)][C];
  float inv[NLM_ROWS (F) + 2 * F];                  /* 1 / C of its centres    */

  load_window<C> (win, a, origin.x - 2 * F - a.r, origin.y - 2 * F - a.r, wc,
                  wr);
#pragma unroll
  for (int i = 0; i < NLM_ROWS (F) + 2 * F; i++)
    inv[i] = sums_at (a, a.inv_sum, at.y - F + i, at.x);
#pragma unroll
  for (int i = 0; i < NLM_ROWS (F); i++)
#pragma unroll
    for (int c = 0; c < C; c++)
      acc[i][c] = 0.0f;
  __syncthreads ();

  for (int dy = -a.r; dy <= a.r; dy++)
    for (int dx = -a.r; dx <= a.r; dx++)
      {
        float boxes[2 * F + 1];

        if (dy == 0 && dx == 0)
          {
            /* The centre patch: its precomputed share, no distance.  */
            at = output_origin<F> (a, lane, warp);
#pragma unroll
            for (int j = 0; j < 2 * F; j++)
              push (boxes, box_across<F> (sums_at (a, a.centre, at.y - F + j,
                                                   at.x), lane));
#pragma unroll
            for (int i = 0; i < NLM_ROWS (F); i++)
              {
                float share;

                push (boxes, box_across<F> (sums_at (a, a.centre,
                                                     at.y + F + i, at.x),
                                            lane));
                share = boxes[0];
#pragma unroll
                for (int k = 1; k <= 2 * F; k++)
                  share += boxes[k];
#pragma unroll
                for (int c = 0; c < C; c++)
                  acc[i][c] = fmaf (share, win[c * n + (row0 + 2 * F + i) * wc
                                               + col], acc[i][c]);
              }
            continue;
          }

        float ring[2 * F + 1];
        float shifted[C][2 * F + 1];   /* noisy values at the offset */

        /* Rows of differences 0 .. 4f - 1: the first 2f centres.  */
#pragma unroll
        for (int j = 0; j < 4 * F; j++)
          {
            const int row = row0 + j;
            float sh[C];

#pragma unroll
            for (int c = 0; c < C; c++)
              {
                sh[c] = win[c * n + (row + dy) * wc + col + dx];
                push (shifted[c], sh[c]);
              }
            push (ring, across<F> (diff_sq_at<C> (win, n, row * wc + col, sh),
                                   lane));
            if (j >= 2 * F)
              push (boxes, box_across<F> (weight_of<F> (ring, a.slope,
                                                         a.offset)
                                          * inv[j - 2 * F], lane));
          }
#pragma unroll
        for (int i = 0; i < NLM_ROWS (F); i++)
          {
            const int row = row0 + 4 * F + i;
            float share, sh[C];

#pragma unroll
            for (int c = 0; c < C; c++)
              {
                sh[c] = win[c * n + (row + dy) * wc + col + dx];
                push (shifted[c], sh[c]);
              }
            push (ring, across<F> (diff_sq_at<C> (win, n, row * wc + col, sh),
                                   lane));
            push (boxes, box_across<F> (weight_of<F> (ring, a.slope, a.offset)
                                        * inv[2 * F + i], lane));
            share = boxes[0];
#pragma unroll
            for (int k = 1; k <= 2 * F; k++)
              share += boxes[k];
#pragma unroll
            for (int c = 0; c < C; c++)
              acc[i][c] = fmaf (share, shifted[c][0], acc[i][c]);
          }
      }

  at = output_origin<F> (a, lane, warp);
  if (lane < 2 * F || lane >= 32 - 2 * F || at.x >= a.x1)
    return;
#pragma unroll
  for (int i = 0; i < NLM_ROWS (F); i++)
    {
      const int y = at.y + i;

      if (y < a.y1)
#pragma unroll
        for (int c = 0; c < C; c++)
          a.out[c][(size_t) y * a.width + at.x] = acc[i][c] * a.inv_patches;
    }
}

/* ---- host side ---------------------------------------------------------------- */

/* Every patch radius the options allow, 0 (single pixels) to 7.  */
#define NLM_KERNELS(kernel, C)                                          \
  { kernel<0, C>, kernel<1, C>, kernel<2, C>, kernel<3, C>,             \
    kernel<4, C>, kernel<5, C>, kernel<6, C>, kernel<7, C> }

static const nlm_kernel weight_sums_kernels[2][BM3D_NLM_PATCH_RADIUS_MAX + 1] =
{
  NLM_KERNELS (weight_sums, 1), NLM_KERNELS (weight_sums, 3)
};
static const nlm_kernel aggregate_kernels[2][BM3D_NLM_PATCH_RADIUS_MAX + 1] =
{
  NLM_KERNELS (aggregate, 1), NLM_KERNELS (aggregate, 3)
};

/* Shared bytes of a block of `warps` warps: its window.  */
static size_t
window_bytes (int warps, int f, int halo, int r, int channels)
{
  return sizeof (float) * channels * (size_t) (32 + 2 * r)
         * (warps * NLM_ROWS (f) + 2 * halo + 2 * r);
}

/* How a pass is launched.  */
typedef struct
{
  int    warps;        /* per block                                    */
  int    grid_x;       /* blocks across                                */
  int    block_rows;   /* blocks down                                  */
  int    per_batch;    /* blocks per launch                            */
  int    batches;
  size_t smem;         /* the window's bytes                           */
} nlm_plan;

/* The plan of a pass over `width` x `rows` results whose rows reach
 * `halo` beyond its blocks.  Warps per block: the most (up to 8) whose
 * window lets two blocks share a multiprocessor (else the most that fit
 * at all), fewer while that leaves fewer than two blocks per
 * multiprocessor, so small images still fill the GPU.  Returns 0 when
 * not even one warp's window fits (a search window too large for this
 * GPU).  plan_batches then splits the blocks into launches.  */
static int
plan_pass (const bm3d_cuda_device *dev, int f, int halo, int r, int channels,
           int width, int rows, nlm_plan *pl)
{
  const size_t limit = (size_t) dev->smem_optin;
  const int cols = 32 - 2 * halo;
  const int sms = dev->sm_count > 0 ? dev->sm_count : 1;
  int w = 0;

  for (int k = NLM_WARPS_MAX; k >= 1 && !w; k /= 2)
    if (window_bytes (k, f, halo, r, channels) <= limit / 2)
      w = k;
  for (int k = NLM_WARPS_MAX; k >= 1 && !w; k /= 2)
    if (window_bytes (k, f, halo, r, channels) <= limit)
      w = k;
  if (!w)
    return 0;
  pl->grid_x = (width + cols - 1) / cols;
  for (;;)
    {
      pl->block_rows = (rows + w * NLM_ROWS (f) - 1) / (w * NLM_ROWS (f));
      if (w == 1 || (size_t) pl->grid_x * pl->block_rows >= 2 * (size_t) sms)
        break;
      w /= 2;
    }
  pl->warps = w;
  pl->smem = window_bytes (w, f, halo, r, channels);
  return 1;
}

/* The launches of a planned pass of `kernel`: whole waves each (the
 * blocks all multiprocessors hold at once), at least four blocks per
 * multiprocessor, up to NLM_BATCHES launches for progress; the last
 * takes what is left.  */
static bm3d_status
plan_batches (bm3d_job *job, nlm_kernel kernel, nlm_plan *pl)
{
  const bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const int sms = dev->sm_count > 0 ? dev->sm_count : 1;
  const int blocks = pl->grid_x * pl->block_rows;
  int per_sm = 0, wave, waves, per_launch;

  BM3D_CUDA_CHECK (job, cudaFuncSetAttribute ((const void *) kernel,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              (int) pl->smem));
  BM3D_CUDA_CHECK (job, cudaOccupancyMaxActiveBlocksPerMultiprocessor
                          (&per_sm, kernel, pl->warps * 32, pl->smem));
  wave = (per_sm > 0 ? per_sm : 1) * sms;
  waves = (blocks + wave - 1) / wave;
  per_launch = (waves + NLM_BATCHES - 1) / NLM_BATCHES;
  if (per_launch * wave < 4 * sms)
    per_launch = (4 * sms + wave - 1) / wave;
  pl->per_batch = per_launch * wave < blocks ? per_launch * wave : blocks;
  pl->batches = blocks > 0 ? (blocks + pl->per_batch - 1) / pl->per_batch : 0;
  return BM3D_OK;
}

/* A tile side for tests that must see several tiles: BM3D_NLM_TILE_SIDE
 * in the environment (then whole images go through the host's tiler
 * too), else 0.  */
static int
forced_tile_side (const bm3d_job *job)
{
  int v = job->env.nlm_tile_side;

  return v > 0 ? v : 0;
}

/* Bytes per tile pixel on the device: the planes, the output planes and
 * the two sums planes.  */
static size_t
tile_bytes_per_pixel (int colour)
{
  return sizeof (float) * (2 * (size_t) colour + 2);
}

extern "C" int
bm3d_nlm_cuda_tile_side (const bm3d_job *job)
{
  size_t budget = bm3d_cuda_budget_for (job);
  int side = forced_tile_side (job);

  if (side > 0)
    return side;
  side = (int) sqrt ((double) (budget / tile_bytes_per_pixel (job->channels)))
         - 2 * job->margin;
  if (side > 4096)
    side = 4096;
  if (side < 256)
    side = 256;
  return side;
}

/* One pass over a rectangle in batches of blocks, with progress:
 * `done` of `total` batches of the tile are finished before it.  */
static bm3d_status
run_pass (bm3d_job *job, nlm_kernel kernel, nlm_args a, const nlm_plan *pl,
          int *done, int total)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const int blocks = pl->grid_x * pl->block_rows;
  int b = 0;

  if (pl->batches < 1)
    return BM3D_OK;
  a.warps = pl->warps;
  a.grid_x = pl->grid_x;
  for (int first = 0; first < blocks; first += pl->per_batch, b++)
    {
      const int n = first + pl->per_batch < blocks
                    ? pl->per_batch : blocks - first;

      a.block0 = first;
      kernel<<<n, pl->warps * 32, pl->smem, dev->stream>>> (a);
      BM3D_CUDA_CHECK_LAUNCH (job, "an NL-means kernel");
      /* Keep one batch queued behind the one waited for, so the device
       * never idles while the host reports progress.  */
      BM3D_CUDA_CHECK (job, cudaEventRecord (dev->batch_done[b & 1],
                                             dev->stream));
      if (b > 0)
        {
          BM3D_CUDA_CHECK (job, cudaEventSynchronize (dev->batch_done[(b - 1)
                                                                      & 1]));
          ++*done;
          if (job->tick (job, (double) *done / total))
            {
              BM3D_CUDA_CHECK (job, cudaStreamSynchronize (dev->stream));
              bm3d_job_message (job, "cancelled");
              return BM3D_ERR_CANCELLED;
            }
        }
    }
  ++*done;
  return BM3D_OK;
}

/* Device buffers of one tile.  */
typedef struct
{
  float *plane[BM3D_MAX_CHANNELS];    /* the tile's planes               */
  float *out[BM3D_MAX_CHANNELS];      /* its result (tile-sized planes)  */
  float *inv_sum, *centre;            /* pass 1's planes                 */
  size_t sums_floats;                 /* room in each of those           */
} nlm_buffers;

static size_t
round_floats (size_t n)
{
  return (n + 63) & ~(size_t) 63;
}

/* Floats of one plane and of one sums plane of tiles of at most max_w x
 * max_h pixels.  */
static void
buffer_floats (int max_w, int max_h, int f, size_t *plane, size_t *sums)
{
  *plane = round_floats ((size_t) max_w * max_h);
  *sums = round_floats ((size_t) (max_w + 2 * f + 31) / 32 * 32
                        * (max_h + 2 * f));
}

/* Bytes of the buffers of such tiles.  */
static size_t
buffers_bytes (int max_w, int max_h, int colour, int f)
{
  size_t plane, sums;

  buffer_floats (max_w, max_h, f, &plane, &sums);
  return sizeof (float) * (2 * colour * plane + 2 * sums);
}

/* Those buffers, carved from `base`.  */
static void
buffers_carve (float *base, int max_w, int max_h, int colour, int f,
               nlm_buffers *tb)
{
  size_t plane, sums;

  buffer_floats (max_w, max_h, f, &plane, &sums);
  memset (tb, 0, sizeof *tb);
  for (int c = 0; c < colour; c++)
    {
      tb->plane[c] = base + c * plane;
      tb->out[c] = base + (colour + c) * plane;
    }
  tb->inv_sum = base + 2 * colour * plane;
  tb->centre = tb->inv_sum + sums;
  tb->sums_floats = sums;
}

/* Both passes over a tile of width x height whose planes are (being)
 * uploaded into tb: results for the pixels (x0, y0) .. (x1 - 1, y1 - 1)
 * in tb->out.  Adds the passes' GPU times to the report.  */
static bm3d_status
tile_denoise (const nlm_buffers *tb, int width, int height, int colour,
              int x0, int y0, int x1, int y1, bm3d_job *job)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const bm3d_nlm_profile *p = &job->nlm;
  const int f = p->patch_radius;
  bm3d_nlm_weights wt;
  nlm_args a;
  nlm_plan plan1, plan2;
  int done = 0, total;
  bm3d_status status;
  float ms;

  if (f < 0 || f > BM3D_NLM_PATCH_RADIUS_MAX || p->search_radius < 1
      || p->search_radius > BM3D_NLM_SEARCH_RADIUS_MAX)
    {
      bm3d_job_message (job, "CUDA backend: NL-means patch radius %d or "
                        "search radius %d out of range", f,
                        p->search_radius);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  bm3d_nlm_weights_init (p, job->sigma[0], colour, &wt);
  if (!plan_pass (dev, f, f, p->search_radius, colour, x1 - x0 + 2 * f,
                  y1 - y0 + 2 * f, &plan1)
      || !plan_pass (dev, f, 2 * f, p->search_radius, colour, x1 - x0,
                     y1 - y0, &plan2))
    {
      bm3d_job_message (job, "CUDA backend: a %dx%d NL-means search window "
                        "with %dx%d patches needs more shared memory than "
                        "this GPU has (%d bytes a block)",
                        2 * p->search_radius + 1, 2 * p->search_radius + 1,
                        2 * f + 1, 2 * f + 1, dev->smem_optin);
      return BM3D_ERR_BACKEND_FAILED;
    }
  if ((status = plan_batches (job, weight_sums_kernels[colour == 3][f],
                              &plan1)) != BM3D_OK
      || (status = plan_batches (job, aggregate_kernels[colour == 3][f],
                                 &plan2)) != BM3D_OK)
    return status;
  BM3D_CUDA_CHECK (job, cudaMemcpyToSymbolAsync (c_taps, wt.taps,
                                                 sizeof wt.taps, 0,
                                                 cudaMemcpyHostToDevice,
                                                 dev->stream));

  memset (&a, 0, sizeof a);
  for (int c = 0; c < colour; c++)
    {
      a.plane[c] = tb->plane[c];
      a.out[c] = tb->out[c];
    }
  a.width = width;
  a.height = height;
  a.r = p->search_radius;
  a.slope = wt.slope;
  a.offset = wt.offset;
  a.inv_patches = wt.inv_patches;
  a.inv_sum = tb->inv_sum;
  a.centre = tb->centre;
  a.sums_x0 = x0 - f;
  a.sums_y0 = y0 - f;
  a.sums_x1 = x1 + f;
  a.sums_y1 = y1 + f;
  a.sums_pitch = (x1 - x0 + 2 * f + 31) / 32 * 32;

  total = plan1.batches + plan2.batches;
  BM3D_CUDA_CHECK (job, cudaEventRecord (dev->ev[0], dev->stream));

  /* Pass 1 over the centres of the patches covering the pixels.  */
  a.x0 = a.sums_x0;
  a.y0 = a.sums_y0;
  a.x1 = a.sums_x1;
  a.y1 = a.sums_y1;
  status = run_pass (job, weight_sums_kernels[colour == 3][f], a, &plan1,
                     &done, total);
  if (status != BM3D_OK)
    return status;
  BM3D_CUDA_CHECK (job, cudaEventRecord (dev->ev[1], dev->stream));

  /* Pass 2 over the pixels.  */
  a.x0 = x0;
  a.y0 = y0;
  a.x1 = x1;
  a.y1 = y1;
  status = run_pass (job, aggregate_kernels[colour == 3][f], a, &plan2,
                     &done, total);
  if (status != BM3D_OK)
    return status;
  BM3D_CUDA_CHECK (job, cudaEventRecord (dev->ev[2], dev->stream));
  BM3D_CUDA_CHECK (job, cudaEventSynchronize (dev->ev[2]));

  BM3D_CUDA_CHECK (job, cudaEventElapsedTime (&ms, dev->ev[0], dev->ev[1]));
  job->report->seconds_phase[0] += ms * 1e-3;
  BM3D_CUDA_CHECK (job, cudaEventElapsedTime (&ms, dev->ev[1], dev->ev[2]));
  job->report->seconds_phase[1] += ms * 1e-3;
  return BM3D_OK;
}

/* ---- host side: one tile from the host's tiler ---------------------------- */

static bm3d_status
denoise_tile (const bm3d_planes *noisy, bm3d_planes *out, bm3d_job *job)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const int C = noisy->channels;
  const size_t count = (size_t) noisy->width * noisy->height;
  nlm_buffers tb;
  size_t bytes;
  bm3d_status status;

  if (C != 1 && C != 3)
    {
      bm3d_job_message (job, "CUDA backend: %d channels in a tile", C);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  bytes = buffers_bytes (noisy->width, noisy->height, C,
                         job->nlm.patch_radius);
  if ((status = bm3d_cuda_reserve (job, bytes)) != BM3D_OK)
    return status;
  buffers_carve ((float *) dev->workspace, noisy->width, noisy->height, C,
                 job->nlm.patch_radius, &tb);
  for (int c = 0; c < C; c++)
    BM3D_CUDA_CHECK (job, cudaMemcpyAsync (tb.plane[c], noisy->plane[c],
                                           count * sizeof (float),
                                           cudaMemcpyHostToDevice,
                                           dev->stream));
  status = tile_denoise (&tb, noisy->width, noisy->height, C, 0, 0,
                         noisy->width, noisy->height, job);
  if (status != BM3D_OK)
    return status;
  for (int c = 0; c < C; c++)
    BM3D_CUDA_CHECK (job, cudaMemcpyAsync (out->plane[c], tb.out[c],
                                           count * sizeof (float),
                                           cudaMemcpyDeviceToHost,
                                           dev->stream));
  BM3D_CUDA_CHECK (job, cudaStreamSynchronize (dev->stream));
  return BM3D_OK;
}

/* Every entry point holds its device for the whole call.  */
extern "C" bm3d_status
bm3d_nlm_cuda_tile (const bm3d_planes *noisy, bm3d_planes *out,
                    bm3d_job *job)
{
  bm3d_cuda_device *dev;
  bm3d_status status = bm3d_cuda_enter (job, &dev);

  if (status != BM3D_OK)
    return status;
  return bm3d_cuda_leave (job, denoise_tile (noisy, out, job));
}

/* ---- whole images ------------------------------------------------------------ */

/* denoise_image's steps for bm3d_cuda_tiled_image.  */
typedef struct
{
  const nlm_buffers *tb;
  int                colour;
} nlm_image_ctx;

static float *const *
image_tile_input (void *ctx, const bm3d_cuda_core *, bm3d_job *)
{
  return ((nlm_image_ctx *) ctx)->tb->plane;
}

/* Only the core's pixels are computed: the margin is context.  */
static bm3d_status
image_tile_denoise (void *ctx, const bm3d_cuda_core *core,
                    const float *const **result, bm3d_job *job)
{
  const nlm_image_ctx *c = (const nlm_image_ctx *) ctx;

  *result = c->tb->out;
  return tile_denoise (c->tb, core->tile_width, core->tile_height, c->colour,
                       core->ox, core->oy, core->ox + core->core_w,
                       core->oy + core->core_h, job);
}

static bm3d_status
denoise_image (const bm3d_image *in, bm3d_image *out, bm3d_job *job)
{
  const int W = in->width, H = in->height, ch = in->channels;
  const int colour = ch - (in->has_alpha ? 1 : 0);
  const int f = job->nlm.patch_radius;
  const int margin = job->margin;
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  size_t bytes, staging_bytes, result_bytes;
  nlm_buffers tb;
  bm3d_status status;
  int side, max_w, max_h, streamed;

  /* Images smaller than a patch are mirrored by the host's tiler, as on
   * the CPU; tests may ask for the host's tiles.  */
  if (W < BM3D_PATCH || H < BM3D_PATCH || (colour != 1 && colour != 3)
      || forced_tile_side (job) > 0)
    return BM3D_ERR_NOT_IMPLEMENTED;
  side = bm3d_cuda_image_side (job, in, tile_bytes_per_pixel (colour), 0, 1,
                               &result_bytes, &streamed);
  if (side == 0)
    return BM3D_ERR_NOT_IMPLEMENTED;
  max_w = side + 2 * margin < W ? side + 2 * margin : W;
  max_h = side + 2 * margin < H ? side + 2 * margin : H;

  staging_bytes = ((size_t) max_w * max_h * ch * sizeof (float) + 255)
                  & ~(size_t) 255;
  bytes = (buffers_bytes (max_w, max_h, colour, f) + 255) & ~(size_t) 255;
  if ((status = bm3d_cuda_reserve (job, bytes + 2 * staging_bytes
                                   + result_bytes)) != BM3D_OK)
    return status;
  buffers_carve ((float *) dev->workspace, max_w, max_h, colour, f, &tb);
  char *base = (char *) dev->workspace + bytes;
  float *const staging[2] = { (float *) base,
                              (float *) (base + staging_bytes) };
  float *dev_out = (float *) (base + 2 * staging_bytes);
  float *const core[2] = { dev_out,
                           (float *) ((char *) dev_out + result_bytes / 2) };

  nlm_image_ctx ctx = { &tb, colour };
  const bm3d_cuda_tile_steps steps = { &ctx, image_tile_input,
                                       image_tile_denoise };

  /* Filtering a tile takes less than its pageable copies: pinned.  */
  return bm3d_cuda_tiled_image (in, out, side, colour, staging, dev_out,
                                streamed ? core : NULL,
                                BM3D_CUDA_PIN_IN | BM3D_CUDA_PIN_OUT, &steps,
                                job);
}

extern "C" bm3d_status
bm3d_nlm_cuda_image (const bm3d_image *in, bm3d_image *out, bm3d_job *job)
{
  bm3d_cuda_device *dev;
  bm3d_status status = bm3d_cuda_enter (job, &dev);

  if (status != BM3D_OK)
    return status;
  return bm3d_cuda_leave (job, denoise_image (in, out, job));
}
