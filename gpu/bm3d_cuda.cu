/* BM3D Denoise — the CUDA backend.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The same algorithm as the CPU backend (see the team's algorithm notes
 * in engine.h and bm3d_tables.h), laid out for a GPU after Honzátko and
 * Kruliš 2017:
 *
 *   block_match      a warp per reference patch; the block's references
 *                    share one search window in shared memory; each pair
 *                    of lanes slides down a candidate column, one lane
 *                    with the reference's left half, one with its right
 *                    half, so one loaded row serves eight candidates and
 *                    few registers leave room for more warps; each lane
 *                    of the pair then screens four of the eight, so no
 *                    lane idles through the per-candidate bookkeeping,
 *                    which costs about as many instructions as the
 *                    products themselves would otherwise; distances come from
 *                    |P|^2 + |Q|^2 - 2 P.Q with the norms precomputed
 *                    (patch_norms); the best N are kept as a warp-wide
 *                    sorted list of 64-bit keys (distance bits | raster
 *                    index), so ties break by raster index as on the CPU;
 *                    a candidate farther than the list's N-th best (or
 *                    tau) is dropped with one compare, the others wait in
 *                    a per-warp buffer in shared memory until 32 of them
 *                    can be sorted and merged into the list at once.
 *   block_match_rows (bm3d_cuda_match_rows.cu) takes the place of
 *                    block_match on large tiles at the reference step 3:
 *                    a warp per row of 30 references, whose distance
 *                    products it shares (24 multiply-adds a distance
 *                    instead of 64), the same keys and merges.
 *   collaborative_filter_hard / _wiener
 *                    a warp per 3D group: gather with the 2D
 *                    transform's column pass done in registers on the
 *                    way, row pass, Haar transform across the group,
 *                    threshold or Wiener shrinkage, inverses, in shared
 *                    memory; the DCT in its butterfly form; the
 *                    weighted group is added to the tile's numerators by
 *                    vector reductions in the L2 cache (Hopper; scalar
 *                    atomics before), not through shared-memory float
 *                    atomics, which are compare-and-swap loops; each
 *                    patch's weight goes once to its corner in a plane of
 *                    patch weights.
 *   aggregate        numerator / denominator, the denominator being the
 *                    patch weights spread by the Kaiser window; clears the
 *                    numerators.
 *
 * References are processed in batches of rows, so the match lists stay
 * small and progress can be reported between batches.  */
#include <cuda_runtime.h>

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "cuda_device.cuh"
#include "bm3d_cuda_kernels.cuh"

/* Patches in shared memory: rows 9 floats apart and patches 72 apart, so
 * a warp's row, column and per-coefficient accesses hit distinct banks.  */
#define ROW_PITCH    9
#define PATCH_PITCH  72

/* Filter blocks: warps, and blocks an SM should hold (which bounds the
 * registers per thread: 65536 / (32 * warps * blocks)).  The Wiener
 * filter keeps its gains in registers (see wiener_group).  */
#define HARD_WARPS            8
#define WIENER_WARPS          4
#ifndef WIENER_BLOCKS_PER_SM
#define WIENER_BLOCKS_PER_SM  4
#endif

/* Block matching: references (warps) per block, and blocks an SM
 * should hold (which bounds the registers per thread, as above): the
 * step waits on shared-memory loads and shuffles, so more warps help.  */
#define MATCH_WARPS          8
#ifndef MATCH_BLOCKS_PER_SM
#define MATCH_BLOCKS_PER_SM  3
#endif

/* Columns of the reference patch a lane holds: half of them, the lane
 * next to it has the other half.  */
#define MATCH_HALF (BM3D_PATCH / 2)

/* Candidates of a chunk of 8 rows each lane of a pair screens.  */
#define MATCH_OWN (8 / 2)

/* Keys a warp's buffer of candidates waiting to enter its list holds:
 * it is merged into the list once it has a warp's worth (32), and a
 * round of candidates (one per lane) adds at most 32 more to the 31 it
 * may hold, so 64 always fit.  */
#define MATCH_PENDING 64

#define MATCH_CENTRE BM3D_MATCH_CENTRE

/* References per SM a batch needs before block_match_rows beats
 * block_match: 16 of its warps (four blocks) of 30 references.  */
#ifndef ROW_MATCH_REFS_PER_SM
#define ROW_MATCH_REFS_PER_SM (16 * 30)
#endif

/* Rows of patch norms defined above and below a tile (MATCH_NORM_NONE),
 * for a search window of up to 75 (bm3d.h): block_match_rows reads a
 * candidate's norm from the plane without a test.  */
#define NORM_PAD_ROWS 37

/* References per batch (about): bounds the match lists' memory.  */
#define BATCH_REFS   (1 << 17)

#define FULL_MASK 0xffffffffu

/* Transforms: [0] hard forward, [1] hard inverse, [2] Wiener forward,
 * [3] Wiener inverse; Kaiser windows of both phases.  */
__constant__ float c_transform[4][BM3D_PATCH][BM3D_PATCH];
__constant__ float c_kaiser[2][BM3D_PATCH_AREA];
__constant__ float c_kaiser_1d[2][BM3D_PATCH];

/* The two 2D transforms' matrices again, as compile-time constants
 * ([kind][forward, inverse], kinds as bm3d_transform_kind): the
 * filters are built for each, so products by zeros are left out (24 of
 * the 64 entries of bior1.5's forward matrix, 16 of its inverse's; see
 * transform_1d) and the rest become immediate operands; on an H100 the
 * immediates took 7 % off both phases (BENCHMARKS.md).  They are
 * bm3d_transform_2d_init's tables to nine digits, entries below 1e-6
 * (rounding left by the inversion) as 0; literal_transforms_check
 * compares them with those tables, and the filters read c_transform
 * instead should they ever differ.  */
#define TRANSFORM_TABLE (-1)      /* kind: read c_transform          */

#define TRANSFORM_LITERALS \
{ \
  { /* DCT-II */ \
    { /* forward */ \
      { 0.353553385f, 0.353553385f, 0.353553385f, 0.353553385f, \
        0.353553385f, 0.353553385f, 0.353553385f, 0.353553385f }, \
      { 0.490392625f, 0.415734798f, 0.277785122f, 0.0975451618f, \
        -0.0975451618f, -0.277785122f, -0.415734798f, -0.490392625f }, \
      { 0.461939752f, 0.191341713f, -0.191341713f, -0.461939752f, \
        -0.461939752f, -0.191341713f, 0.191341713f, 0.461939752f }, \
      { 0.415734798f, -0.0975451618f, -0.490392625f, -0.277785122f, \
        0.277785122f, 0.490392625f, 0.0975451618f, -0.415734798f }, \
      { 0.353553385f, -0.353553385f, -0.353553385f, 0.353553385f, \
        0.353553385f, -0.353553385f, -0.353553385f, 0.353553385f }, \
      { 0.277785122f, -0.490392625f, 0.0975451618f, 0.415734798f, \
        -0.415734798f, -0.0975451618f, 0.490392625f, -0.277785122f }, \
      { 0.191341713f, -0.461939752f, 0.461939752f, -0.191341713f, \
        -0.191341713f, 0.461939752f, -0.461939752f, 0.191341713f }, \
      { 0.0975451618f, -0.277785122f, 0.415734798f, -0.490392625f, \
        0.490392625f, -0.415734798f, 0.277785122f, -0.0975451618f } \
    }, \
    { /* inverse */ \
      { 0.353553385f, 0.490392625f, 0.461939752f, 0.415734798f, \
        0.353553385f, 0.277785122f, 0.191341713f, 0.0975451618f }, \
      { 0.353553385f, 0.415734798f, 0.191341713f, -0.0975451618f, \
        -0.353553385f, -0.490392625f, -0.461939752f, -0.277785122f }, \
      { 0.353553385f, 0.277785122f, -0.191341713f, -0.490392625f, \
        -0.353553385f, 0.0975451618f, 0.461939752f, 0.415734798f }, \
      { 0.353553385f, 0.0975451618f, -0.461939752f, -0.277785122f, \
        0.353553385f, 0.415734798f, -0.191341713f, -0.490392625f }, \
      { 0.353553385f, -0.0975451618f, -0.461939752f, 0.277785122f, \
        0.353553385f, -0.415734798f, -0.191341713f, 0.490392625f }, \
      { 0.353553385f, -0.277785122f, -0.191341713f, 0.490392625f, \
        -0.353553385f, -0.0975451618f, 0.461939752f, -0.415734798f }, \
      { 0.353553385f, -0.415734798f, 0.191341713f, 0.0975451618f, \
        -0.353553385f, 0.490392625f, -0.461939752f, 0.277785122f }, \
      { 0.353553385f, -0.490392625f, 0.461939752f, -0.415734798f, \
        0.353553385f, -0.277785122f, 0.191341713f, -0.0975451618f } \
    } \
  }, \
  { /* bior1.5 */ \
    { /* forward */ \
      { 0.353553385f, 0.353553385f, 0.353553385f, 0.353553385f, \
        0.353553385f, 0.353553385f, 0.353553385f, 0.353553385f }, \
      { -0.219417647f, -0.449283749f, -0.449283749f, -0.219417647f, \
        0.219417647f, 0.449283749f, 0.449283749f, 0.219417647f }, \
      { -0.569359422f, -0.402347296f, 0.402347296f, 0.569359422f, \
        0.0835060477f, -0.0835060477f, 0.0835060477f, -0.0835060477f }, \
      { 0.0835060477f, -0.0835060477f, 0.0835060477f, -0.0835060477f, \
        -0.569359422f, -0.402347296f, 0.402347296f, 0.569359422f }, \
      { -0.707106769f, 0.707106769f, 0, 0, \
        0, 0, 0, 0 }, \
      { 0, 0, -0.707106769f, 0.707106769f, \
        0, 0, 0, 0 }, \
      { 0, 0, 0, 0, \
        -0.707106769f, 0.707106769f, 0, 0 }, \
      { 0, 0, 0, 0, \
        0, 0, -0.707106769f, 0.707106769f } \
    }, \
    { /* inverse */ \
      { 0.353553385f, -0.373858929f, -0.514558554f, 0, \
        -0.707106769f, 0.121533975f, 0, -0.121533975f }, \
      { 0.353553385f, -0.373858929f, -0.514558554f, 0, \
        0.707106769f, 0.121533975f, 0, -0.121533975f }, \
      { 0.353553385f, -0.373858929f, 0.514558554f, 0, \
        -0.121533975f, -0.707106769f, 0.121533975f, 0 }, \
      { 0.353553385f, -0.373858929f, 0.514558554f, 0, \
        -0.121533975f, 0.707106769f, 0.121533975f, 0 }, \
      { 0.353553385f, 0.373858929f, 0, -0.514558554f, \
        0, -0.121533975f, -0.707106769f, 0.121533975f }, \
      { 0.353553385f, 0.373858929f, 0, -0.514558554f, \
        0, -0.121533975f, 0.707106769f, 0.121533975f }, \
      { 0.353553385f, 0.373858929f, 0, 0.514558554f, \
        0.121533975f, 0, -0.121533975f, -0.707106769f }, \
      { 0.353553385f, 0.373858929f, 0, 0.514558554f, \
        0.121533975f, 0, -0.121533975f, 0.707106769f } \
    } \
  } \
}

