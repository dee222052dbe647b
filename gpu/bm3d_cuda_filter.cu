/* BM3D Denoise — CUDA collaborative filtering, second round.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The steps of collaborative_filter_hard / _wiener in bm3d_cpu.c, with
 * the group held in registers instead of passes through shared memory:
 *
 *   A warp filters one group of m patches.  Lane (slot, j), slot = lane
 *   / 8 and j = lane % 8, holds P = max (1, m / 4) patches (slot * P ..
 *   slot * P + P - 1), eight values of each: first column j, read
 *   straight from the image (eight lanes read a patch row's 32 bytes).
 *   The column transform runs in registers; one trip through a per-warp
 *   shared buffer transposes, so the lane then holds row j of the
 *   coefficients and the row transform runs in registers too.  The Haar
 *   transform across the group takes its first levels inside the lane
 *   (its P patches are a dyadic block) and the last one or two with warp
 *   shuffles between slots (lane ^ 8, lane ^ 16).  Every node of the Haar
 *   tree is computed with the CPU's operations in the CPU's order, so
 *   thresholds, kept counts and Wiener gains are those of the CPU; only
 *   where each coefficient lives differs.  Thresholding (or the Wiener
 *   gains) sits between the forward and inverse Haar in registers; the
 *   inverse mirrors the forward path, and each lane ends with column j of
 *   its patches' estimates.  Shared-memory traffic is four accesses per
 *   coefficient (two transposes) instead of about twelve.
 *
 *   Aggregation: the block's references (rect x rect) can only place
 *   patches inside their search windows, a tile of at most tile_side^2
 *   pixels.  Numerators are summed there in shared memory (each patch's
 *   weight goes to its corner in the plane of patch weights, as in the
 *   classic set), then the tile is added to the plane's sums once, by vector
 *   reductions of four pixels (Hopper; scalar atomics before), skipping
 *   runs nothing was added to.  With 8 x 8 references per block this
 *   sends 15-30 times fewer reductions to the L2 cache than one per
 *   patch pixel.  Shared-memory float additions are compare-and-swap
 *   loops on every architecture up to sm_90: about five instructions a
 *   pixel, cheaper than waiting on the L2.  */
#include <cuda_runtime.h>

#include <stdint.h>

#include "bm3d_cuda_kernels.cuh"

/* The transpose buffer: rows 9 floats apart, patches 72 apart, so the
 * eight lanes of a slot (rows or columns j) hit distinct banks.  */
#define NF_ROW_PITCH    9
#define NF_PATCH_PITCH  72
/* Extra floats between the slots' parts of the buffer: with m / 4
 * patches per slot a multiple of four, slots would otherwise start on
 * the same bank.  */
#define NF_SLOT_PAD     8

/* Lanes of a slot (patch columns) and slots of a warp.  */
#define NF_COLS   8
#define NF_SLOTS  4

/* Warps of a block and references per block side.  */
#define NF_HARD_WARPS    8
#define NF_WIENER_WARPS  4
#define NF_RECT_MAX      8

/* Blocks an SM should hold, which bounds the registers a thread may
 * take: groups of 32 keep 8 patches x 8 values a lane (about 240
 * registers), groups of up to 16 half that.  */
#define NF_SMALL_MIN_BLOCKS   2     /* largest group 16: 128 registers */
#define NF_LARGE_MIN_BLOCKS   1     /* largest group 32               */
#define NF_WIENER_MIN_BLOCKS  2     /* 4 warps: up to 255 registers   */

static_assert (BM3D_PATCH == NF_COLS, "a slot is one lane per patch column");
static_assert (NF_COLS * NF_SLOTS == 32, "four slots of eight lanes make a warp");
static_assert (BM3D_GROUP_MAX <= NF_SLOTS * 8,
               "a lane holds at most eight patches");
static_assert (NF_ROW_PITCH >= BM3D_PATCH
               && NF_PATCH_PITCH >= BM3D_PATCH * NF_ROW_PITCH,
               "patch layout of the transpose buffer");

__constant__ float nf_transform[4][BM3D_PATCH][BM3D_PATCH];
__constant__ float nf_kaiser[2][BM3D_PATCH_AREA];

