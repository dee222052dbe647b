/* What the CUDA BM3D backend's files share: the reference grid, the
 * arguments of the kernels, the device helpers two files use, and the
 * functions through which the host side uses each file's kernels.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 *   bm3d_cuda_match.cu       patch_norms, block_match
 *   bm3d_cuda_match_rows.cu  block_match_rows
 *   bm3d_cuda_filter.cu      collaborative_filter_hard / _wiener
 *   bm3d_cuda_aggregate.cu   aggregate
 *   bm3d_cuda.cu             the host side: tables, tile buffers, the
 *                            phases' launches, the entry points
 *
 * Each file is compiled on its own, without relocatable device code:
 * device helpers used by two files are defined here, inline; a kernel
 * is launched only from its own file (a launcher below, checked by the
 * caller as a launch in its own file would be); each file's constant
 * memory is its own and filled through its *_tables function.  */
#ifndef BM3D_CUDA_KERNELS_CUH
#define BM3D_CUDA_KERNELS_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "core/engine.h"

#define BM3D_CUDA_FULL_MASK 0xffffffffu

/* Pixels are centred before matching: |P|^2 + |Q|^2 - 2 P.Q then cancels
 * four times less precision than on the raw 0..255 scale.  */
#define BM3D_MATCH_CENTRE 128.0f

/* The reference grid along one axis of length `len`: 0, step, 2 step, ...
 * up to len - k, plus len - k itself so the border is covered.  */
typedef struct
{
  int n_regular;   /* multiples of step that fit                        */
  int n;           /* with the last position added when needed          */
  int last;        /* len - k                                            */
  int step;
} ref_axis;

static inline ref_axis
ref_axis_for (int len, int step)
{
  ref_axis a;

  a.last = len - BM3D_PATCH;
  a.step = step;
  a.n_regular = a.last / step + 1;
  a.n = a.n_regular + (a.last % step != 0);
  return a;
}

__host__ __device__ __forceinline__ int
ref_coord (const ref_axis &a, int i)
{
  return i < a.n_regular ? i * a.step : a.last;
}

typedef struct
{
  const float *plane;     /* matching plane (noisy or basic luminance)   */
  const float *norms;     /* |Q|^2 of every patch of the centred plane    */
  int          width, height;
  ref_axis     ax, ay;
  int          radius;    /* search / 2                                  */
  int          group_max; /* N                                           */
  float        tau;       /* max distance, per pixel; finite, and finite
                           * times the patch area (match_tau)           */
  int          ry_begin, ry_end;
  int          rx_begin;  /* first reference column (block_match)       */
  int         *lists;     /* [batch ref][N] raster positions             */
  int         *counts;    /* [batch ref] group size m                     */
  uint64_t    *keys;      /* [batch ref][N] block_match_rows' lists       */
} match_args;

typedef struct
{
  const float *noisy[BM3D_MAX_CHANNELS];
  const float *basic[BM3D_MAX_CHANNELS];
  float       *num[BM3D_MAX_CHANNELS];      /* sum of weighted estimates */
  float       *weights[BM3D_MAX_CHANNELS];  /* see aggregate_group       */
  float        sigma[BM3D_MAX_CHANNELS];
  float        lambda;          /* hard threshold / sigma               */
  int          width, height;
  ref_axis     ax, ay;
  int          radius;
  int          group_max;
  int          ry_begin, ry_end;
  int          rect_x, rect_y;  /* references per block                 */
  const int   *lists;
  const int   *counts;
  /* Camera noise (job->per_coefficient_noise): non-zero, and the filters
   * read each coefficient's variance and hard threshold from c_profile
   * (bm3d_cuda_filter_profile_tables) instead of sigma.  */
  int          profile;
} filter_args;

/* Patches of a group in shared memory (the filters, aggregate_group):
 * rows 9 floats apart and patches 72 apart, so a warp's row, column and
 * per-coefficient accesses hit distinct banks.  */
#define ROW_PITCH    9
#define PATCH_PITCH  72

/* ---- the best N of a reference's candidates (both matchers) ---------- */

/* One compare-exchange of a bitonic network: the smaller of the lane's
 * key and its partner's where the lane keeps the minimum, else the
 * larger.  One 64-bit comparison decides both cases (equal keys are
 * the same value either way), where min and max would take two.  */