__device__ constexpr float k_transform[2][2][BM3D_PATCH][BM3D_PATCH]
  = TRANSFORM_LITERALS;


/* ---- patch norms ------------------------------------------------------ */

/* |Q|^2 of every 8x8 patch of the centred plane, at its top-left corner
 * (pitch: the plane's width), for the rows -pad .. height + pad - 1;
 * MATCH_NORM_NONE at the corners where no patch fits, so a matcher that
 * reads the plane directly, up to `pad` rows past the plane, never
 * keeps those.  */
__global__ void
patch_norms (const float *__restrict__ plane, int width, int height, int pad,
             float *__restrict__ norms)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y - pad;

  if (x >= width || y >= height + pad)
    return;
  if (x > width - BM3D_PATCH || y < 0 || y > height - BM3D_PATCH)
    {
      norms[(ptrdiff_t) y * width + x] = MATCH_NORM_NONE;
      return;
    }
  float s = 0.0f;
  for (int i = 0; i < BM3D_PATCH; i++)
    {
      const float *row = plane + (size_t) (y + i) * width + x;
#pragma unroll
      for (int j = 0; j < BM3D_PATCH; j++)
        {
          float v = __ldg (row + j) - MATCH_CENTRE;
          s = fmaf (v, v, s);
        }
    }
  norms[(size_t) y * width + x] = s;
}

/* ---- block matching ------------------------------------------------- */


__global__ void __launch_bounds__ (MATCH_WARPS * 32, MATCH_BLOCKS_PER_SM)
block_match (match_args a)
{
  extern __shared__ __align__ (16) float smem[];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int ry = a.ry_begin + blockIdx.y;
  const int rx_first = a.rx_begin + blockIdx.x * MATCH_WARPS;
  const int rx_last = min (a.ax.n - 1, rx_first + MATCH_WARPS - 1);
  const int rx = rx_first + warp;
  const int yr = ref_coord (a.ay, ry);

  /* The search window of all the block's references.  */
  const int wx0 = max (0, ref_coord (a.ax, rx_first) - a.radius);
  const int wx1 = min (a.width - BM3D_PATCH, ref_coord (a.ax, rx_last) + a.radius)
                  + BM3D_PATCH;
  const int wy0 = max (0, yr - a.radius);
  const int wy1 = min (a.height - BM3D_PATCH, yr + a.radius) + BM3D_PATCH;
  const int ww = wx1 - wx0, wh = wy1 - wy0;
  uint64_t *pend = (uint64_t *) smem + warp * MATCH_PENDING;
  float *pix = smem + 2 * MATCH_WARPS * MATCH_PENDING; /* (wh + 8) rows of ww */
  float *nrm = pix + (wh + BM3D_PATCH) * ww;   /* wh rows of ww           */

  /* A warp per row; rows past the window are read by the last chunk of
   * candidates only for candidates that do not exist: zeros keep them
   * finite.  */
#pragma unroll 4
  for (int y = warp; y < wh + BM3D_PATCH; y += MATCH_WARPS)
    {
      const float *src = a.plane + (size_t) (wy0 + y) * a.width + wx0;
      for (int x = lane; x < ww; x += 32)
        pix[y * ww + x] = y < wh ? __ldg (src + x) - MATCH_CENTRE : 0.0f;
    }
  /* Norms of the candidates, then none down to the last row a chunk
   * of candidates reaches (MATCH_NORM_NONE).  */
#pragma unroll 4
  for (int y = warp; y < wh; y += MATCH_WARPS)
    {
      const float *src = a.norms + (size_t) (wy0 + y) * a.width + wx0;
      for (int x = lane; x < ww; x += 32)
        nrm[y * ww + x] = y <= wh - BM3D_PATCH && x <= ww - BM3D_PATCH
                          ? __ldg (src + x) : MATCH_NORM_NONE;
    }
  __syncthreads ();
  if (rx >= a.ax.n)
    return;

  const int xr = ref_coord (a.ax, rx);
  const int lxr = xr - wx0, lyr = yr - wy0;
  const int half = (lane & 1) * MATCH_HALF;   /* first column held */
  const int slot = lane >> 1;                 /* candidate column of the pair */
  const int own = (lane & 1) * MATCH_OWN;     /* first candidate row finished */
  float ref[BM3D_PATCH][MATCH_HALF];
#pragma unroll
  for (int i = 0; i < BM3D_PATCH; i++)
#pragma unroll
    for (int j = 0; j < MATCH_HALF; j++)
      ref[i][j] = pix[(lyr + i) * ww + lxr + half + j];
  const float ref_norm = nrm[lyr * ww + lxr];

  /* Candidates of this reference: columns cx0..cx1, rows wy0..cy1.  */
  const int cx0 = max (0, xr - a.radius);
  const int ncol = min (a.width - BM3D_PATCH, xr + a.radius) - cx0 + 1;
  const int nrow = wh - BM3D_PATCH + 1;
  const int nchunk = (nrow + 7) / 8;
  const int items = ncol * nchunk;              /* rounds: warp-uniform */
  const float tau = a.tau;

  /* Sorted across the lanes, smallest in lane 0; the reference's key is
   * 0 and every candidate's is at least 1, so it always leads.  */
  uint64_t list = lane == 0 ? 0 : ~(uint64_t) 0;
  float bound_sum = tau * BM3D_PATCH_AREA;
  int pending = 0;                  /* keys waiting in pend */
  const unsigned lanes_below = (1u << lane) - 1;

  /* This lane's candidate: chunk (8 rows) and column, stepped by 16
   * items a round without a division.  */
  int chunk = slot / ncol;
  int col = slot - chunk * ncol;

  for (int base = 0; base < items; base += 16)
    {
      const bool active = chunk < nchunk;
      /* Chunks from the middle of the window outwards (2, 1, 3, 0, 4 of
       * five): good candidates lie near the reference more often than
       * at the window's edge, so the entry bound tightens sooner and
       * fewer candidates wait to be merged; the list is the same in any
       * order.  */
      const int mid = nchunk >> 1;
      const int ch = active ? mid + ((chunk & 1) ? -((chunk + 1) >> 1)
                                                 : (chunk >> 1)) : 0;
      const int lx = cx0 - wx0 + (active ? col : 0);
      const int ly = ch * 8;
      float acc[8];

#pragma unroll
      for (int k = 0; k < 8; k++)
        acc[k] = 0.0f;
#pragma unroll
      for (int y = 0; y < 15; y++)
        {
          float v[MATCH_HALF];
          const float *row = pix + (ly + y) * ww + lx + half;
#pragma unroll
          for (int j = 0; j < MATCH_HALF; j++)
            v[j] = row[j];
#pragma unroll
          for (int k = 0; k < 8; k++)
            {
              const int i = y - k;
              if (i >= 0 && i < BM3D_PATCH)
#pragma unroll
                for (int j = 0; j < MATCH_HALF; j++)
                  acc[k] = fmaf (ref[i][j], v[j], acc[k]);
            }
        }
      /* Each lane of the pair finishes half of the chunk's candidates
       * (the left-half lane rows 0..3, the other rows 4..7), so all 32
       * lanes share the screening below instead of 16: it gets each
       * partial sum it lacks from the other lane (the sums are the same
       * as adding both lanes' whole lists).  */
      float dot[MATCH_OWN];
#pragma unroll
      for (int k = 0; k < MATCH_OWN; k++)
        {
          const float give = own == 0 ? acc[k + MATCH_OWN] : acc[k];
          const float mine = own == 0 ? acc[k] : acc[k + MATCH_OWN];

          dot[k] = mine + __shfl_xor_sync (FULL_MASK, give, 1);
        }

      /* The lane's rows of the chunk, their norms' column, and which
       * of them is the reference itself (it leads the list already).  */
      const int cx = cx0 + col;
      const int ky0 = ly + own;
      const float *cand_norm = nrm + ky0 * ww + lx;
      const int self = cx == xr ? lyr - ky0 : -1;
#pragma unroll
      for (int k = 0; k < MATCH_OWN; k++)
        {
          const float s = (ref_norm + cand_norm[k * ww]) - 2.0f * dot[k];
          const bool keep = active && k != self && s <= bound_sum;
          const unsigned mask = __ballot_sync (FULL_MASK, keep);

          if (keep)
            pend[pending + __popc (mask & lanes_below)]
              = match_key (s, (uint32_t) ((wy0 + ky0 + k) * a.width + cx + 1));
          pending += __popc (mask);
          if (pending >= 32)
            {
              list = merge_pending (list, pend, pending, lane);
              bound_sum = entry_bound (list, a.group_max, tau)
                          * BM3D_PATCH_AREA;
            }
        }

      col += 16;
      while (col >= ncol)
        {
          col -= ncol;
          chunk++;
        }
    }
  if (pending > 0)
    list = merge_pending (list, pend, pending, lane);

  const int found = __popc (__ballot_sync (FULL_MASK, list != ~(uint64_t) 0));
  int m = 1;
  while (m * 2 <= min (found, a.group_max))
    m *= 2;
  const size_t r = (size_t) (ry - a.ry_begin) * a.ax.n + rx;
  if (lane < m)
    a.lists[r * a.group_max + lane] = lane == 0
      ? yr * a.width + xr : (int) (uint32_t) list - 1;
  if (lane == 0)
    a.counts[r] = m;
}

