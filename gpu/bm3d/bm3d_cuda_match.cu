/* BM3D Denoise — CUDA block matching: patch_norms and block_match.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The CUDA side of block_match in bm3d_cpu.c: the same search (every
 * displacement of the window, the reference first, then the best N - 1
 * candidates by distance and raster index, within tau), laid out for a
 * GPU after Honzátko and Kruliš 2017:
 *
 *   patch_norms      |Q|^2 of every patch of the centred plane, once per
 *                    phase, so a distance is |P|^2 + |Q|^2 - 2 P.Q.
 *   block_match      a warp per reference patch; the block's references
 *                    share one search window in shared memory; each pair
 *                    of lanes slides down a candidate column, one lane
 *                    with the reference's left half, one with its right
 *                    half, so one loaded row serves eight candidates and
 *                    few registers leave room for more warps; each lane
 *                    of the pair then screens four of the eight, so no
 *                    lane idles through the per-candidate bookkeeping,
 *                    which costs about as many instructions as the
 *                    products themselves would otherwise; the best N
 *                    are kept as a warp-wide sorted list of 64-bit keys
 *                    (distance bits | raster index), so ties break by
 *                    raster index as on the CPU; a candidate farther
 *                    than the list's N-th best (or tau) is dropped with
 *                    one compare, the others wait in a per-warp buffer
 *                    in shared memory until 32 of them can be sorted and
 *                    merged into the list at once (bm3d_cuda_kernels.cuh).
 *
 * block_match_rows (bm3d_cuda_match_rows.cu) takes the place of
 * block_match on large tiles at the reference step 3; run_phase
 * (bm3d_cuda.cu) picks the matcher.  */
#include <cuda_runtime.h>

#include <stddef.h>
#include <stdint.h>

#include "bm3d_cuda_kernels.cuh"

/* Block matching: references (warps) per block, and blocks an SM
 * should hold (which bounds the registers per thread: 65536 / (32 *
 * warps * blocks)): the step waits on shared-memory loads and shuffles,
 * so more warps help.  */
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

/* patch_norms' blocks: a warp-wide row of corners, eight rows.  */
#define NORMS_BLOCK_W 32
#define NORMS_BLOCK_H 8

/* ---- patch norms ----------------------------------------------------- */

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

/* ---- block matching -------------------------------------------------- */


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

          dot[k] = mine + __shfl_xor_sync (BM3D_CUDA_FULL_MASK, give, 1);
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
          const unsigned mask = __ballot_sync (BM3D_CUDA_FULL_MASK, keep);

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

  const int found = __popc (__ballot_sync (BM3D_CUDA_FULL_MASK,
                                           list != ~(uint64_t) 0));
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

/* ---- launchers ------------------------------------------------------- */

void
bm3d_cuda_patch_norms_launch (const float *plane, int width, int height,
                              int pad, float *norms, cudaStream_t stream)
{
  dim3 grid ((width + NORMS_BLOCK_W - 1) / NORMS_BLOCK_W,
             (height + 2 * pad + NORMS_BLOCK_H - 1) / NORMS_BLOCK_H);

  patch_norms<<<grid, dim3 (NORMS_BLOCK_W, NORMS_BLOCK_H), 0, stream>>>
    (plane, width, height, pad, norms);
}

size_t
bm3d_cuda_block_match_smem (int step, int radius)
{
  const int mw = step * (MATCH_WARPS - 1) + 2 * radius + BM3D_PATCH;
  const int mh = 2 * radius + BM3D_PATCH;

  return sizeof (float) * (size_t) mw * (2 * mh + BM3D_PATCH)
         + sizeof (uint64_t) * MATCH_WARPS * MATCH_PENDING;
}

cudaError_t
bm3d_cuda_block_match_setup (size_t smem)
{
  return cudaFuncSetAttribute (block_match,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               (int) smem);
}

void
bm3d_cuda_block_match_launch (const match_args *ma, size_t smem,
                              cudaStream_t stream)
{
  dim3 grid ((ma->ax.n - ma->rx_begin + MATCH_WARPS - 1) / MATCH_WARPS,
             ma->ry_end - ma->ry_begin);

  block_match<<<grid, MATCH_WARPS * 32, smem, stream>>> (*ma);
}