/* Floats of one warp's transpose buffer for groups of up to `gmax`
 * patches.  */
__host__ __device__ constexpr int
nf_buffer_floats (int gmax)
{
  return gmax * NF_PATCH_PITCH + NF_SLOTS * NF_SLOT_PAD;
}

/* Patches per lane and slots in use for a group of M patches.  */
template <int M>
struct nf_group
{
  static constexpr int P = M >= NF_SLOTS ? M / NF_SLOTS : 1;
  static constexpr int S = M / P;
  static_assert (P * S == M && (S == 1 || S == 2 || S == 4), "group shape");
};

/* Where patch t of `slot` starts in the transpose buffer.  */
template <int M>
__device__ __forceinline__ int
nf_patch_base (int slot, int t)
{
  return slot * (nf_group<M>::P * NF_PATCH_PITCH + NF_SLOT_PAD)
         + t * NF_PATCH_PITCH;
}

/* ---- Haar across the group (bm3d_haar's operations) ------------------- */

/* Forward levels on a dyadic block of N values in registers: pairwise
 * sums into the first half, differences into the second, as bm3d_haar.  */
template <int LEN, int N>
__device__ __forceinline__ void
nf_haar_forward_level (float (&v)[N])
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
      nf_haar_forward_level<LEN / 2> (v);
    }
}

template <int LEN, int N>
__device__ __forceinline__ void
nf_haar_inverse_level (float (&v)[N])
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
      nf_haar_inverse_level<LEN * 2> (v);
    }
}

/* The whole group: levels inside the lane's P patches, then across the
 * S slots.  At cross level l the slots that are multiples of 2^l hold
 * the approximations of blocks of P 2^l patches; the pair (slot, slot +
 * 2^l) becomes sum (lower slot) and difference (upper slot).  Lanes not
 * in a pair at that level take part in the shuffle and keep their
 * value.  v[c][t]: coefficient c of the lane's patch t.  */
template <int M>
__device__ __forceinline__ void
nf_haar_group (float (&v)[BM3D_PATCH][nf_group<M>::P], int slot)
{
  typedef nf_group<M> G;
  const float r = 0.70710678118654752f;

#pragma unroll
  for (int c = 0; c < BM3D_PATCH; c++)
    nf_haar_forward_level<G::P> (v[c]);
#pragma unroll
  for (int l = 0; (1 << l) < G::S; l++)
    {
      const int span = 1 << l;
      const bool pair = (slot & (span - 1)) == 0;
      const bool upper = (slot & span) != 0;

#pragma unroll
      for (int c = 0; c < BM3D_PATCH; c++)
        {
          const float own = v[c][0];
          const float other = __shfl_xor_sync (BM3D_CUDA_FULL_MASK, own,
                                               NF_COLS * span);
          if (pair)
            v[c][0] = upper ? __fmul_rn (__fsub_rn (other, own), r)
                            : __fmul_rn (__fadd_rn (own, other), r);
        }
    }
}

template <int M>
__device__ __forceinline__ void
nf_haar_group_inverse (float (&v)[BM3D_PATCH][nf_group<M>::P], int slot)
{
  typedef nf_group<M> G;
  const float r = 0.70710678118654752f;

#pragma unroll
  for (int l = 4; l >= 0; l--)
    if ((1 << l) < G::S)
      {
        const int span = 1 << l;
        const bool pair = (slot & (span - 1)) == 0;
        const bool upper = (slot & span) != 0;

#pragma unroll
        for (int c = 0; c < BM3D_PATCH; c++)
          {
            /* Lower: approximation a, upper: detail d; the block's two
             * halves are (a + d) r and (a - d) r.  */
            const float own = v[c][0];
            const float other = __shfl_xor_sync (BM3D_CUDA_FULL_MASK, own,
                                                 NF_COLS * span);
            if (pair)
              v[c][0] = upper ? __fmul_rn (__fsub_rn (other, own), r)
                              : __fmul_rn (__fadd_rn (own, other), r);
          }
      }
#pragma unroll
  for (int c = 0; c < BM3D_PATCH; c++)
    nf_haar_inverse_level<2> (v[c]);
}

/* ---- 2D transforms ----------------------------------------------------- */

