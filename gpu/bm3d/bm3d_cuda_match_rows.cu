/* BM3D Denoise — CUDA block matching with products shared along a row.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The same search as block_match in bm3d_cpu.c (every displacement of
 * the window, the reference first, then the best N - 1 candidates by
 * distance and raster index, within tau), for the reference step 3,
 * with the distance products shared between neighbouring references:
 *
 *   A warp takes a row of references, and lane l the three pixel
 *   columns x0 + 3l .. x0 + 3l + 2 of the plane, which begin its own
 *   reference's patch and end the patches of the two references to its
 *   left.  For one displacement (dx, dy) the lane forms, for each of its
 *   columns, the sum over the patch's eight rows of
 *     I(col, y + i) I(col + dx, y + i + dy),
 *   24 multiply-adds; the reference's P.Q is its own three columns' sum
 *   plus the next lane's three and the one after's first two, two
 *   shuffles.  So a distance takes 24 multiply-adds instead of 64, and
 *   30 lanes of 32 own a reference.  The lane walks dy down a column of
 *   candidates with the last eight candidate rows of its three columns
 *   in registers (one new row, three loads, per displacement), dx from
 *   0 outwards (0, 1, -1, 2, ...) and, for each, the rows from just
 *   above the reference down before those further up, so good
 *   candidates come early and the entry bound tightens soon.
 *
 *   The distance |P|^2 + |Q|^2 - 2 P.Q (norms from patch_norms, read
 *   from its plane) is screened against the reference's entry bound,
 *   held by its lane; the few that pass wait in the lane's buffer in
 *   shared memory, and every eight displacements, when a buffer is
 *   nearly full, the fuller buffers are sorted and merged, one
 *   reference at a time by the whole warp, into the references' lists
 *   (global memory, match_args.keys): block_match's 64-bit keys and
 *   bitonic merge (bm3d_cuda_kernels.cuh), so the lists are
 *   block_match's.
 *
 *   The block's rows share one window of the plane in shared memory,
 *   wide and tall enough that every displacement of every lane reads
 *   inside it (zeros outside the plane); candidates whose patch leaves
 *   the plane read MATCH_NORM_NONE (rows above and below: the norms'
 *   padding) or are skipped (sideways), so references near the borders
 *   need no other case.  A grid whose last column is not a multiple of
 *   the step leaves that column to block_match (see run_phase).
 *
 * Against block_match this executes about 40 % fewer instructions, but
 * with the per-reference state in shared memory four blocks of four
 * warps fill an SM, and a warp holds 30 references: it wins on large
 * tiles only (docs/cuda-experiments.md).  */
#include <cuda_runtime.h>

#include <stddef.h>
#include <stdint.h>

#include "bm3d_cuda_kernels.cuh"

/* The reference step this layout is built for, and the lanes that hold
 * a reference: the last two only lend their columns to the two
 * references before them.  */
#define RM_STEP   3
#define RM_REFS   (32 - (BM3D_PATCH + RM_STEP - 1) / RM_STEP + 1)

/* Reference rows (warps) of a block, and blocks per SM: 53.5 KB of
 * shared memory a block for the standard window, and at most 128
 * registers a thread.  */
#define RM_WARPS       4
#define RM_MIN_BLOCKS  4

/* Vertical displacements between two looks at the distances: the ring
 * of candidate rows turns once.  */
#define RM_CHUNK    8

/* Candidates a lane's buffer holds: a look merges every buffer when one
 * holds more than RM_PENDING - RM_CHUNK, so the next look's candidates
 * always fit; it then takes the buffers holding more than RM_MERGE_MIN
 * (a merge costs the same for one key as for 32, so the fuller the
 * buffers, the fewer the merges).  A waiting candidate is its distance
 * and its displacement (rm_code), 6 bytes, not its 8-byte key: so 32 fit
 * where 24 keys did.  Between two lanes' buffers an odd number of
 * entries, so a warp's reads of one buffer fall in distinct banks.  */
#define RM_PENDING     32
#define RM_MERGE_MIN   20
#define RM_PEND_STRIDE (RM_PENDING + 1)