/* ---- collaborative filtering ---------------------------------------- */


/* Entry (o, b) of matrix T of c_transform ([0] hard forward, [1] hard
 * inverse, [2] Wiener forward, [3] Wiener inverse), or of the literal
 * table of transform kind K.  */
template <int K, int T>
__device__ __forceinline__ float
transform_entry (int o, int b)
{
  if constexpr (K == TRANSFORM_TABLE)
    return c_transform[T][o][b];
  else
    return k_transform[K][T & 1][o][b];
}

#define DCT_FWD(o, b) k_transform[BM3D_TRANSFORM_DCT][0][o][b]
#define DCT_INV(o, b) k_transform[BM3D_TRANSFORM_DCT][1][o][b]

/* The DCT's rows are even or odd about their middle (and its inverse is
 * its transpose), so a 1-D transform splits into sums and differences of
 * mirrored inputs and two half-size products, the even half splitting
 * once more: 36 operations instead of 64 multiply-adds, the same matrix
 * entries.  literal_transforms_check verifies the symmetries this reads
 * off the literal table.  */
__device__ __forceinline__ void
dct_forward (float (&v)[BM3D_PATCH])
{
  float e[4], o[4];

#pragma unroll
  for (int n = 0; n < 4; n++)
    {
      e[n] = v[n] + v[7 - n];
      o[n] = v[n] - v[7 - n];
    }
  const float ee0 = e[0] + e[3], ee1 = e[1] + e[2];
  const float eo0 = e[0] - e[3], eo1 = e[1] - e[2];

  v[0] = DCT_FWD (0, 0) * (ee0 + ee1);
  v[4] = DCT_FWD (4, 0) * (ee0 - ee1);
  v[2] = fmaf (DCT_FWD (2, 1), eo1, DCT_FWD (2, 0) * eo0);
  v[6] = fmaf (DCT_FWD (6, 1), eo1, DCT_FWD (6, 0) * eo0);
#pragma unroll
  for (int k = 1; k < BM3D_PATCH; k += 2)
    {
      float s = DCT_FWD (k, 0) * o[0];

#pragma unroll
      for (int n = 1; n < 4; n++)
        s = fmaf (DCT_FWD (k, n), o[n], s);
      v[k] = s;
    }
}

__device__ __forceinline__ void
dct_inverse (float (&v)[BM3D_PATCH])
{
  const float ee0 = fmaf (DCT_INV (0, 4), v[4], DCT_INV (0, 0) * v[0]);
  const float ee1 = fmaf (DCT_INV (1, 4), v[4], DCT_INV (1, 0) * v[0]);
  const float eo0 = fmaf (DCT_INV (0, 6), v[6], DCT_INV (0, 2) * v[2]);
  const float eo1 = fmaf (DCT_INV (1, 6), v[6], DCT_INV (1, 2) * v[2]);
  const float e[4] = { ee0 + eo0, ee1 + eo1, ee1 - eo1, ee0 - eo0 };
  float o[4];

#pragma unroll
  for (int n = 0; n < 4; n++)
    {
      float s = DCT_INV (n, 1) * v[1];

#pragma unroll
      for (int k = 3; k < BM3D_PATCH; k += 2)
        s = fmaf (DCT_INV (n, k), v[k], s);
      o[n] = s;
    }
#pragma unroll
  for (int n = 0; n < 4; n++)
    {
      v[n] = e[n] + o[n];
      v[7 - n] = e[n] - o[n];
    }
}

/* v = M v for the 8x8 matrix T (transform_entry): the DCT in its
 * butterfly form, other kinds as a product without the literal table's
 * zero entries (bior1.5's forward matrix has 24, its inverse 16).  The
 * compiler keeps a product by a literal zero, since 0 * v is not 0 for
 * every float v, so they are left out here: for the finite pixels of
 * an image the sums are the same.  */
template <int K, int T>
__device__ __forceinline__ void
transform_1d (float (&v)[BM3D_PATCH])
{
  if constexpr (K == BM3D_TRANSFORM_DCT)
    {
      if constexpr ((T & 1) == 0)
        dct_forward (v);
      else
        dct_inverse (v);
    }
  else
    {
      float out[BM3D_PATCH];

#pragma unroll
      for (int o = 0; o < BM3D_PATCH; o++)
        {
          float s = 0.0f;
#pragma unroll
          for (int b = 0; b < BM3D_PATCH; b++)
            {
              const float e = transform_entry<K, T> (o, b);

              if (K == TRANSFORM_TABLE || e != 0.0f)
                s = fmaf (e, v[b], s);
            }
          out[o] = s;
        }
#pragma unroll
      for (int o = 0; o < BM3D_PATCH; o++)
        v[o] = out[o];
    }
}

/* Apply the 1-D transform T to every row (ROWS) or column of the m
 * patches in `buf`.  A lane takes two rows (columns) at a time, loading
 * both before computing, so the shared-memory latencies overlap.  */
template <int K, int T, bool ROWS, bool SCALE = false>
__device__ __forceinline__ void
transform_pass (float *buf, int m, int lane,
                const float (*scale)[BM3D_PATCH] = nullptr)
{
  const int total = m * BM3D_PATCH;
  const int stride = ROWS ? 1 : ROW_PITCH;

  for (int job = lane; job < total; job += 64)
    {
      const bool two = job + 32 < total;
      const int job2 = two ? job + 32 : job;
      float *b1 = buf + (job >> 3) * PATCH_PITCH
                  + (ROWS ? (job & 7) * ROW_PITCH : (job & 7));
      float *b2 = buf + (job2 >> 3) * PATCH_PITCH
                  + (ROWS ? (job2 & 7) * ROW_PITCH : (job2 & 7));
      float v1[BM3D_PATCH], v2[BM3D_PATCH];

#pragma unroll
      for (int b = 0; b < BM3D_PATCH; b++)
        {
          v1[b] = b1[b * stride];
          v2[b] = b2[b * stride];
        }
      transform_1d<K, T> (v1);
      transform_1d<K, T> (v2);
      if constexpr (SCALE)
        {
#pragma unroll
          for (int o = 0; o < BM3D_PATCH; o++)
            {
              v1[o] *= (*scale)[o];
              v2[o] *= (*scale)[o];
            }
        }
#pragma unroll
      for (int o = 0; o < BM3D_PATCH; o++)
        {
          b1[o * stride] = v1[o];
          if (two)
            b2[o * stride] = v2[o];
        }
    }
}

/* Orthonormal Haar transform across the group (bm3d_haar and
 * bm3d_haar_inverse: same butterflies, same rounding) of v[0..N), N a
 * compile-time power of two so every index is a register.  */
template <int LEN, int N>
__device__ __forceinline__ void
haar_forward_level (float (&v)[N])
{
  if constexpr (LEN > 1)
    {
      const float r = 0.70710678118654752f;
      float t[LEN];

#pragma unroll
      for (int i = 0; i < LEN / 2; i++)
        {
          const float a = v[2 * i], b = v[2 * i + 1];
          t[i] = __fmul_rn (__fadd_rn (a, b), r);
          t[LEN / 2 + i] = __fmul_rn (__fsub_rn (a, b), r);
        }
#pragma unroll
      for (int i = 0; i < LEN; i++)
        v[i] = t[i];
      haar_forward_level<LEN / 2> (v);
    }
}

template <int LEN, int N>
__device__ __forceinline__ void
haar_inverse_level (float (&v)[N])
{
  if constexpr (LEN <= N)
    {
      const float r = 0.70710678118654752f;
      float t[LEN];

#pragma unroll
      for (int i = 0; i < LEN / 2; i++)
        {
          const float a = v[i], d = v[LEN / 2 + i];
          t[2 * i] = __fmul_rn (__fadd_rn (a, d), r);
          t[2 * i + 1] = __fmul_rn (__fsub_rn (a, d), r);
        }
#pragma unroll
      for (int i = 0; i < LEN; i++)
        v[i] = t[i];
      haar_inverse_level<LEN * 2> (v);
    }
}

template <int N>
__device__ __forceinline__ void
haar_forward (float (&v)[N])
{
  haar_forward_level<N> (v);
}

template <int N>
__device__ __forceinline__ void
haar_inverse (float (&v)[N])
{
  haar_inverse_level<2> (v);
}

