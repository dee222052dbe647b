/* What the CUDA BM3D backend's files share: the reference grid, the
 * arguments of the matching and filtering kernels, the matchers' list
 * keys, and the launcher of block_match_rows (bm3d_cuda_match_rows.cu).
 * bm3d_cuda.cu holds the host orchestration and the other kernels.  */
#ifndef BM3D_CUDA_KERNELS_CUH
#define BM3D_CUDA_KERNELS_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "engine.h"

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
} filter_args;

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

#endif /* BM3D_CUDA_KERNELS_CUH */