__device__ __forceinline__ uint64_t
exchange_keys (uint64_t key, int stride, bool keep_min)
{
  const uint64_t other = __shfl_xor_sync (BM3D_CUDA_FULL_MASK, key, stride);

  return (other < key) == keep_min ? other : key;
}

/* Sorts one 64-bit key per lane across the warp, smallest in lane 0
 * (bitonic sort).  */
__device__ __forceinline__ uint64_t
sort_keys (uint64_t key, int lane)
{
#pragma unroll
  for (int size = 2; size <= 32; size <<= 1)
#pragma unroll
    for (int stride = size >> 1; stride > 0; stride >>= 1)
      {
        const bool ascending = (lane & size) == 0 || size == 32;
        const bool lower = (lane & stride) == 0;

        key = exchange_keys (key, stride, lower == ascending);
      }
  return key;
}

/* The 32 smallest of two warp-wide sorted lists, sorted: the first list
 * against the second reversed gives a bitonic sequence holding them,
 * which a bitonic merge sorts.  */
__device__ __forceinline__ uint64_t
merge_sorted (uint64_t list, uint64_t sorted, int lane)
{
  uint64_t key = min (list, __shfl_sync (BM3D_CUDA_FULL_MASK, sorted, 31 - lane));

#pragma unroll
  for (int stride = 16; stride > 0; stride >>= 1)
    key = exchange_keys (key, stride, (lane & stride) == 0);
  return key;
}

/* Merges the first (up to) 32 keys of the warp's buffer `pend` into the
 * list and moves the rest to the front of the buffer.  */
__device__ __forceinline__ uint64_t
merge_pending (uint64_t list, uint64_t *pend, int &pending, int lane)
{
  __syncwarp ();
  const uint64_t key = lane < pending ? pend[lane] : ~(uint64_t) 0;
  const bool moves = lane + 32 < pending;
  const uint64_t rest = moves ? pend[lane + 32] : 0;

  __syncwarp ();
  if (moves)
    pend[lane] = rest;
  __syncwarp ();
  pending = max (pending - 32, 0);
  return merge_sorted (list, sort_keys (key, lane), lane);
}

/* The matchers screen candidates by their unscaled distance s = |P - Q|^2
 * against the bound times the patch area (a power of two, so the same
 * test as s / area <= bound) and build a key only for those that pass.
 * Where no candidate patch fits, the window's norm is MATCH_NORM_NONE
 * (infinity), so such a candidate fails every bound by its distance
 * alone, as long as tau stays finite: match_tau.  */
#define MATCH_NORM_NONE __int_as_float (0x7f800000)

static inline float
match_tau (float tau)
{
  return tau < 1e30f ? tau : 1e30f;
}

/* A candidate's list key: its distance in the high word (the sum of
 * squared differences s over the patch as a mean, rounding's negative
 * values as 0), so keys order by distance, and its raster index + 1 in
 * the low word, so equal distances order by position as on the CPU.
 * entry_bound reads the distance back.  */
__device__ __forceinline__ uint64_t
match_key (float s, uint32_t index_1)
{
  const float d = fmaxf (s, 0.0f) * (1.0f / BM3D_PATCH_AREA);

  return ((uint64_t) __float_as_uint (d) << 32) | index_1;
}

/* The largest distance a candidate may have to enter the list: tau while
 * the list has fewer than N members, else its N-th key's distance (ties
 * pass, their raster index decides in the merge).  */
__device__ __forceinline__ float
entry_bound (uint64_t list, int group_max, float tau)
{
  const uint64_t worst = __shfl_sync (BM3D_CUDA_FULL_MASK, list, group_max - 1);

  return worst == ~(uint64_t) 0 ? tau
         : fminf (tau, __uint_as_float ((uint32_t) (worst >> 32)));
}

/* ---- adding a filtered group to the tile's sums (both filters) ------- */

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

/* ---- block matching (bm3d_cuda_match.cu) ----------------------------- */

/* |Q|^2 of every patch of the centred `plane` into `norms` (pitch:
 * width), for the rows -pad .. height + pad - 1 (patch_norms).  */
void bm3d_cuda_patch_norms_launch (const float *plane, int width,
                                   int height, int pad, float *norms,
                                   cudaStream_t stream);

/* Dynamic shared bytes of block_match at this reference step and
 * search radius, and the attribute that lets it have them.  */