/* Hard thresholding of a group of N patches already 2D-transformed in
 * `buf`: Haar across the group, zero every coefficient with |c| <= thr,
 * inverse Haar.  A lane handles coefficients lane and lane + 32 of every
 * patch.  Returns the lane's count of kept coefficients.  */
template <int N>
__device__ __forceinline__ int
threshold_group (float *buf, float thr, int lane)
{
  int kept = 0;

#pragma unroll
  for (int half = 0; half < 2; half++)
    {
      const int q = lane + 32 * half;
      const int off = (q >> 3) * ROW_PITCH + (q & 7);
      float v[N];

#pragma unroll
      for (int p = 0; p < N; p++)
        v[p] = buf[p * PATCH_PITCH + off];
      haar_forward<N> (v);
#pragma unroll
      for (int p = 0; p < N; p++)
        if (fabsf (v[p]) <= thr)
          v[p] = 0.0f;
        else
          kept++;
      haar_inverse<N> (v);
#pragma unroll
      for (int p = 0; p < N; p++)
        buf[p * PATCH_PITCH + off] = v[p];
    }
  return kept;
}

__device__ __forceinline__ float
warp_sum (float v)
{
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync (FULL_MASK, v, o);
  return v;
}

/* Load the m patches at (px[p], py[p]) of `plane` into `buf`, with the
 * 1-D transform T applied down each column on the way: the first pass
 * of the 2D transform, done in registers.  A warp load takes the same
 * row of four patches, eight lanes a row (lane: patch base + lane / 8,
 * column lane % 8): with patches PATCH_PITCH apart the four rows then
 * start 8 banks apart, so the stores hit 32 distinct banks.  A lane
 * issues its eight loads before any store, so their latencies
 * overlap.  */
template <int K, int T>
__device__ __forceinline__ void
gather_columns (float *buf, const float *__restrict__ plane, int width,
                const int *px, const int *py, int m, int lane)
{
  const int j = lane & (BM3D_PATCH - 1);

  for (int base = 0; base < m; base += 4)
    {
      const int p = base + (lane >> 3);
      const bool in = p < m;
      const int q = min (p, m - 1);
      const float *src = plane + ((size_t) py[q] * width + px[q] + j);
      float v[BM3D_PATCH];

      /* Row by row, a pointer step each: indexing src by i * width
       * made every load a 64-bit multiply-add of its own.  */
#pragma unroll
      for (int i = 0; i < BM3D_PATCH; i++, src += width)
        v[i] = in ? __ldg (src) : 0.0f;
      transform_1d<K, T> (v);
      if (in)
#pragma unroll
        for (int i = 0; i < BM3D_PATCH; i++)
          buf[p * PATCH_PITCH + i * ROW_PITCH + j] = v[i];
    }
}

/* The forward 2D transform T of the m patches of `plane` at (px, py)
 * into `buf`: columns while gathering, then rows.  */
template <int K, int T>
__device__ __forceinline__ void
gather_transform (float *buf, const float *__restrict__ plane, int width,
                  const int *px, const int *py, int m, int lane)
{
  gather_columns<K, T> (buf, plane, width, px, py, m, lane);
  __syncwarp ();
  transform_pass<K, T, true> (buf, m, lane);
  __syncwarp ();
}

/* a / b for a b that is never subnormal (here b >= s2 > 0): the same
 * quotient as __fdividef, a times the approximate reciprocal of b, but
 * without the range test and rescaling __fdividef carries when
 * subnormals are not flushed, three of its five instructions.  */
__device__ __forceinline__ float
divide_normal (float a, float b)
{
  float r;

  asm ("rcp.approx.ftz.f32 %0, %1;" : "=f" (r) : "f" (b));
  return a * r;
}

/* Empirical Wiener filtering of a group of N patches at (px, py), with
 * `buf` holding the basic estimate's patches, already 2D-transformed.
 * The gains W = B^2 / (B^2 + s2) of the lane's two coefficients of every
 * patch stay in registers while the noisy patches replace the basic ones
 * in `buf`, so a warp needs one group buffer, not two.  On return `buf`
 * holds the filtered group in the 2D transform domain; the result is
 * the lane's sum of squared gains.  */
template <int N, int K>
__device__ __forceinline__ float
wiener_group (float *buf, const float *__restrict__ noisy, int width,
              const int *px, const int *py, float s2, int lane)
{
  float gain[2][N];
  float wsum = 0.0f;

#pragma unroll
  for (int half = 0; half < 2; half++)
    {
      const int q = lane + 32 * half;
      const int off = (q >> 3) * ROW_PITCH + (q & 7);
      float b[N];

#pragma unroll
      for (int p = 0; p < N; p++)
        b[p] = buf[p * PATCH_PITCH + off];
      haar_forward<N> (b);
#pragma unroll
      for (int p = 0; p < N; p++)
        {
          const float bb = b[p] * b[p];
          gain[half][p] = divide_normal (bb, bb + s2);
          wsum = fmaf (gain[half][p], gain[half][p], wsum);
        }
    }
  __syncwarp ();
  gather_transform<K, 2> (buf, noisy, width, px, py, N, lane);
#pragma unroll
  for (int half = 0; half < 2; half++)
    {
      const int q = lane + 32 * half;
      const int off = (q >> 3) * ROW_PITCH + (q & 7);
      float z[N];

#pragma unroll
      for (int p = 0; p < N; p++)
        z[p] = buf[p * PATCH_PITCH + off];
      haar_forward<N> (z);
#pragma unroll
      for (int p = 0; p < N; p++)
        z[p] *= gain[half][p];
      haar_inverse<N> (z);
#pragma unroll
      for (int p = 0; p < N; p++)
        buf[p * PATCH_PITCH + off] = z[p];
    }
  return wsum;
}

/* The inverse 2D transform T of the m patches in `buf`, in place, each
 * estimate multiplied by the group's aggregation weight and the Kaiser
 * window on the way out, ready to be added to the numerators.  The
 * column pass ends the transform, and a lane's columns are all column
 * lane % 8 (its jobs are 32 apart), so its eight factors are loaded
 * once a group and cost one multiplication a value, where aggregation
 * would pay two and a shared-memory load.  */
template <int K, int T>
__device__ __forceinline__ void
inverse_transform_weighted (float *buf, int m, float weight,
                            const float *kaiser, int lane)
{
  float scale[BM3D_PATCH];

  transform_pass<K, T, true> (buf, m, lane);
#pragma unroll
  for (int o = 0; o < BM3D_PATCH; o++)
    scale[o] = weight * kaiser[o * BM3D_PATCH + (lane & (BM3D_PATCH - 1))];
  __syncwarp ();
  transform_pass<K, T, false, true> (buf, m, lane, &scale);
  __syncwarp ();
}

/* sum[t] += v[t] for the t with in[t] (a run of four floats, 16-byte
 * aligned, in global memory), as a reduction nothing waits for.  */
__device__ __forceinline__ void
add_run (float *sum, const float (&v)[4], const bool (&in)[4])
{
#if __CUDA_ARCH__ >= 900
  asm volatile ("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};"
                :: "l" (__cvta_generic_to_global (sum)),
                   "f" (v[0]), "f" (v[1]), "f" (v[2]), "f" (v[3]));
#else
#pragma unroll
  for (int t = 0; t < 4; t++)
    if (in[t])
      atomicAdd (sum + t, v[t]);
#endif
}

/* Patch rows aggregate_group adds in a round (three lanes a row).  */
#define AGG_ROWS_PER_ROUND 10

static_assert (PATCH_PITCH == BM3D_PATCH * ROW_PITCH,
               "aggregate_group walks a group's rows ROW_PITCH apart");
static_assert (BM3D_CUDA_DEVICE_BUDGET / sizeof (float) < ((size_t) 1 << 32),
               "aggregate_group's offsets into a plane fit 32 bits");

/* Adds a filtered group, already weighted (inverse_transform_weighted),
 * to the tile's sums.  Three lanes take a patch row, one run of four
 * pixels aligned in the plane (16 bytes) each, with zeros for the
 * pixels outside the patch: on Hopper a single vector reduction in the
 * L2 cache then adds all four, so a patch row costs two or three of
 * them instead of eight scalar atomics, and nothing waits for them.
 * Ten rows a round (30 lanes) keep a warp's reductions on about as many
 * rows as a whole warp of runs would, and the row and run of a lane
 * need no division.  The planes have room for the last run past their
 * last pixel (tile_buffers_reserve).
 *
 * The denominator, w * kaiser summed over the same patches, is the same
 * window at every patch: so only w goes out, once per patch, into the
 * plane of patch weights at the patch's corner, and `aggregate` spreads
 * that plane with the (separable) window.  That halves the reductions
 * in the L2 cache, which bound the hard-thresholding filter.  */
__device__ __forceinline__ void
aggregate_group (float *__restrict__ num, float *__restrict__ weights,
                 int width, const float *est, const int *px, const int *py,
                 int m, float weight, int lane)
{
  if (lane < m)
    atomicAdd (weights + (size_t) py[lane] * width + px[lane], weight);
  if (lane >= 3 * AGG_ROWS_PER_ROUND)
    return;

  const int run = lane % 3;

  for (int pr = lane / 3; pr < m * BM3D_PATCH; pr += AGG_ROWS_PER_ROUND)
    {
      const unsigned p = (unsigned) pr / BM3D_PATCH;
      const unsigned i = (unsigned) pr % BM3D_PATCH;
      /* 32-bit offsets: a plane lies within the workspace.  */
      const unsigned row0 = (unsigned) (py[p] + (int) i) * (unsigned) width
                            + (unsigned) px[p];
      const int j0 = 4 * run - (int) (row0 & 3);

      if (j0 > BM3D_PATCH - 1)
        continue;
      const float *e = est + pr * ROW_PITCH + j0;
      float n[4];
      bool in[4];

#pragma unroll
      for (int t = 0; t < 4; t++)
        {
          in[t] = (unsigned) (j0 + t) < BM3D_PATCH;
          n[t] = in[t] ? e[t] : 0.0f;
        }
      add_run (num + (row0 + j0), n, in);
    }
}