/* x[c][t] <- sum_b M[c][b] x[b][t] for each of the lane's patches.  */
template <int T, int P>
__device__ __forceinline__ void
nf_transform_1d (float (&x)[BM3D_PATCH][P])
{
#pragma unroll
  for (int t = 0; t < P; t++)
    {
      float y[BM3D_PATCH];

#pragma unroll
      for (int a = 0; a < BM3D_PATCH; a++)
        {
          float s = 0.0f;
#pragma unroll
          for (int b = 0; b < BM3D_PATCH; b++)
            s = fmaf (nf_transform[T][a][b], x[b][t], s);
          y[a] = s;
        }
#pragma unroll
      for (int a = 0; a < BM3D_PATCH; a++)
        x[a][t] = y[a];
    }
}

/* The lane holds index j of the first axis (x[i][t] = patch t, (i, j))
 * and gets index j of the second (x[k][t] = patch t, (j, k)), through
 * the warp's buffer.  */
template <int M>
__device__ __forceinline__ void
nf_transpose (float (&x)[BM3D_PATCH][nf_group<M>::P], float *buf, int slot,
              int j)
{
  typedef nf_group<M> G;

  __syncwarp ();
  if (slot < G::S)
#pragma unroll
    for (int t = 0; t < G::P; t++)
#pragma unroll
      for (int i = 0; i < BM3D_PATCH; i++)
        buf[nf_patch_base<M> (slot, t) + i * NF_ROW_PITCH + j] = x[i][t];
  __syncwarp ();
  if (slot < G::S)
#pragma unroll
    for (int t = 0; t < G::P; t++)
#pragma unroll
      for (int k = 0; k < BM3D_PATCH; k++)
        x[k][t] = buf[nf_patch_base<M> (slot, t) + j * NF_ROW_PITCH + k];
}

/* Column j of the lane's patches of `plane`, as x[i][t]; zeros for
 * slots past the group.  */
template <int M>
__device__ __forceinline__ void
nf_gather (float (&x)[BM3D_PATCH][nf_group<M>::P],
           const float *__restrict__ plane, int width, const int *px,
           const int *py, int slot, int j)
{
  typedef nf_group<M> G;

#pragma unroll
  for (int t = 0; t < G::P; t++)
    {
      const int p = slot * G::P + t;

      if (slot < G::S)
        {
          const float *src = plane + (size_t) py[p] * width + px[p] + j;
#pragma unroll
          for (int i = 0; i < BM3D_PATCH; i++)
            x[i][t] = __ldg (src + (size_t) i * width);
        }
      else
#pragma unroll
        for (int i = 0; i < BM3D_PATCH; i++)
          x[i][t] = 0.0f;
    }
}

/* coefficients = F X F^T: columns in registers, transpose, rows.  On
 * return x[k][t] is coefficient (j, k) of patch t.  */
template <int M, int FWD>
__device__ __forceinline__ void
nf_forward_2d (float (&x)[BM3D_PATCH][nf_group<M>::P], float *buf, int slot,
               int j)
{
  nf_transform_1d<FWD> (x);
  nf_transpose<M> (x, buf, slot, j);
  nf_transform_1d<FWD> (x);
}

/* X = I C I^T back: rows, transpose, columns.  On return x[i][t] is
 * pixel (i, j) of patch t.  */
template <int M, int INV>
__device__ __forceinline__ void
nf_inverse_2d (float (&x)[BM3D_PATCH][nf_group<M>::P], float *buf, int slot,
               int j)
{
  nf_transform_1d<INV> (x);
  nf_transpose<M> (x, buf, slot, j);
  nf_transform_1d<INV> (x);
}

__device__ __forceinline__ float
nf_warp_sum (float v)
{
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync (BM3D_CUDA_FULL_MASK, v, o);
  return v;
}

/* ---- aggregation ------------------------------------------------------- */

/* The block's tile of numerators: pixels [x0, x0 + w) x [y0, y0 + h)
 * of the plane, w * h floats.  */
typedef struct
{
  float *num;
  int    x0, y0, w, h;
} nf_tile;