static_assert (RM_REFS == 30, "three columns a lane, eight a patch");
static_assert (RM_CHUNK == BM3D_PATCH, "the ring turns once a chunk");
static_assert (RM_PENDING <= 32 && RM_MERGE_MIN < RM_PENDING - RM_CHUNK,
               "a buffer is sorted by the warp and holds a look");
static_assert (RM_PEND_STRIDE % 2 == 1, "buffers an odd number of entries apart");
static_assert (RM_REFS * RM_PEND_STRIDE * 6 % 4 == 0,
               "a warp's buffers keep the next ones' floats aligned");

/* A displacement as a buffer entry: row d = dy + radius of the walk and
 * dx + radius, each below 128 for search windows up to 75 (bm3d.h).  */
__device__ __forceinline__ uint16_t
rm_code (int d, int dx, int radius)
{
  return (uint16_t) (d * 128 + dx + radius);
}

/* Shared memory of a block: per warp the lanes' buffers, distances
 * (lane l's entry k at l * RM_PEND_STRIDE + k) then displacements in the
 * same places; then the window's pixels.  */
typedef struct
{
  int w;           /* floats per row: 32 lanes' columns and the search   */
  int h;           /* rows: every candidate row read                     */
} rm_window;

/* The rows of a walk (d = dy + radius) come in two parts: first the
 * last whole chunks, from just above the reference down (rm_near_begin
 * .. 2 radius), whose first candidates lie near the reference, then the
 * rows above (0 .. rm_near_begin - 1).  */
__host__ __device__ __forceinline__ int
rm_near_begin (int radius)
{
  const int near = (radius + RM_CHUNK) / RM_CHUNK * RM_CHUNK;

  return max (0, 2 * radius + 1 - near);
}

/* Rows of a walk read: the first part's last chunk may run past the
 * walk's end, into rows the window must hold.  */
__host__ __device__ __forceinline__ int
rm_walk_rows (int radius)
{
  return max (2 * radius + 1,
              rm_near_begin (radius) + (radius + RM_CHUNK) / RM_CHUNK * RM_CHUNK);
}

__host__ __device__ __forceinline__ rm_window
rm_window_for (int radius, int row_span)
{
  rm_window w;

  w.w = 32 * RM_STEP + 2 * radius;
  w.h = row_span + rm_walk_rows (radius) + BM3D_PATCH - 1;
  return w;
}

/* The warp's buffers: distances and displacements.  */
typedef struct
{
  float    *dist;
  uint16_t *code;
} rm_buffers;

/* Reference s's list merged with its buffer's n entries: their keys
 * (key_row: the raster index + 1 of displacement (-radius, -radius) of
 * the warp's first reference), sorted across the warp, then a bitonic
 * merge (bm3d_cuda_kernels.cuh).  Warp-uniform.  */
__device__ __forceinline__ uint64_t
rm_merged (const uint64_t *lists, rm_buffers pend, int s, int n,
           uint32_t key_row, int width, int group_max, int lane)
{
  const uint64_t list = lane < group_max ? lists[s * group_max + lane]
                                         : ~(uint64_t) 0;
  uint64_t key = ~(uint64_t) 0;

  if (lane < n)
    {
      const int e = s * RM_PEND_STRIDE + lane;
      const unsigned c = pend.code[e];

      key = match_key (pend.dist[e], key_row + RM_STEP * s
                                     + (c >> 7) * (unsigned) width + (c & 127));
    }
  return merge_sorted (list, sort_keys (key, lane), lane);
}

/* Merges the buffers of the references whose lanes ask (`who`) into
 * their lists and gives each of those lanes its new entry bound.  Two
 * references at a time: a merge is a chain of shuffles, each waiting
 * for the one before, and two chains fill each other's waits.
 * Warp-uniform.  */