/* Floats of a warp's group buffer for groups of up to `group_max`
 * patches (the expert options allow 32 in the first phase too).  */
__host__ __device__ inline int
filter_warp_floats (bool wiener, int group_max)
{
  const int group = wiener || group_max > 16 ? 32 : 16;

  return group * PATCH_PITCH;
}

template <bool WIENER, int K>
__device__ __forceinline__ void
collaborative_filter (const filter_args &a)
{
  extern __shared__ float smem[];
  const int warp_floats = filter_warp_floats (WIENER, a.group_max);
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = blockDim.x >> 5;
  const int c = blockIdx.z;
  const int rx0 = blockIdx.x * a.rect_x;
  const int ry0 = a.ry_begin + blockIdx.y * a.rect_y;
  const int rx1 = min (a.ax.n, rx0 + a.rect_x);
  const int ry1 = min (a.ry_end, ry0 + a.rect_y);

  float *buf = smem + warp * warp_floats;
  int *pos = (int *) (smem + warps * warp_floats) + warp * 64;
  int *px = pos, *py = pos + 32;
  /* The Kaiser window: the hard filter's blocks are short (a few
   * groups a warp), and copying the window into shared memory and
   * waiting for the copy cost them more than reading constant memory;
   * the Wiener filter's groups take about three times as long and gain
   * from the copy (both measured, BENCHMARKS.md).  */
  const float *kaiser = c_kaiser[0];

  if (WIENER)
    {
      float *copy = smem + warps * (warp_floats + 64);

      for (int t = threadIdx.x; t < BM3D_PATCH_AREA; t += blockDim.x)
        copy[t] = c_kaiser[1][t];
      __syncthreads ();
      kaiser = copy;
    }

  const float sigma = a.sigma[c];
  const int groups = (rx1 - rx0) * (ry1 - ry0);

  for (int g = warp; g < groups; g += warps)
    {
      const int ry = ry0 + g / (rx1 - rx0);
      const int rx = rx0 + g % (rx1 - rx0);
      const size_t r = (size_t) (ry - a.ry_begin) * a.ax.n + rx;
      /* Entries past m were never written: not even read.  */
      const int m = a.counts[r];
      const int idx = lane < m ? a.lists[r * a.group_max + lane] : 0;

      if (lane < m)
        {
          py[lane] = idx / a.width;
          px[lane] = idx - py[lane] * a.width;
        }
      __syncwarp ();

      float weight;
      if (!WIENER)
        {
          gather_transform<K, 0> (buf, a.noisy[c], a.width, px, py, m, lane);
          const float thr = a.lambda * sigma;
          int kept = 0;
          switch (m)
            {
            case 1:  kept = threshold_group<1> (buf, thr, lane); break;
            case 2:  kept = threshold_group<2> (buf, thr, lane); break;
            case 4:  kept = threshold_group<4> (buf, thr, lane); break;
            case 8:  kept = threshold_group<8> (buf, thr, lane); break;
            case 16: kept = threshold_group<16> (buf, thr, lane); break;
            default: kept = threshold_group<32> (buf, thr, lane); break;
            }
          __syncwarp ();
          kept = (int) warp_sum ((float) kept);
          weight = 1.0f / (sigma * sigma * (float) max (kept, 1));
        }
      else
        {
          const float s2 = sigma * sigma;
          const float *z = a.noisy[c];
          float wsum;

          gather_transform<K, 2> (buf, a.basic[c], a.width, px, py, m, lane);
          switch (m)
            {
            case 1:  wsum = wiener_group<1, K> (buf, z, a.width, px, py, s2, lane); break;
            case 2:  wsum = wiener_group<2, K> (buf, z, a.width, px, py, s2, lane); break;
            case 4:  wsum = wiener_group<4, K> (buf, z, a.width, px, py, s2, lane); break;
            case 8:  wsum = wiener_group<8, K> (buf, z, a.width, px, py, s2, lane); break;
            case 16: wsum = wiener_group<16, K> (buf, z, a.width, px, py, s2, lane); break;
            default: wsum = wiener_group<32, K> (buf, z, a.width, px, py, s2, lane); break;
            }
          __syncwarp ();
          wsum = warp_sum (wsum);
          weight = wsum > 0.0f ? 1.0f / (s2 * wsum) : 1.0f / s2;
        }

      inverse_transform_weighted<K, WIENER ? 3 : 1> (buf, m, weight, kaiser,
                                                    lane);
      aggregate_group (a.num[c], a.weights[c], a.width, buf, px, py, m,
                       weight, lane);
      __syncwarp ();
    }

}

/* K: the phase's transform kind, or TRANSFORM_TABLE.  */
template <int K>
__global__ void
collaborative_filter_hard (filter_args a)
{
  collaborative_filter<false, K> (a);
}

template <int K>
__global__ void __launch_bounds__ (WIENER_WARPS * 32, WIENER_BLOCKS_PER_SM)
collaborative_filter_wiener (filter_args a)
{
  collaborative_filter<true, K> (a);
}

typedef void (*filter_kernel) (filter_args);

/* The filter of a phase for transform kind `kind` (TRANSFORM_TABLE: the
 * one reading c_transform).  */
static filter_kernel
filter_kernel_for (bool wiener, int kind)
{
  switch (kind)
    {
    case BM3D_TRANSFORM_DCT:
      return wiener ? collaborative_filter_wiener<BM3D_TRANSFORM_DCT>
                    : collaborative_filter_hard<BM3D_TRANSFORM_DCT>;
    case BM3D_TRANSFORM_BIOR15:
      return wiener ? collaborative_filter_wiener<BM3D_TRANSFORM_BIOR15>
                    : collaborative_filter_hard<BM3D_TRANSFORM_BIOR15>;
    default:
      return wiener ? collaborative_filter_wiener<TRANSFORM_TABLE>
                    : collaborative_filter_hard<TRANSFORM_TABLE>;
    }
}

/* ---- aggregation ------------------------------------------------------ */

/* A block of the aggregation: AGG_W x AGG_H pixels, whose denominators
 * need the patch weights of AGG_REACH more rows and columns above and to
 * the left (the patches covering them).  */
#define AGG_W      32
#define AGG_H      8
#define AGG_REACH  (BM3D_PATCH - 1)

typedef struct
{
  float       *num[BM3D_MAX_CHANNELS];
  const float *weights[BM3D_MAX_CHANNELS];
  float       *out[BM3D_MAX_CHANNELS];
  const float *fallback[BM3D_MAX_CHANNELS];
  int          channels;
  int          width, height;
  int          phase;     /* whose Kaiser window */
} aggregate_args;

/* result = numerator / denominator, the denominator being the patch
 * weights spread by the Kaiser window (see aggregate_group): for pixel
 * x, the sum over the corners p of the patches covering it of
 * weight (p) * kaiser (x - p), a row pass then a column pass of the
 * one-dimensional window through shared memory.  The numerator is
 * cleared for the next phase (the weights by the host: other blocks
 * still read them).  Every pixel is covered by the reference grid; the
 * fall-back only guards against a division by zero.  */
__global__ void __launch_bounds__ (AGG_W * AGG_H)
aggregate (aggregate_args a)
{
  __shared__ float corners[AGG_H + AGG_REACH][AGG_W + AGG_REACH];
  __shared__ float across[AGG_H + AGG_REACH][AGG_W];
  const int t = threadIdx.y * AGG_W + threadIdx.x;
  const int x0 = blockIdx.x * AGG_W - AGG_REACH;
  const int y0 = blockIdx.y * AGG_H - AGG_REACH;
  const int x = blockIdx.x * AGG_W + threadIdx.x;
  const int y = blockIdx.y * AGG_H + threadIdx.y;
  const float *k = c_kaiser_1d[a.phase];

  /* Unrolled, so the planes' pointers are read from the parameters
   * directly rather than through a local copy of them.  */
#pragma unroll
  for (int c = 0; c < BM3D_MAX_CHANNELS; c++)
    {
      if (c >= a.channels)
        break;
      for (int i = t; i < (AGG_H + AGG_REACH) * (AGG_W + AGG_REACH);
           i += AGG_W * AGG_H)
        {
          const int r = i / (AGG_W + AGG_REACH), q = i % (AGG_W + AGG_REACH);
          const int py = y0 + r, px = x0 + q;

          corners[r][q] = py >= 0 && px >= 0 && py < a.height && px < a.width
                          ? a.weights[c][(size_t) py * a.width + px] : 0.0f;
        }
      __syncthreads ();
      for (int i = t; i < (AGG_H + AGG_REACH) * AGG_W; i += AGG_W * AGG_H)
        {
          const int r = i / AGG_W, q = i % AGG_W;
          float s = 0.0f;

#pragma unroll
          for (int j = 0; j < BM3D_PATCH; j++)
            s = fmaf (k[j], corners[r][q + AGG_REACH - j], s);
          across[r][q] = s;
        }
      __syncthreads ();
      if (x < a.width && y < a.height)
        {
          const size_t o = (size_t) y * a.width + x;
          float d = 0.0f;

#pragma unroll
          for (int i = 0; i < BM3D_PATCH; i++)
            d = fmaf (k[i], across[threadIdx.y + AGG_REACH - i][threadIdx.x], d);
          a.out[c][o] = d > 0.0f ? a.num[c][o] / d : a.fallback[c][o];
          a.num[c][o] = 0.0f;
        }
      __syncthreads ();
    }
}