/* Add column j of the lane's estimated patches, weighted by `weight`
 * times the Kaiser window, into the tile's numerators (or, should a
 * patch ever fall outside it, straight into the plane's), and the
 * weight of each patch at its corner in the plane of patch weights (the
 * denominator is that plane spread by the window: see the classic
 * aggregate_group).  */
template <int M>
__device__ __forceinline__ void
nf_aggregate (const nf_tile &tile, float *__restrict__ num,
              float *__restrict__ weights, int width,
              const float (&x)[BM3D_PATCH][nf_group<M>::P], const int *px,
              const int *py, float weight, const float *kaiser, int slot,
              int j)
{
  typedef nf_group<M> G;

  if (slot >= G::S)
    return;
#pragma unroll
  for (int t = 0; t < G::P; t++)
    {
      const int p = slot * G::P + t;
      const int gx = px[p] + j, gy = py[p];
      const int tx = gx - tile.x0, ty = gy - tile.y0;
      const bool inside = tx >= 0 && tx < tile.w && ty >= 0
                          && ty + BM3D_PATCH <= tile.h;

      if (j == 0)
        atomicAdd (weights + (size_t) gy * width + gx, weight);
#pragma unroll
      for (int i = 0; i < BM3D_PATCH; i++)
        {
          const float w = weight * kaiser[i * BM3D_PATCH + j];

          if (inside)
            atomicAdd (tile.num + (ty + i) * tile.w + tx, w * x[i][t]);
          else
            atomicAdd (num + (size_t) (gy + i) * width + gx, w * x[i][t]);
        }
    }
}

/* sum[t] += v[t] (a run of four floats, 16-byte aligned, in global
 * memory), as a reduction nothing waits for.  */
__device__ __forceinline__ void
nf_add_run (float *sum, const float (&v)[4])
{
#if __CUDA_ARCH__ >= 900
  asm volatile ("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};"
                :: "l" (__cvta_generic_to_global (sum)),
                   "f" (v[0]), "f" (v[1]), "f" (v[2]), "f" (v[3]));
#else
#pragma unroll
  for (int t = 0; t < 4; t++)
    if (v[t] != 0.0f)
      atomicAdd (sum + t, v[t]);
#endif
}

/* The tile into the plane's numerators: runs of four floats aligned in
 * the plane (the planes have room for the last run past their last
 * pixel, and are 16-byte aligned), zeros for the floats of a run outside
 * the tile row; runs of zeros (nothing added) are skipped.  */
__device__ __forceinline__ void
nf_flush (const nf_tile &tile, float *__restrict__ num, int width)
{
  const int runs_per_row = (tile.w + 3 + 3) / 4 + 1;

  for (int job = threadIdx.x; job < tile.h * runs_per_row; job += blockDim.x)
    {
      const int ty = job / runs_per_row, run = job % runs_per_row;
      const size_t row0 = (size_t) (tile.y0 + ty) * width + tile.x0;
      const size_t start = (row0 & ~(size_t) 3) + 4 * (size_t) run;

      if (start >= row0 + tile.w)
        continue;
      float n[4];
      bool any = false;

#pragma unroll
      for (int t = 0; t < 4; t++)
        {
          const long long tx = (long long) (start + t) - (long long) row0;

          n[t] = tx >= 0 && tx < tile.w ? tile.num[ty * tile.w + (int) tx]
                                        : 0.0f;
          any |= n[t] != 0.0f;
        }
      if (any)
        nf_add_run (num + start, n);
    }
}

/* ---- the kernels ------------------------------------------------------- */

/* Shared memory of a block: per warp a transpose buffer, a gain buffer
 * (Wiener) and the group's positions; the Kaiser window; the tile.  The
 * parts a warp takes depend on the phase's largest group `gmax`.  */
typedef struct
{
  int buffer, gains, warp_floats;
} nf_layout;

__host__ __device__ __forceinline__ nf_layout
nf_layout_for (bool wiener, int gmax)
{
  nf_layout l;

  l.buffer = nf_buffer_floats (gmax);
  /* Wiener: 8 coefficients x P patches x 32 lanes = 64 gmax floats (256
   * for groups under four patches).  */
  l.gains = wiener ? (gmax >= NF_SLOTS ? gmax : NF_SLOTS) * BM3D_PATCH_AREA : 0;
  l.warp_floats = l.buffer + l.gains + 2 * BM3D_GROUP_MAX;
  return l;
}