__device__ __forceinline__ void
rm_merge (unsigned who, uint64_t *lists, rm_buffers pend, uint32_t key_row,
          int width, int group_max, float tau, int lane, int &pending,
          float &bound_sum)
{
  __syncwarp ();
  while (who)
    {
      const int r1 = __ffs (who) - 1;
      who &= who - 1;
      const bool two = who != 0;
      const int r2 = two ? __ffs (who) - 1 : r1;
      who &= who - 1;
      const int n1 = __shfl_sync (BM3D_CUDA_FULL_MASK, pending, r1);
      const int n2 = __shfl_sync (BM3D_CUDA_FULL_MASK, pending, r2);
      const uint64_t list1 = rm_merged (lists, pend, r1, n1, key_row, width,
                                        group_max, lane);
      const uint64_t list2 = rm_merged (lists, pend, r2, two ? n2 : 0,
                                        key_row, width, group_max, lane);

      if (lane < group_max)
        {
          lists[r1 * group_max + lane] = list1;
          if (two)
            lists[r2 * group_max + lane] = list2;
        }
      const float b1 = entry_bound (list1, group_max, tau) * BM3D_PATCH_AREA;
      const float b2 = entry_bound (list2, group_max, tau) * BM3D_PATCH_AREA;
      if (lane == r1 || (two && lane == r2))
        {
          bound_sum = lane == r1 ? b1 : b2;
          pending = 0;
        }
    }
  __syncwarp ();
}

/* What a lane carries through its walks.  */
typedef struct
{
  const float *cand;      /* its window column at dy = -radius, dx = 0   */
  const float *norms;     /* the plane of norms at the same place        */
  int          x;         /* its column of the plane                     */
  float        ref_norm;
  uint32_t     key_row;   /* see rm_merged                               */
  uint64_t    *lists;     /* the warp's lists                            */
  rm_buffers   pend;      /* the warp's buffers                          */
  int          pending;   /* entries in its buffer                       */
  float        bound_sum; /* its reference's entry bound x patch area    */
} rm_lane;

/* The horizontal displacement of walk t: 0, 1, -1, 2, -2, ...  */
__device__ __forceinline__ int
rm_dx (int t)
{
  return (t & 1) ? (t + 1) >> 1 : -(t >> 1);
}

/* Walks rows d_begin .. d_end - 1 of horizontal displacement dx: for
 * each chunk, the distances of the lane's reference to its candidates,
 * then one look at them.  */
__device__ __forceinline__ void
rm_walk (const float (&ref)[BM3D_PATCH][RM_STEP], int dx, int d_begin,
         int d_end, int w, int self, const match_args &a, int lane,
         rm_lane &l)
{
  /* Candidates whose patch leaves the plane sideways are never kept,
   * nor their norms read.  */
  const bool fits = l.x + dx >= 0 && l.x + dx <= a.width - BM3D_PATCH;
  const float *norm = l.norms + (fits ? dx : 0);
  const float *cand = l.cand + dx;
  float c[BM3D_PATCH][RM_STEP];

#pragma unroll
  for (int i = 0; i < BM3D_PATCH - 1; i++)
#pragma unroll
    for (int j = 0; j < RM_STEP; j++)
      c[i][j] = cand[(d_begin + i) * w + j];

  for (int d0 = d_begin; d0 < d_end; d0 += RM_CHUNK)
    {
      float sd[RM_CHUNK];

#pragma unroll
      for (int k = 0; k < RM_CHUNK; k++)
        {
          const int d = d0 + k;
          float acc[RM_STEP];

#pragma unroll
          for (int j = 0; j < RM_STEP; j++)
            c[(k + BM3D_PATCH - 1) % BM3D_PATCH][j]
              = cand[(d + BM3D_PATCH - 1) * w + j];
#pragma unroll
          for (int j = 0; j < RM_STEP; j++)
            {
              acc[j] = 0.0f;
#pragma unroll
              for (int i = 0; i < BM3D_PATCH; i++)
                acc[j] = fmaf (ref[i][j], c[(k + i) % BM3D_PATCH][j], acc[j]);
            }
          /* Own columns 0..2, the next lane's 3..5, the one after's
           * 6..7.  */
          const float two = acc[0] + acc[1];
          const float three = two + acc[2];
          const float dot = three
                            + __shfl_down_sync (BM3D_CUDA_FULL_MASK, three, 1)
                            + __shfl_down_sync (BM3D_CUDA_FULL_MASK, two, 2);

          sd[k] = (l.ref_norm + __ldg (norm + (size_t) d * a.width))
                  - 2.0f * dot;
        }

      const float bound = fits ? l.bound_sum : -INFINITY;
      unsigned keep = 0;
#pragma unroll
      for (int k = 0; k < RM_CHUNK; k++)
        {
          const int d = d0 + k;

          keep |= (unsigned) (sd[k] <= bound && d < d_end && d != self) << k;
        }
      if (__any_sync (BM3D_CUDA_FULL_MASK, keep))
        {
#pragma unroll
          for (int k = 0; k < RM_CHUNK; k++)
            if (keep & (1u << k))
              {
                const int e = lane * RM_PEND_STRIDE + l.pending;

                l.pend.dist[e] = sd[k];
                l.pend.code[e] = rm_code (d0 + k, dx, a.radius);
                l.pending++;
              }
          if (__any_sync (BM3D_CUDA_FULL_MASK,
                          l.pending > RM_PENDING - RM_CHUNK))
            rm_merge (__ballot_sync (BM3D_CUDA_FULL_MASK,
                                     l.pending > RM_MERGE_MIN),
                      l.lists, l.pend, l.key_row, a.width, a.group_max,
                      a.tau, lane, l.pending, l.bound_sum);
        }
    }
}