/* ---- host side ---------------------------------------------------- */

typedef struct
{
  int           warps;
  int           rect_x;    /* references per block, across */
  int           rect_y;    /* and down                     */
  size_t        smem;      /* dynamic shared bytes         */
} filter_config;


/* ---- host side: the matcher ------------------------------------------ */

/* BM3D_CUDA_MATCH=rows|warp picks the matcher: block_match_rows
 * wherever it applies, or never; unset or unknown, by the batch's size
 * (run_phase).  A testing and benchmarking switch, read once per
 * process.  */
typedef enum { ROW_MATCH_BY_SIZE, ROW_MATCH_ALWAYS, ROW_MATCH_NEVER } row_match_rule;

static pthread_once_t row_match_once = PTHREAD_ONCE_INIT;
static row_match_rule row_match_set = ROW_MATCH_BY_SIZE;

static void
row_match_read (void)
{
  const char *m = getenv ("BM3D_CUDA_MATCH");

  if (m && strcmp (m, "rows") == 0)
    row_match_set = ROW_MATCH_ALWAYS;
  else if (m && strcmp (m, "warp") == 0)
    row_match_set = ROW_MATCH_NEVER;
}

static row_match_rule
row_match_rule_get (void)
{
  pthread_once (&row_match_once, row_match_read);
  return row_match_set;
}

/* ---- host side: sizes ------------------------------------------------- */

/* Planes of a tile on the device: noisy, basic, numerator and patch
 * weights per channel, and the patch norms.  */
static size_t
plane_bytes_per_pixel (int channels)
{
  return sizeof (float) * (4 * (size_t) channels + 1);
}

static size_t
batch_rows_for (const ref_axis *ax, int rect)
{
  size_t rows = BATCH_REFS / (size_t) ax->n;

  rows -= rows % rect;
  return rows < (size_t) rect ? (size_t) rect : rows;
}

/* Per batch reference: its count and list, and the row matcher's list
 * of 64-bit keys while it searches (block_match_rows).  */
#define REF_BYTES ((BM3D_GROUP_MAX + 1) * sizeof (int) \
                   + BM3D_GROUP_MAX * sizeof (uint64_t))

static size_t
list_bytes (int batch_rows, int nx)
{
  return (size_t) batch_rows * nx * REF_BYTES + 256;
}

/* Device bytes beside a tile's planes: the lists of a batch at the
 * largest tile, and the norms' padding rows.  */
static size_t
tile_fixed_bytes (void)
{
  return (size_t) (BATCH_REFS + 16 * 4096) * REF_BYTES
         + 2 * NORM_PAD_ROWS * 4096 * sizeof (float);
}

extern "C" int
bm3d_cuda_tile_side (const bm3d_job *job)
{
  size_t budget = bm3d_cuda_budget_for (job);
  size_t lists, pixels;
  int side;

  /* Lists: at most about BATCH_REFS references plus one block row.  */
  lists = tile_fixed_bytes ();
  if (budget < lists + ((size_t) 64 << 20))
    return 3 * BM3D_PATCH * 8;
  pixels = (budget - lists) / plane_bytes_per_pixel (job->channels);
  side = (int) sqrt ((double) pixels) - 2 * job->margin;
  if (side > 4096)
    side = 4096;
  if (side < 3 * BM3D_PATCH * 8)
    side = 3 * BM3D_PATCH * 8;
  return side;
}

/* ---- host side: the literal transform tables --------------------------- */

static pthread_once_t literal_check_once = PTHREAD_ONCE_INIT;
static bool           literal_ok;

/* Whether the literal DCT has the symmetries dct_forward and
 * dct_inverse read off it: inverse = transpose, rows even (k even) or
 * odd (k odd) about their middle, and the even rows' halves even (0, 4)
 * or odd (2, 6) again, rows 0 and 4 of one magnitude.  */
static bool
dct_butterfly_holds (const float dct[2][BM3D_PATCH][BM3D_PATCH])
{
  bool ok = true;

  for (int k = 0; k < BM3D_PATCH; k++)
    for (int n = 0; n < BM3D_PATCH; n++)
      {
        const float f = dct[0][k][n];

        ok = ok && dct[1][n][k] == f
             && dct[0][k][7 - n] == (k & 1 ? -f : f);
        if (k % 2 == 0 && n < 4)
          ok = ok && dct[0][k][3 - n] == (k % 4 == 2 ? -f : f);
      }
  return ok && dct[0][0][1] == dct[0][0][0] && dct[0][4][1] == -dct[0][4][0];
}

/* Whether k_transform holds bm3d_transform_2d_init's tables (within the
 * 1e-6 its zeros were rounded by).  */
static void
literal_transforms_check (void)
{
  static const float lit[2][2][BM3D_PATCH][BM3D_PATCH] = TRANSFORM_LITERALS;
  bool ok = true;

  for (int k = 0; ok && k < 2; k++)
    {
      bm3d_transform_2d t;

      bm3d_transform_2d_init ((bm3d_transform_kind) k, &t);
      for (int i = 0; i < BM3D_PATCH; i++)
        for (int j = 0; j < BM3D_PATCH; j++)
          ok = ok && fabsf (lit[k][0][i][j] - t.fwd[i][j]) <= 1e-6f
                  && fabsf (lit[k][1][i][j] - t.inv[i][j]) <= 1e-6f;
    }
  literal_ok = ok && dct_butterfly_holds (lit[BM3D_TRANSFORM_DCT]);
}

/* The kind the filters are built for: the phase's, or TRANSFORM_TABLE
 * should the literal tables not match.  */
static int
filter_transform_kind (int kind)
{
  pthread_once (&literal_check_once, literal_transforms_check);
  return literal_ok && (kind == BM3D_TRANSFORM_DCT
                        || kind == BM3D_TRANSFORM_BIOR15)
         ? kind : TRANSFORM_TABLE;
}

/* ---- host side: one tile ---------------------------------------------- */

static bm3d_status
upload_tables (bm3d_job *job)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const bm3d_profile *pr = &job->profile;
  int key = pr->hard.transform_2d * 4 + pr->wiener.transform_2d;
  bm3d_transform_2d t[2];
  float tf[4][BM3D_PATCH][BM3D_PATCH];
  float kaiser[2][BM3D_PATCH][BM3D_PATCH];
  float kaiser_1d[2][BM3D_PATCH];
  double k1[BM3D_PATCH];

  bm3d_transform_2d_init (pr->hard.transform_2d, &t[0]);
  bm3d_transform_2d_init (pr->wiener.transform_2d, &t[1]);
  memcpy (tf[0], t[0].fwd, sizeof tf[0]);
  memcpy (tf[1], t[0].inv, sizeof tf[1]);
  memcpy (tf[2], t[1].fwd, sizeof tf[2]);
  memcpy (tf[3], t[1].inv, sizeof tf[3]);
  bm3d_kaiser_window (pr->hard.kaiser_beta, kaiser[0]);
  bm3d_kaiser_window (pr->wiener.kaiser_beta, kaiser[1]);
  for (int ph = 0; ph < 2; ph++)
    {
      bm3d_kaiser_1d (ph == 0 ? pr->hard.kaiser_beta : pr->wiener.kaiser_beta,
                      k1);
      for (int i = 0; i < BM3D_PATCH; i++)
        kaiser_1d[ph][i] = (float) k1[i];
    }
  /* The betas are part of the key through their bits.  */
  key ^= (int) (pr->hard.kaiser_beta * 1000) * 16
         ^ (int) (pr->wiener.kaiser_beta * 1000) * 65536;
  if (key == dev->bm3d_tables_for)
    return BM3D_OK;
  BM3D_CUDA_CHECK (job, cudaMemcpyToSymbolAsync (c_transform, tf, sizeof tf, 0,
                                                 cudaMemcpyHostToDevice,
                                                 dev->stream));
  BM3D_CUDA_CHECK (job, cudaMemcpyToSymbolAsync (c_kaiser, kaiser,
                                                 sizeof kaiser, 0,
                                                 cudaMemcpyHostToDevice,
                                                 dev->stream));
  BM3D_CUDA_CHECK (job, cudaMemcpyToSymbolAsync (c_kaiser_1d, kaiser_1d,
                                                 sizeof kaiser_1d, 0,
                                                 cudaMemcpyHostToDevice,
                                                 dev->stream));
  BM3D_CUDA_CHECK (job, cudaStreamSynchronize (dev->stream));
  dev->bm3d_tables_for = key;
  return BM3D_OK;
}

/* Block shape of a filter kernel: 4x4 references for the Wiener filter
 * (on an H100 this beat 8x8, and 2x2 with the sums in global memory),
 * 8x4 for the hard-thresholding filter, whose groups are shorter: four
 * a warp beat two (4x4), and 8x8 and 16x8 left too few blocks for the
 * last wave on gray images (BENCHMARKS.md); fewer warps where shared
 * memory is short.  */
template <bool WIENER>
static filter_config
filter_config_for (const bm3d_cuda_device *dev, int group_max)
{
  const int warp_floats = filter_warp_floats (WIENER, group_max);
  static const int warps_try[] = { WIENER ? WIENER_WARPS : HARD_WARPS, 4, 2, 1 };
  static const int rect_x_try[] = { WIENER ? 4 : 8, 4, 4, 2 };
  static const int rect_y_try[] = { 4, 4, 4, 2 };
  filter_config f = { 1, 1, 1, 0 };

  for (int i = 0; i < 4; i++)
    {
      size_t bytes = sizeof (float) * (size_t) warps_try[i] * warp_floats
                     + sizeof (int) * 64 * warps_try[i]
                     + (WIENER ? sizeof (float) * BM3D_PATCH_AREA : 0);
      f.warps = warps_try[i];
      f.rect_x = rect_x_try[i];
      f.rect_y = rect_y_try[i];
      f.smem = bytes;
      if (bytes <= (size_t) dev->smem_optin)
        break;
    }
  return f;
}