/* One hard-thresholding group of M patches at (px, py): returns the
 * lane's estimate columns in x and the group's weight.  */
template <int M>
__device__ __forceinline__ void
nf_hard_group (const float *__restrict__ noisy, int width, const int *px,
               const int *py, float *buf, float thr, float sigma, int slot,
               int j, float (&x)[BM3D_PATCH][nf_group<M>::P], float &weight)
{
  typedef nf_group<M> G;
  int kept = 0;

  nf_gather<M> (x, noisy, width, px, py, slot, j);
  nf_forward_2d<M, 0> (x, buf, slot, j);
  nf_haar_group<M> (x, slot);
  if (slot < G::S)
#pragma unroll
    for (int c = 0; c < BM3D_PATCH; c++)
#pragma unroll
      for (int t = 0; t < G::P; t++)
        {
          /* The CPU keeps |c| > thr.  */
          if (x[c][t] > thr || x[c][t] < -thr)
            kept++;
          else
            x[c][t] = 0.0f;
        }
  nf_haar_group_inverse<M> (x, slot);
  nf_inverse_2d<M, 1> (x, buf, slot, j);
  kept = (int) nf_warp_sum ((float) kept);
  weight = 1.0f / (sigma * sigma * (float) (kept > 1 ? kept : 1));
}

/* One Wiener group: gains from the basic estimate's group (kept in the
 * warp's gain buffer, each lane reading back only what it wrote, lanes
 * side by side so no two share a bank), then the noisy group shrunk by
 * them.  */
template <int M>
__device__ __forceinline__ void
nf_wiener_group (const float *__restrict__ noisy,
                 const float *__restrict__ basic, int width, const int *px,
                 const int *py, float *buf, float *gains, float s2, int slot,
                 int j, float (&x)[BM3D_PATCH][nf_group<M>::P], float &weight)
{
  typedef nf_group<M> G;
  float wsum = 0.0f;

  nf_gather<M> (x, basic, width, px, py, slot, j);
  nf_forward_2d<M, 2> (x, buf, slot, j);
  nf_haar_group<M> (x, slot);
  if (slot < G::S)
#pragma unroll
    for (int c = 0; c < BM3D_PATCH; c++)
#pragma unroll
      for (int t = 0; t < G::P; t++)
        {
          const float bb = x[c][t] * x[c][t];
          /* bb + s2 >= s2 > 0: the fast division is safe.  */
          const float g = __fdividef (bb, bb + s2);

          gains[(t * BM3D_PATCH + c) * 32 + slot * NF_COLS + j] = g;
          wsum = fmaf (g, g, wsum);
        }
  nf_gather<M> (x, noisy, width, px, py, slot, j);
  nf_forward_2d<M, 2> (x, buf, slot, j);
  nf_haar_group<M> (x, slot);
  if (slot < G::S)
#pragma unroll
    for (int c = 0; c < BM3D_PATCH; c++)
#pragma unroll
      for (int t = 0; t < G::P; t++)
        x[c][t] *= gains[(t * BM3D_PATCH + c) * 32 + slot * NF_COLS + j];
  nf_haar_group_inverse<M> (x, slot);
  nf_inverse_2d<M, 3> (x, buf, slot, j);
  wsum = nf_warp_sum (wsum);
  weight = wsum > 0.0f ? 1.0f / (s2 * wsum) : 1.0f / s2;
}

template <bool WIENER, int M>
__device__ __forceinline__ void
nf_group_dispatch (const filter_args &a, int c, const nf_tile &tile,
                   const int *px, const int *py, float *buf, float *gains,
                   const float *kaiser, int slot, int j)
{
  float x[BM3D_PATCH][nf_group<M>::P];
  float weight;

  if (WIENER)
    nf_wiener_group<M> (a.noisy[c], a.basic[c], a.width, px, py, buf, gains,
                        a.sigma[c] * a.sigma[c], slot, j, x, weight);
  else
    nf_hard_group<M> (a.noisy[c], a.width, px, py, buf,
                      a.lambda * a.sigma[c], a.sigma[c], slot, j, x, weight);
  nf_aggregate<M> (tile, a.num[c], a.weights[c], a.width, x, px, py, weight,
                   kaiser, slot, j);
}