size_t bm3d_cuda_block_match_smem (int step, int radius);
cudaError_t bm3d_cuda_block_match_setup (size_t smem);

/* Matches the batch's references ma->ry_begin .. ry_end - 1, columns
 * ma->rx_begin .. ax.n - 1.  */
void bm3d_cuda_block_match_launch (const match_args *ma, size_t smem,
                                   cudaStream_t stream);

/* ---- block matching along reference rows (bm3d_cuda_match_rows.cu) ---- */

/* Dynamic shared bytes of block_match_rows for these parameters, or 0
 * where it does not apply: a reference step other than 3, N > 32, or
 * a device (smem_optin: shared bytes a block may opt into) where four
 * of its blocks do not fit an SM.  */
size_t bm3d_cuda_row_match_smem (int step, int radius, int group_max,
                                 int smem_optin);

/* Matches the batch's references of the regular columns (those at
 * multiples of the step: ax.n_regular); the caller matches the last
 * column when the grid adds one.  */
cudaError_t bm3d_cuda_row_match_launch (const match_args *ma, size_t smem,
                                        cudaStream_t stream);

/* ---- collaborative filtering (bm3d_cuda_filter.cu) ------------------- */

/* A filter kernel's launch shape.  */
typedef struct
{
  int           warps;
  int           rect_x;    /* references per block, across */
  int           rect_y;    /* and down                     */
  size_t        smem;      /* dynamic shared bytes         */
} filter_config;

/* The shape of a phase's filter for groups of up to `group_max`
 * patches on a device whose blocks may opt into `smem_optin` shared
 * bytes.  */
filter_config bm3d_cuda_filter_config (bool wiener, int group_max,
                                       int smem_optin);

/* The 2D transforms ([0] hard forward, [1] hard inverse, [2] Wiener
 * forward, [3] Wiener inverse) and the Kaiser windows of both phases,
 * into the filters' constant memory (on `stream`).  */
cudaError_t bm3d_cuda_filter_tables
  (const float tf[4][BM3D_PATCH][BM3D_PATCH],
   const float kaiser[2][BM3D_PATCH][BM3D_PATCH], cudaStream_t stream);

/* A camera-noise job's per-plane coefficient variances of both phases
 * (index u * 8 + v) and the hard phase's lambda_3d, into the filters'
 * constant memory (on `stream`).  */
cudaError_t bm3d_cuda_filter_profile_tables
  (const float var_hard[BM3D_MAX_CHANNELS][BM3D_PATCH_AREA],
   const float var_wiener[BM3D_MAX_CHANNELS][BM3D_PATCH_AREA],
   float lambda_3d, cudaStream_t stream);

/* The attribute that lets the phase's filter for the 2D transform
 * `transform_kind` (a bm3d_transform_kind), for camera noise if
 * `profile`, have fc->smem shared bytes.  */
cudaError_t bm3d_cuda_filter_setup (bool wiener, int transform_kind,
                                    bool profile, const filter_config *fc);

/* Filters the groups of the batch's references fa->ry_begin .. ry_end
 * - 1, every channel.  */
void bm3d_cuda_filter_launch (bool wiener, int transform_kind,
                              const filter_args *fa, const filter_config *fc,
                              int channels, cudaStream_t stream);

/* ---- aggregation (bm3d_cuda_aggregate.cu) ---------------------------- */

/* aggregate's planes per channel: the filters' sums, the result, and
 * the value a pixel no patch covers keeps.  */
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

/* The one-dimensional Kaiser windows of both phases, into aggregate's
 * constant memory (on `stream`).  */
cudaError_t bm3d_cuda_aggregate_tables (const float kaiser_1d[2][BM3D_PATCH],
                                        cudaStream_t stream);

/* out = numerator / denominator of every channel; clears the
 * numerators.  */
void bm3d_cuda_aggregate_launch (const aggregate_args *a,
                                 cudaStream_t stream);

/* ---- small device helpers the kernels share ----------------------- */

/* The sum of v over the warp, in every lane.  */
__device__ __forceinline__ float
warp_sum (float v)
{
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync (BM3D_CUDA_FULL_MASK, v, o);
  return v;
}

/* a / b for a b that is never subnormal (the Wiener filter's b >= s2 > 0): the same
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

#endif /* BM3D_CUDA_KERNELS_CUH */