typedef struct
{
  int           width, height, channels;
  size_t        count;
  float        *noisy[BM3D_MAX_CHANNELS];
  float        *basic[BM3D_MAX_CHANNELS];
  float        *num[BM3D_MAX_CHANNELS];
  float        *weights[BM3D_MAX_CHANNELS];
  float        *norm_rows;      /* norms, NORM_PAD_ROWS rows above row 0 */
  int          *lists;
  int          *counts;
  uint64_t     *keys;
  int           batch_rows;
  size_t        plane_floats;   /* floats a plane holds, padding included */
} tile_buffers;

/* One phase: block matching and collaborative filtering batch by batch,
 * then aggregation into `result`.  */
static bm3d_status
run_phase (const tile_buffers *tb, int phase, bm3d_job *job,
           int *batches_done, int batches_total, float *const *result,
           const float *sigma)
{
  const bm3d_phase_profile *pp = phase == 0 ? &job->profile.hard
                                            : &job->profile.wiener;
  const bool wiener = phase == 1;
  const ref_axis ax = ref_axis_for (tb->width, pp->step);
  const ref_axis ay = ref_axis_for (tb->height, pp->step);
  const int radius = pp->search / 2;
  float *const *match_plane = wiener ? tb->basic : tb->noisy;
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const int group_max = pp->group_max < BM3D_GROUP_MAX ? pp->group_max
                                                       : BM3D_GROUP_MAX;
  filter_config fc = wiener ? filter_config_for<true> (dev, group_max)
                            : filter_config_for<false> (dev, group_max);
  match_args ma;
  filter_args fa;
  dim3 nb ((tb->width + 31) / 32, (tb->height + 2 * radius + 7) / 8);

  float *norms = tb->norm_rows + (size_t) NORM_PAD_ROWS * tb->width;
  patch_norms<<<nb, dim3 (32, 8), 0, dev->stream>>> (match_plane[0], tb->width,
                                                       tb->height, radius,
                                                       norms);
  BM3D_CUDA_CHECK_LAUNCH (job, "patch_norms");

  int mw = pp->step * (MATCH_WARPS - 1) + 2 * radius + BM3D_PATCH;
  int mh = 2 * radius + BM3D_PATCH;
  size_t match_smem = sizeof (float) * (size_t) mw * (2 * mh + BM3D_PATCH)
                      + sizeof (uint64_t) * MATCH_WARPS * MATCH_PENDING;
  BM3D_CUDA_CHECK (job, cudaFuncSetAttribute (block_match,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              (int) match_smem));
  const filter_kernel filter
    = filter_kernel_for (wiener, filter_transform_kind (pp->transform_2d));
  BM3D_CUDA_CHECK (job, cudaFuncSetAttribute (filter,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              (int) fc.smem));

  memset (&ma, 0, sizeof ma);
  ma.plane = match_plane[0];
  ma.norms = norms;
  ma.width = tb->width;
  ma.height = tb->height;
  ma.ax = ax;
  ma.ay = ay;
  ma.radius = radius;
  ma.group_max = pp->group_max < BM3D_GROUP_MAX ? pp->group_max : BM3D_GROUP_MAX;
  ma.tau = match_tau (pp->tau_match);
  ma.lists = tb->lists;
  ma.counts = tb->counts;
  ma.keys = tb->keys;

  memset (&fa, 0, sizeof fa);
  for (int c = 0; c < tb->channels; c++)
    {
      fa.noisy[c] = tb->noisy[c];
      fa.basic[c] = tb->basic[c];
      fa.num[c] = tb->num[c];
      fa.weights[c] = tb->weights[c];
      fa.sigma[c] = sigma[c];
    }
  fa.lambda = pp->lambda_3d;
  fa.width = tb->width;
  fa.height = tb->height;
  fa.ax = ax;
  fa.ay = ay;
  fa.radius = radius;
  fa.group_max = ma.group_max;
  fa.rect_x = fc.rect_x;
  fa.rect_y = fc.rect_y;
  fa.lists = tb->lists;
  fa.counts = tb->counts;

  const int rect = fc.rect_y;
  /* Matching goes along reference rows where that layout applies (the
   * reference step 3) and fits, and the batches fill the device: its
   * warps take 30 references each, so on a small tile too few of them
   * run at once to hide their latency (BENCHMARKS.md); block_match
   * takes the rest, and the last column where the grid adds one.  */
  const size_t row_smem = bm3d_cuda_row_match_smem (pp->step, radius,
                                                    ma.group_max,
                                                    dev->smem_optin);
  const size_t batch_refs = (size_t) ax.n
                            * (ay.n < tb->batch_rows ? ay.n : tb->batch_rows);
  const row_match_rule rule = row_match_rule_get ();
  const bool row_match = row_smem > 0 && rule != ROW_MATCH_NEVER
                         && (rule == ROW_MATCH_ALWAYS
                             || batch_refs >= (size_t) dev->sm_count
                                              * ROW_MATCH_REFS_PER_SM);

  /* Batches of whole filter blocks (batch_rows is a multiple of 8).  */
  int rows = tb->batch_rows - tb->batch_rows % rect;
  if (rows < rect)
    rows = rect;
  int b = 0;
  for (int ry = 0; ry < ay.n; ry += rows, b++)
    {
      int ry_end = ry + rows < ay.n ? ry + rows : ay.n;

      ma.ry_begin = fa.ry_begin = ry;
      ma.ry_end = fa.ry_end = ry_end;
      if (row_match)
        {
          BM3D_CUDA_CHECK (job, bm3d_cuda_row_match_launch (&ma, row_smem,
                                                            dev->stream));
          if (ax.n > ax.n_regular)
            {
              ma.rx_begin = ax.n_regular;
              block_match<<<dim3 (1, ry_end - ry), MATCH_WARPS * 32,
                            match_smem, dev->stream>>> (ma);
              BM3D_CUDA_CHECK_LAUNCH (job, "block_match");
              ma.rx_begin = 0;
            }
        }
      else
        {
          block_match<<<dim3 ((ax.n + MATCH_WARPS - 1) / MATCH_WARPS,
                              ry_end - ry),
                        MATCH_WARPS * 32, match_smem, dev->stream>>> (ma);
          BM3D_CUDA_CHECK_LAUNCH (job, "block_match");
        }

      dim3 grid ((ax.n + fc.rect_x - 1) / fc.rect_x,
                 (ry_end - ry + fc.rect_y - 1) / fc.rect_y, tb->channels);
      filter<<<grid, fc.warps * 32, fc.smem, dev->stream>>> (fa);
      BM3D_CUDA_CHECK_LAUNCH (job, "collaborative_filter");

      /* Keep one batch queued behind the one being waited for, so the
       * device never idles while the host reports progress.  */
      BM3D_CUDA_CHECK (job, cudaEventRecord (dev->batch_done[b & 1],
                                             dev->stream));
      if (b > 0)
        {
          BM3D_CUDA_CHECK (job, cudaEventSynchronize (dev->batch_done[(b - 1) & 1]));
          ++*batches_done;
          if (job->tick (job, (double) *batches_done / batches_total))
            {
              BM3D_CUDA_CHECK (job, cudaStreamSynchronize (dev->stream));
              bm3d_job_message (job, "cancelled");
              return BM3D_ERR_CANCELLED;
            }
        }
    }
  ++*batches_done;

  aggregate_args ag;
  memset (&ag, 0, sizeof ag);
  for (int c = 0; c < tb->channels; c++)
    {
      ag.num[c] = tb->num[c];
      ag.weights[c] = tb->weights[c];
      ag.out[c] = result[c];
      ag.fallback[c] = tb->noisy[c];
    }
  ag.channels = tb->channels;
  ag.width = tb->width;
  ag.height = tb->height;
  ag.phase = phase;
  aggregate<<<dim3 ((tb->width + AGG_W - 1) / AGG_W,
                    (tb->height + AGG_H - 1) / AGG_H),
              dim3 (AGG_W, AGG_H), 0, dev->stream>>> (ag);
  BM3D_CUDA_CHECK_LAUNCH (job, "aggregate");
  for (int c = 0; c < tb->channels; c++)
    BM3D_CUDA_CHECK (job, cudaMemsetAsync (tb->weights[c], 0,
                                           tb->count * sizeof (float),
                                           dev->stream));
  return BM3D_OK;
}

/* Carve the workspace into the buffers of tiles of at most `max_w` x
 * `max_h` pixels and `C` channels, with `extra` more bytes at the end
 * (256-byte aligned) for the caller.  */