template <bool WIENER, int GMAX>
__device__ __forceinline__ void
nf_filter (const filter_args &a, int tile_side)
{
  const nf_layout L = nf_layout_for (WIENER, a.group_max);
  extern __shared__ __align__ (16) float smem[];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = blockDim.x >> 5;
  const int slot = lane / NF_COLS, j = lane % NF_COLS;
  const int c = blockIdx.z;
  const int rx0 = blockIdx.x * a.rect_x;
  const int ry0 = a.ry_begin + blockIdx.y * a.rect_y;
  const int rx1 = min (a.ax.n, rx0 + a.rect_x);
  const int ry1 = min (a.ry_end, ry0 + a.rect_y);

  float *wbase = smem + warp * L.warp_floats;
  float *buf = wbase;
  float *gains = wbase + L.buffer;
  int *px = (int *) (wbase + L.buffer + L.gains);
  int *py = px + BM3D_GROUP_MAX;
  float *kaiser = smem + warps * L.warp_floats;
  nf_tile tile;

  /* Every patch of the block's groups lies in the union of its
   * references' search windows (clipped to the plane).  */
  tile.x0 = max (0, ref_coord (a.ax, rx0) - a.radius);
  tile.y0 = max (0, ref_coord (a.ay, ry0) - a.radius);
  tile.w = min (a.width - BM3D_PATCH, ref_coord (a.ax, rx1 - 1) + a.radius)
           + BM3D_PATCH - tile.x0;
  tile.h = min (a.height - BM3D_PATCH, ref_coord (a.ay, ry1 - 1) + a.radius)
           + BM3D_PATCH - tile.y0;
  /* The host sized the tile for the largest block; a smaller one (the
   * grid's edges) always fits.  Should it not, patches go straight to
   * the plane (nf_aggregate's fall-back) and the tile stays empty.  */
  if (tile.w > tile_side || tile.h > tile_side)
    tile.w = tile.h = 0;
  tile.num = kaiser + BM3D_PATCH_AREA;

  for (int t = threadIdx.x; t < BM3D_PATCH_AREA; t += blockDim.x)
    kaiser[t] = nf_kaiser[WIENER][t];
  for (int t = threadIdx.x; t < tile.w * tile.h; t += blockDim.x)
    tile.num[t] = 0.0f;
  __syncthreads ();

  const int groups = (rx1 - rx0) * (ry1 - ry0);
  for (int g = warp; g < groups; g += warps)
    {
      const int ry = ry0 + g / (rx1 - rx0);
      const int rx = rx0 + g % (rx1 - rx0);
      const size_t r = (size_t) (ry - a.ry_begin) * a.ax.n + rx;
      const int m = a.counts[r];

      __syncwarp ();
      if (lane < m)
        {
          const int idx = a.lists[r * a.group_max + lane];

          py[lane] = idx / a.width;
          px[lane] = idx - py[lane] * a.width;
        }
      __syncwarp ();
      switch (m)
        {
        case 1: nf_group_dispatch<WIENER, 1> (a, c, tile, px, py, buf, gains,
                                              kaiser, slot, j); break;
        case 2: nf_group_dispatch<WIENER, 2> (a, c, tile, px, py, buf, gains,
                                              kaiser, slot, j); break;
        case 4: nf_group_dispatch<WIENER, 4> (a, c, tile, px, py, buf, gains,
                                              kaiser, slot, j); break;
        case 8: nf_group_dispatch<WIENER, 8> (a, c, tile, px, py, buf, gains,
                                              kaiser, slot, j); break;
        case 16: nf_group_dispatch<WIENER, 16> (a, c, tile, px, py, buf,
                                                gains, kaiser, slot, j); break;
        default:
          /* Only kernels built for groups of 32 get them (the host
           * picks the kernel by the phase's largest group).  */
          if constexpr (GMAX >= 32)
            nf_group_dispatch<WIENER, 32> (a, c, tile, px, py, buf, gains,
                                           kaiser, slot, j);
          break;
        }
    }
  __syncthreads ();
  nf_flush (tile, a.num[c], a.width);
}