__global__ void __launch_bounds__ (RM_WARPS * 32, RM_MIN_BLOCKS)
block_match_rows (match_args a)
{
  extern __shared__ __align__ (16) float smem[];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int radius = a.radius;
  const int rx0 = blockIdx.x * RM_REFS;
  const int x0 = rx0 * RM_STEP;
  const int ry_first = a.ry_begin + blockIdx.y * RM_WARPS;
  const int ry_last = min (a.ry_end, ry_first + RM_WARPS) - 1;
  const int y_first = ref_coord (a.ay, ry_first);
  const rm_window win = rm_window_for (radius,
                                       ref_coord (a.ay, ry_last) - y_first);
  const int wx0 = x0 - radius, wy0 = y_first - radius;
  const size_t warp_bytes = (size_t) RM_REFS * RM_PEND_STRIDE
                            * (sizeof (float) + sizeof (uint16_t));
  float *pix = (float *) ((char *) smem + RM_WARPS * warp_bytes);

  /* The window, zeros outside the plane.  A warp per row.  */
  for (int y = warp; y < win.h; y += RM_WARPS)
    {
      const int gy = wy0 + y;
      for (int x = lane; x < win.w; x += 32)
        {
          const int gx = wx0 + x;
          const bool in = gx >= 0 && gx < a.width && gy >= 0 && gy < a.height;

          pix[y * win.w + x] = in ? __ldg (a.plane + (size_t) gy * a.width + gx)
                                    - BM3D_MATCH_CENTRE : 0.0f;
        }
    }
  __syncthreads ();

  const int ry = ry_first + warp;
  if (ry > ry_last)
    return;
  const int y = ref_coord (a.ay, ry);
  const bool owns = lane < RM_REFS && rx0 + lane < a.ax.n_regular;
  const unsigned refs = __ballot_sync (BM3D_CUDA_FULL_MASK, owns);
  const size_t row_base = (size_t) (ry - a.ry_begin) * a.ax.n + rx0;
  const int ly = y - wy0, lx = RM_STEP * lane + radius;
  rm_lane l;

  l.x = x0 + RM_STEP * lane;
  l.cand = pix + (ly - radius) * win.w + lx;
  /* Rows above and below the plane read MATCH_NORM_NONE from the
   * norms' padding rows (patch_norms).  */
  l.norms = a.norms + ((ptrdiff_t) (y - radius) * a.width + l.x);
  l.ref_norm = owns ? __ldg (a.norms + (size_t) y * a.width + l.x) : 0.0f;
  l.key_row = (uint32_t) ((y - radius) * a.width + x0 - radius + 1);
  l.lists = a.keys + row_base * a.group_max;
  l.pend.dist = (float *) ((char *) smem + warp * warp_bytes);
  l.pend.code = (uint16_t *) (l.pend.dist + RM_REFS * RM_PEND_STRIDE);
  l.pending = 0;
  l.bound_sum = owns ? a.tau * BM3D_PATCH_AREA : -INFINITY;

  /* The lane's three columns of the reference row's patches.  */
  float ref[BM3D_PATCH][RM_STEP];
#pragma unroll
  for (int i = 0; i < BM3D_PATCH; i++)
#pragma unroll
    for (int j = 0; j < RM_STEP; j++)
      ref[i][j] = pix[(ly + i) * win.w + lx + j];

  /* Lists: the reference's key 0 leads (every candidate's is at least
   * 1), empty slots all ones.  */
  for (int s = 0; s < RM_REFS; s++)
    if ((refs & (1u << s)) && lane < a.group_max)
      l.lists[s * a.group_max + lane] = lane == 0 ? 0 : ~(uint64_t) 0;

  const int near = rm_near_begin (radius);
  for (int t = 0; t <= 2 * radius; t++)
    {
      /* The reference itself: row `radius` of dx = 0 (t = 0).  */
      const int self = t == 0 ? radius : -1;

      rm_walk (ref, rm_dx (t), near, 2 * radius + 1, win.w, self, a, lane, l);
      rm_walk (ref, rm_dx (t), 0, near, win.w, self, a, lane, l);
    }
  rm_merge (__ballot_sync (BM3D_CUDA_FULL_MASK, l.pending > 0), l.lists,
            l.pend, l.key_row, a.width, a.group_max, a.tau, lane, l.pending,
            l.bound_sum);

  /* Each reference's group: the largest power of two of its list.  */
  for (int s = 0; s < RM_REFS; s++)
    {
      if (!(refs & (1u << s)))
        continue;
      const uint64_t list = lane < a.group_max ? l.lists[s * a.group_max + lane]
                                               : ~(uint64_t) 0;
      const int found = __popc (__ballot_sync (BM3D_CUDA_FULL_MASK,
                                               list != ~(uint64_t) 0));
      int m = 1;
      while (m * 2 <= min (found, a.group_max))
        m *= 2;
      const size_t r = row_base + s;
      if (lane < m)
        a.lists[r * a.group_max + lane] = lane == 0
          ? y * a.width + x0 + RM_STEP * s : (int) (uint32_t) list - 1;
      if (lane == 0)
        a.counts[r] = m;
    }
}