static bm3d_status
tile_buffers_reserve (int max_w, int max_h, int C, size_t extra,
                      bm3d_job *job, tile_buffers *tb, void **extra_ptr)
{
  const ref_axis ax1 = ref_axis_for (max_w, job->profile.hard.step);
  const ref_axis ax2 = ref_axis_for (max_w, job->profile.wiener.step);
  const ref_axis *ax = ax1.n > ax2.n ? &ax1 : &ax2;
  /* Room for aggregate_group's last run of four past the last pixel.  */
  const size_t plane_floats = ((size_t) max_w * max_h + 4 + 63) & ~(size_t) 63;
  /* Batches of whole blocks of 8 reference rows, no more than a tile
   * holds.  */
  const ref_axis ay1 = ref_axis_for (max_h, job->profile.hard.step);
  const ref_axis ay2 = ref_axis_for (max_h, job->profile.wiener.step);
  const int tile_rows = ((ay1.n > ay2.n ? ay1.n : ay2.n) + 7) / 8 * 8;
  const int batch_rows = (int) batch_rows_for (ax, 8);
  const int rows = batch_rows < tile_rows ? batch_rows : tile_rows;
  const size_t norm_floats = (plane_floats + 2 * (size_t) NORM_PAD_ROWS * max_w
                              + 63) & ~(size_t) 63;
  size_t bytes, off = 0, list_off;
  bm3d_status status;

  bytes = (plane_floats * 4 * C + norm_floats) * sizeof (float)
          + list_bytes (rows, ax->n) + 256;
  list_off = bytes;
  bytes += (extra + 255) & ~(size_t) 255;
  if ((status = bm3d_cuda_reserve (job, bytes)) != BM3D_OK)
    return status;

  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  float *f = (float *) dev->workspace;
  memset (tb, 0, sizeof *tb);
  tb->channels = C;
  tb->batch_rows = rows;
  tb->plane_floats = plane_floats;
  for (int c = 0; c < C; c++)
    {
      tb->noisy[c] = f + off; off += plane_floats;
      tb->basic[c] = f + off; off += plane_floats;
      tb->num[c] = f + off; off += plane_floats;
      tb->weights[c] = f + off; off += plane_floats;
    }
  tb->norm_rows = f + off; off += norm_floats;
  tb->counts = (int *) (f + off);
  tb->lists = tb->counts + ((size_t) rows * ax->n + 63) / 64 * 64;
  tb->keys = (uint64_t *) (tb->lists
                           + ((size_t) rows * ax->n * BM3D_GROUP_MAX + 63)
                             / 64 * 64);
  if (extra_ptr)
    *extra_ptr = (char *) dev->workspace + list_off;
  return BM3D_OK;
}

/* Both phases on a tile whose noisy planes are (being) uploaded into
 * `tb`; `result` gets the planes holding the output.  Waits for the
 * device and adds the phases' times to the report.  */
static bm3d_status
tile_denoise (tile_buffers *tb, int width, int height, const float *sigma,
              bm3d_job *job, float *const **result)
{
  const ref_axis ay1 = ref_axis_for (height, job->profile.hard.step);
  const ref_axis ay2 = ref_axis_for (height, job->profile.wiener.step);
  const int rows = tb->batch_rows;
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  bm3d_status status;
  int batches, done = 0;
  float ms;

  tb->width = width;
  tb->height = height;
  tb->count = (size_t) width * height;
  for (int c = 0; c < tb->channels; c++)
    {
      /* The whole plane, padding included: the vector reductions of
       * aggregation read (and add zeros to) the floats past the last
       * pixel.  */
      BM3D_CUDA_CHECK (job, cudaMemsetAsync (tb->num[c], 0,
                                             tb->plane_floats * sizeof (float),
                                             dev->stream));
      BM3D_CUDA_CHECK (job, cudaMemsetAsync (tb->weights[c], 0,
                                             tb->plane_floats * sizeof (float),
                                             dev->stream));
    }

  batches = (ay1.n + rows - 1) / rows;
  if (job->phases > 1)
    batches += (ay2.n + rows - 1) / rows;

  BM3D_CUDA_CHECK (job, cudaEventRecord (dev->ev[0], dev->stream));
  status = run_phase (tb, 0, job, &done, batches, tb->basic, sigma);
  if (status != BM3D_OK)
    return status;
  BM3D_CUDA_CHECK (job, cudaEventRecord (dev->ev[1], dev->stream));
  if (job->phases > 1)
    {
      /* The noisy planes are no longer needed once phase 2's groups are
       * filtered: the result goes there.  */
      status = run_phase (tb, 1, job, &done, batches, tb->noisy, sigma);
      if (status != BM3D_OK)
        return status;
    }
  BM3D_CUDA_CHECK (job, cudaEventRecord (dev->ev[2], dev->stream));
  BM3D_CUDA_CHECK (job, cudaEventSynchronize (dev->ev[2]));

  BM3D_CUDA_CHECK (job, cudaEventElapsedTime (&ms, dev->ev[0], dev->ev[1]));
  job->report->seconds_phase[0] += ms * 1e-3;
  if (job->phases > 1)
    {
      BM3D_CUDA_CHECK (job, cudaEventElapsedTime (&ms, dev->ev[1],
                                                  dev->ev[2]));
      job->report->seconds_phase[1] += ms * 1e-3;
    }
  *result = job->phases > 1 ? tb->noisy : tb->basic;
  return BM3D_OK;
}

static bm3d_status
denoise_tile (const bm3d_planes *noisy, bm3d_planes *out, bm3d_job *job)
{
  tile_buffers tb;
  const int C = noisy->channels;
  const size_t count = (size_t) noisy->width * noisy->height;
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  float *const *result;
  bm3d_status status;

  if (C != 1 && C != 3)
    {
      bm3d_job_message (job, "CUDA backend: %d channels in a tile", C);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if ((status = upload_tables (job)) != BM3D_OK
      || (status = tile_buffers_reserve (noisy->width, noisy->height, C, 0,
                                         job, &tb, NULL)) != BM3D_OK)
    return status;
  for (int c = 0; c < C; c++)
    BM3D_CUDA_CHECK (job, cudaMemcpyAsync (tb.noisy[c], noisy->plane[c],
                                           count * sizeof (float),
                                           cudaMemcpyHostToDevice,
                                           dev->stream));
  status = tile_denoise (&tb, noisy->width, noisy->height, noisy->sigma, job,
                         &result);
  if (status != BM3D_OK)
    return status;
  for (int c = 0; c < C; c++)
    BM3D_CUDA_CHECK (job, cudaMemcpyAsync (out->plane[c], result[c],
                                           count * sizeof (float),
                                           cudaMemcpyDeviceToHost,
                                           dev->stream));
  BM3D_CUDA_CHECK (job, cudaStreamSynchronize (dev->stream));
  return BM3D_OK;
}

/* Every entry point holds its device for the whole call (one stream,
 * one workspace).  */
extern "C" bm3d_status
bm3d_cuda_tile (const bm3d_planes *noisy, bm3d_planes *out, bm3d_job *job)
{
  bm3d_cuda_device *dev;
  bm3d_status status = bm3d_cuda_enter (job, &dev);

  if (status != BM3D_OK)
    return status;
  return bm3d_cuda_leave (job, denoise_tile (noisy, out, job));
}

/* ---- whole images ------------------------------------------------------ */

/* denoise_image's steps for bm3d_cuda_tiled_image; ctx: tile_buffers.  */
static float *const *
image_tile_input (void *ctx, const bm3d_cuda_core *, bm3d_job *)
{
  return ((tile_buffers *) ctx)->noisy;
}

static bm3d_status
image_tile_denoise (void *ctx, const bm3d_cuda_core *core,
                    const float *const **result, bm3d_job *job)
{
  float *const *planes;
  bm3d_status status = tile_denoise ((tile_buffers *) ctx, core->tile_width,
                                     core->tile_height, job->sigma, job,
                                     &planes);

  *result = planes;
  return status;
}

static bm3d_status
denoise_image (const bm3d_image *in, bm3d_image *out, bm3d_job *job)
{
  const int W = in->width, H = in->height, ch = in->channels;
  const int colour = ch - (in->has_alpha ? 1 : 0);
  const size_t out_bytes = ((size_t) W * H * ch * sizeof (float) + 255)
                           & ~(size_t) 255;
  const size_t lists = tile_fixed_bytes ();
  const size_t per_px = plane_bytes_per_pixel (colour) + ch * sizeof (float);
  const int margin = job->margin;
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  size_t budget;
  tile_buffers tb;
  void *extra;
  bm3d_status status;
  int side, max_w, max_h;

  if (W < BM3D_PATCH || H < BM3D_PATCH || (colour != 1 && colour != 3))
    return BM3D_ERR_NOT_IMPLEMENTED;
  budget = bm3d_cuda_budget (dev);
  /* The whole output stays on the device until every tile is done, so
   * `out` is written only on success; images too large for that go
   * through the host's tiler.  */
  if (out_bytes + lists + per_px * 512 * 512 > budget)
    return BM3D_ERR_NOT_IMPLEMENTED;
  side = (int) sqrt ((double) ((budget - out_bytes - lists) / per_px))
         - 2 * margin;
  if (side > 4096)
    side = 4096;
  /* Keeps the reference grid aligned across tiles.  */
  side = bm3d_tile_side_aligned (job, side);
  max_w = side + 2 * margin < W ? side + 2 * margin : W;
  max_h = side + 2 * margin < H ? side + 2 * margin : H;

  const size_t staging_bytes = ((size_t) max_w * max_h * ch * sizeof (float)
                                + 255) & ~(size_t) 255;
  if ((status = upload_tables (job)) != BM3D_OK
      || (status = tile_buffers_reserve (max_w, max_h, colour,
                                         out_bytes + staging_bytes, job, &tb,
                                         &extra)) != BM3D_OK)
    return status;
  float *dev_out = (float *) extra;
  float *staging = (float *) ((char *) extra + out_bytes);

  const bm3d_cuda_tile_steps steps = { &tb, image_tile_input,
                                       image_tile_denoise };

  return bm3d_cuda_tiled_image (in, out, side, colour, staging, dev_out,
                                &steps, job);
}

extern "C" bm3d_status
bm3d_cuda_image (const bm3d_image *in, bm3d_image *out, bm3d_job *job)
{
  bm3d_cuda_device *dev;
  bm3d_status status = bm3d_cuda_enter (job, &dev);

  if (status != BM3D_OK)
    return status;
  return bm3d_cuda_leave (job, denoise_image (in, out, job));
}