__global__ void __launch_bounds__ (NF_HARD_WARPS * 32, NF_SMALL_MIN_BLOCKS)
collaborative_filter_hard_tiled (filter_args a, int tile_side)
{
  nf_filter<false, 16> (a, tile_side);
}

/* The expert options' first-phase groups of 32.  */
__global__ void __launch_bounds__ (NF_HARD_WARPS * 32, NF_LARGE_MIN_BLOCKS)
collaborative_filter_hard32_tiled (filter_args a, int tile_side)
{
  nf_filter<false, 32> (a, tile_side);
}

__global__ void __launch_bounds__ (NF_WIENER_WARPS * 32, NF_WIENER_MIN_BLOCKS)
collaborative_filter_wiener_tiled (filter_args a, int tile_side)
{
  nf_filter<true, 32> (a, tile_side);
}

/* ---- host side --------------------------------------------------------- */

cudaError_t
bm3d_cuda_filter_tables (const float tf[4][BM3D_PATCH][BM3D_PATCH],
                         const float kaiser[2][BM3D_PATCH_AREA],
                         cudaStream_t stream)
{
  cudaError_t e = cudaMemcpyToSymbolAsync (nf_transform, tf,
                                           sizeof nf_transform, 0,
                                           cudaMemcpyHostToDevice, stream);

  if (e != cudaSuccess)
    return e;
  return cudaMemcpyToSymbolAsync (nf_kaiser, kaiser, sizeof nf_kaiser, 0,
                                  cudaMemcpyHostToDevice, stream);
}

int
bm3d_cuda_filter_shape (int wiener, int step, int radius, int group_max,
                        int smem_optin, bm3d_filter_shape *shape)
{
  const int warp_floats = nf_layout_for (wiener != 0, group_max).warp_floats;
  const int warps = wiener ? NF_WIENER_WARPS : NF_HARD_WARPS;

  /* The largest block of references whose tile fits: 8 x 8 on Hopper
   * and Ampere for the standard window (a 67-pixel tile, 18 KB).  */
  for (int rect = NF_RECT_MAX; rect >= 1; rect /= 2)
    {
      const int side = (rect - 1) * step + 2 * radius + BM3D_PATCH;
      const size_t bytes = sizeof (float)
                           * ((size_t) warps * warp_floats + BM3D_PATCH_AREA
                              + (size_t) side * side);

      if (bytes <= (size_t) smem_optin)
        {
          shape->rect = rect;
          shape->warps = warps;
          shape->smem = bytes;
          shape->tile_side = side;
          return 1;
        }
    }
  return 0;
}

cudaError_t
bm3d_cuda_filter_launch (int wiener, const filter_args *fa,
                         const bm3d_filter_shape *shape, int channels,
                         cudaStream_t stream)
{
  filter_args a = *fa;
  cudaError_t e;

  a.rect_x = a.rect_y = shape->rect;
  dim3 grid ((a.ax.n + shape->rect - 1) / shape->rect,
             (a.ry_end - a.ry_begin + shape->rect - 1) / shape->rect,
             channels);
  if (wiener)
    {
      if ((e = cudaFuncSetAttribute (collaborative_filter_wiener_tiled,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int) shape->smem)) != cudaSuccess)
        return e;
      collaborative_filter_wiener_tiled<<<grid, shape->warps * 32,
                                          shape->smem, stream>>> (a,
                                                                  shape->tile_side);
    }
  else if (a.group_max > 16)
    {
      if ((e = cudaFuncSetAttribute (collaborative_filter_hard32_tiled,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int) shape->smem)) != cudaSuccess)
        return e;
      collaborative_filter_hard32_tiled<<<grid, shape->warps * 32,
                                          shape->smem, stream>>> (a,
                                                                  shape->tile_side);
    }
  else
    {
      if ((e = cudaFuncSetAttribute (collaborative_filter_hard_tiled,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int) shape->smem)) != cudaSuccess)
        return e;
      collaborative_filter_hard_tiled<<<grid, shape->warps * 32, shape->smem,
                                        stream>>> (a, shape->tile_side);
    }
  return cudaGetLastError ();
}