size_t
bm3d_cuda_row_match_smem (int step, int radius, int group_max, int smem_optin)
{
  if (step != RM_STEP || group_max > 32)
    return 0;
  const rm_window w = rm_window_for (radius, (RM_WARPS - 1) * RM_STEP);
  const size_t bytes = (sizeof (float) + sizeof (uint16_t)) * RM_WARPS
                       * RM_REFS * (size_t) RM_PEND_STRIDE
                       + sizeof (float) * (size_t) w.w * w.h;

  /* Fewer blocks an SM than the launch bounds ask leave too few warps
   * to hide the merges' latency (measured on an H100).  */
  return RM_MIN_BLOCKS * bytes <= (size_t) smem_optin ? bytes : 0;
}

cudaError_t
bm3d_cuda_row_match_launch (const match_args *ma, size_t smem,
                            cudaStream_t stream)
{
  cudaError_t e;
  dim3 grid ((ma->ax.n_regular + RM_REFS - 1) / RM_REFS,
             (ma->ry_end - ma->ry_begin + RM_WARPS - 1) / RM_WARPS);

  if ((e = cudaFuncSetAttribute (block_match_rows,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int) smem)) != cudaSuccess)
    return e;
  block_match_rows<<<grid, RM_WARPS * 32, smem, stream>>> (*ma);
  return cudaGetLastError ();
}
