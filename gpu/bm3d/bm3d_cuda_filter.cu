/* BM3D Denoise — CUDA collaborative filtering: hard thresholding and
 * Wiener filtering of the groups.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The CUDA side of collaborative_filter_hard and _wiener in bm3d_cpu.c:
 *
 *   collaborative_filter_hard / _wiener
 *                    a warp per 3D group: gather with the 2D
 *                    transform's column pass done in registers on the
 *                    way, row pass, Haar transform across the group,
 *                    threshold or Wiener shrinkage, inverses, in shared
 *                    memory; the DCT in its butterfly form; the weighted
 *                    group goes into the tile's sums through
 *                    aggregate_group (bm3d_cuda_kernels.cuh), and
 *                    `aggregate` (bm3d_cuda_aggregate.cu) divides them
 *                    once the phase's groups are done.
 *
 * The filters are built for each 2D transform with its matrices as
 * literals, and once reading them from constant memory, should the
 * literals ever differ from bm3d_tables.c's (literal_transforms_check).  */
#include <cuda_runtime.h>

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "bm3d_cuda_kernels.cuh"

/* Filter blocks: warps, and blocks an SM should hold (which bounds the
 * registers per thread: 65536 / (32 * warps * blocks)).  The Wiener
 * filter keeps its gains in registers (see wiener_group).  */
#define HARD_WARPS            8
#define WIENER_WARPS          4
#ifndef WIENER_BLOCKS_PER_SM
#define WIENER_BLOCKS_PER_SM  4
#endif

/* Transforms: [0] hard forward, [1] hard inverse, [2] Wiener forward,
 * [3] Wiener inverse; Kaiser windows of both phases
 * (bm3d_cuda_filter_tables).  */
__constant__ float c_transform[4][BM3D_PATCH][BM3D_PATCH];
__constant__ float c_kaiser[2][BM3D_PATCH_AREA];

/* Camera noise (filter_args.profile): per phase and plane, each 2D
 * coefficient's noise variance (index u * 8 + v, as job->var_hard and
 * var_wiener), and the hard phase's thresholds lambda_3d sqrt (var),
 * computed on the host as bm3d_cpu.c's profile_setup does
 * (bm3d_cuda_filter_profile_tables).  A lane reads its two
 * coefficients' entries once a kernel, into registers.  */
__constant__ float c_profile_var[2][BM3D_MAX_CHANNELS][BM3D_PATCH_AREA];
__constant__ float c_profile_thr[BM3D_MAX_CHANNELS][BM3D_PATCH_AREA];

/* The least noise variance a camera-noise group's weight is taken from,
 * bm3d_cpu.c's PROFILE_NOISE_MIN: a group whose kept coefficients carry
 * less would weigh so much that its sums overflow.  */
#define PROFILE_NOISE_MIN 1e-3f

/* The least variance a camera-noise coefficient is given on the
 * device: the Wiener gain's divisor bb + s2 is then a normal float, as
 * divide_normal's approximate reciprocal needs (an exact division
 * there cost the Wiener phase 7 %).  A profile's variances are above
 * 1e-6 of its pixel variance (noise_profile.c), so only a profile file
 * of a near-zero level is raised, to a level that changes no gain.  */
#define PROFILE_VAR_MIN 1e-30f

/* The two 2D transforms' matrices again, as compile-time constants
 * ([kind][forward, inverse], kinds as bm3d_transform_kind): the
 * filters are built for each, so products by zeros are left out (24 of
 * the 64 entries of bior1.5's forward matrix, 16 of its inverse's; see
 * transform_1d) and the rest become immediate operands; on an H100 the
 * immediates took 7 % off both phases (docs/cuda-experiments.md).  They are
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


/* ---- collaborative filtering ----------------------------------------- */


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

/* threshold_group for camera noise: coefficient q = lane + 32 half
 * thresholded at thr[half], its own.  Returns the lane's summed noise
 * variance (var[half]) of the kept coefficients.  */
template <int N>
__device__ __forceinline__ float
threshold_group_profile (float *buf, const float (&thr)[2],
                         const float (&var)[2], int lane)
{
  float noise = 0.0f;

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
        if (fabsf (v[p]) <= thr[half])
          v[p] = 0.0f;
        else
          noise += var[half];
      haar_inverse<N> (v);
#pragma unroll
      for (int p = 0; p < N; p++)
        buf[p * PATCH_PITCH + off] = v[p];
    }
  return noise;
}

/* Hard thresholding of the m patches in `buf` (white noise: every
 * coefficient at thr) and the group's aggregation weight, the inverse
 * of the kept coefficients' noise variance.  */
__device__ __forceinline__ float
hard_weight_white (float *buf, int m, float thr, float sigma, int lane)
{
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
  return 1.0f / (sigma * sigma * (float) max (kept, 1));
}

/* The same for camera noise: each coefficient at its own threshold,
 * the weight from the kept coefficients' own variances.  */
__device__ __forceinline__ float
hard_weight_profile (float *buf, int m, const float (&thr)[2],
                     const float (&var)[2], float var_dc, int lane)
{
  float noise = 0.0f;

  switch (m)
    {
    case 1:  noise = threshold_group_profile<1> (buf, thr, var, lane); break;
    case 2:  noise = threshold_group_profile<2> (buf, thr, var, lane); break;
    case 4:  noise = threshold_group_profile<4> (buf, thr, var, lane); break;
    case 8:  noise = threshold_group_profile<8> (buf, thr, var, lane); break;
    case 16: noise = threshold_group_profile<16> (buf, thr, var, lane); break;
    default: noise = threshold_group_profile<32> (buf, thr, var, lane); break;
    }
  __syncwarp ();
  noise = warp_sum (noise);
  /* Nothing kept: the group is its mean, as noisy as its DC.  */
  return 1.0f / fmaxf (fmaxf (noise, var_dc), PROFILE_NOISE_MIN);
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

/* Empirical Wiener filtering of a group of N patches at (px, py), with
 * `buf` holding the basic estimate's patches, already 2D-transformed.
 * The gains W = B^2 / (B^2 + s2) of the lane's two coefficients of every
 * patch stay in registers while the noisy patches replace the basic ones
 * in `buf`, so a warp needs one group buffer, not two.  s2[half] is the
 * noise variance of coefficient lane + 32 half: sigma^2 for both under
 * white noise, each its own for camera noise (PROFILE).  On return
 * `buf` holds the filtered group in the 2D transform domain; the result
 * is the lane's sum of squared gains, for camera noise each times its
 * coefficient's variance.  */
template <int N, int K, bool PROFILE>
__device__ __forceinline__ float
wiener_group (float *buf, const float *__restrict__ noisy, int width,
              const int *px, const int *py, const float (&s2)[2], int lane)
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

          /* s2 is at least PROFILE_VAR_MIN, never subnormal
           * (bm3d_cuda_filter_profile_tables).  */
          gain[half][p] = divide_normal (bb, bb + s2[half]);
          if constexpr (PROFILE)
            wsum = fmaf (gain[half][p] * gain[half][p], s2[half], wsum);
          else
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

/* Floats of a warp's group buffer for groups of up to `group_max`
 * patches (the expert options allow 32 in the first phase too).  */
__host__ __device__ inline int
filter_warp_floats (bool wiener, int group_max)
{
  const int group = wiener || group_max > 16 ? 32 : 16;

  return group * PATCH_PITCH;
}

template <bool WIENER, int K, bool PROFILE>
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
   * from the copy (both measured, docs/cuda-experiments.md).  */
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
  /* Camera noise: the variances (and hard thresholds) of the lane's
   * coefficients lane and lane + 32, and of the DC.  */
  float var[2] = { 0.0f, 0.0f }, thr[2] = { 0.0f, 0.0f }, var_dc = 0.0f;

  if (PROFILE)
    {
      const float *v = c_profile_var[WIENER ? 1 : 0][c];

      var[0] = v[lane];
      var[1] = v[lane + 32];
      var_dc = v[0];
      thr[0] = c_profile_thr[c][lane];
      thr[1] = c_profile_thr[c][lane + 32];
    }

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
          if (PROFILE)
            weight = hard_weight_profile (buf, m, thr, var, var_dc, lane);
          else
            weight = hard_weight_white (buf, m, a.lambda * sigma, sigma, lane);
        }
      else
        {
          const float s2 = sigma * sigma;
          const float s2v[2] = { PROFILE ? var[0] : s2, PROFILE ? var[1] : s2 };
          const float *z = a.noisy[c];
          float wsum;

          gather_transform<K, 2> (buf, a.basic[c], a.width, px, py, m, lane);
          switch (m)
            {
            case 1:  wsum = wiener_group<1, K, PROFILE> (buf, z, a.width, px, py, s2v, lane); break;
            case 2:  wsum = wiener_group<2, K, PROFILE> (buf, z, a.width, px, py, s2v, lane); break;
            case 4:  wsum = wiener_group<4, K, PROFILE> (buf, z, a.width, px, py, s2v, lane); break;
            case 8:  wsum = wiener_group<8, K, PROFILE> (buf, z, a.width, px, py, s2v, lane); break;
            case 16: wsum = wiener_group<16, K, PROFILE> (buf, z, a.width, px, py, s2v, lane); break;
            default: wsum = wiener_group<32, K, PROFILE> (buf, z, a.width, px, py, s2v, lane); break;
            }
          __syncwarp ();
          wsum = warp_sum (wsum);
          if (PROFILE)
            weight = 1.0f / fmaxf (wsum, PROFILE_NOISE_MIN);
          else
            /* Floored as bm3d_cpu.c floors it: finite at small sigma
             * for a group whose basic estimate is next to zero.  */
            weight = 1.0f / (s2 * fmaxf (wsum, 1.0f));
        }

      inverse_transform_weighted<K, WIENER ? 3 : 1> (buf, m, weight, kaiser,
                                                    lane);
      aggregate_group (a.num[c], a.weights[c], a.width, buf, px, py, m,
                       weight, lane);
      __syncwarp ();
    }

}

/* K: the phase's transform kind, or TRANSFORM_TABLE; PROFILE: camera
 * noise (filter_args.profile), a kernel of its own so that white
 * noise's filters stay as they were.  */
template <int K, bool PROFILE>
__global__ void
collaborative_filter_hard (filter_args a)
{
  collaborative_filter<false, K, PROFILE> (a);
}

template <int K, bool PROFILE>
__global__ void __launch_bounds__ (WIENER_WARPS * 32, WIENER_BLOCKS_PER_SM)
collaborative_filter_wiener (filter_args a)
{
  collaborative_filter<true, K, PROFILE> (a);
}

typedef void (*filter_kernel) (filter_args);

template <int K>
static filter_kernel
filter_kernel_of (bool wiener, bool profile)
{
  if (profile)
    return wiener ? collaborative_filter_wiener<K, true>
                  : collaborative_filter_hard<K, true>;
  return wiener ? collaborative_filter_wiener<K, false>
                : collaborative_filter_hard<K, false>;
}

/* The filter of a phase for transform kind `kind` (TRANSFORM_TABLE: the
 * one reading c_transform), for camera noise if `profile`.  */
static filter_kernel
filter_kernel_for (bool wiener, int kind, bool profile)
{
  switch (kind)
    {
    case BM3D_TRANSFORM_DCT:
      return filter_kernel_of<BM3D_TRANSFORM_DCT> (wiener, profile);
    case BM3D_TRANSFORM_BIOR15:
      return filter_kernel_of<BM3D_TRANSFORM_BIOR15> (wiener, profile);
    default:
      return filter_kernel_of<TRANSFORM_TABLE> (wiener, profile);
    }
}

/* ---- host side: the literal transform tables ------------------------- */

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

/* ---- host side: shape, tables, launch -------------------------------- */

/* Block shape of a filter kernel: 4x4 references for the Wiener filter
 * (on an H100 this beat 8x8, and 2x2 with the sums in global memory),
 * 8x4 for the hard-thresholding filter, whose groups are shorter: four
 * a warp beat two (4x4), and 8x8 and 16x8 left too few blocks for the
 * last wave on gray images (docs/cuda-experiments.md); fewer warps
 * where shared memory is short.  */
template <bool WIENER>
static filter_config
filter_config_for (int group_max, int smem_optin)
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
      if (bytes <= (size_t) smem_optin)
        break;
    }
  return f;
}

filter_config
bm3d_cuda_filter_config (bool wiener, int group_max, int smem_optin)
{
  return wiener ? filter_config_for<true> (group_max, smem_optin)
                : filter_config_for<false> (group_max, smem_optin);
}

cudaError_t
bm3d_cuda_filter_tables (const float tf[4][BM3D_PATCH][BM3D_PATCH],
                         const float kaiser[2][BM3D_PATCH][BM3D_PATCH],
                         cudaStream_t stream)
{
  cudaError_t e;

  if ((e = cudaMemcpyToSymbolAsync (c_transform, tf, sizeof c_transform, 0,
                                    cudaMemcpyHostToDevice,
                                    stream)) != cudaSuccess)
    return e;
  return cudaMemcpyToSymbolAsync (c_kaiser, kaiser, sizeof c_kaiser, 0,
                                  cudaMemcpyHostToDevice, stream);
}

cudaError_t
bm3d_cuda_filter_profile_tables
  (const float var_hard[BM3D_MAX_CHANNELS][BM3D_PATCH_AREA],
   const float var_wiener[BM3D_MAX_CHANNELS][BM3D_PATCH_AREA],
   float lambda_3d, cudaStream_t stream)
{
  float var[2][BM3D_MAX_CHANNELS][BM3D_PATCH_AREA];
  float thr[BM3D_MAX_CHANNELS][BM3D_PATCH_AREA];
  cudaError_t e;

  /* The thresholds as bm3d_cpu.c's profile_setup computes them, so both
   * backends keep the same coefficients.  */
  for (int c = 0; c < BM3D_MAX_CHANNELS; c++)
    for (int i = 0; i < BM3D_PATCH_AREA; i++)
      {
        var[0][c][i] = fmaxf (var_hard[c][i], PROFILE_VAR_MIN);
        var[1][c][i] = fmaxf (var_wiener[c][i], PROFILE_VAR_MIN);
        thr[c][i] = lambda_3d * sqrtf (var_hard[c][i]);
      }
  /* From pageable memory: the copies have read var and thr when they
   * return.  */
  if ((e = cudaMemcpyToSymbolAsync (c_profile_var, var, sizeof var, 0,
                                    cudaMemcpyHostToDevice,
                                    stream)) != cudaSuccess)
    return e;
  return cudaMemcpyToSymbolAsync (c_profile_thr, thr, sizeof thr, 0,
                                  cudaMemcpyHostToDevice, stream);
}

cudaError_t
bm3d_cuda_filter_setup (bool wiener, int transform_kind, bool profile,
                        const filter_config *fc)
{
  const filter_kernel filter
    = filter_kernel_for (wiener, filter_transform_kind (transform_kind),
                         profile);

  return cudaFuncSetAttribute (filter,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               (int) fc->smem);
}

void
bm3d_cuda_filter_launch (bool wiener, int transform_kind,
                         const filter_args *fa, const filter_config *fc,
                         int channels, cudaStream_t stream)
{
  const filter_kernel filter
    = filter_kernel_for (wiener, filter_transform_kind (transform_kind),
                         fa->profile != 0);
  dim3 grid ((fa->ax.n + fc->rect_x - 1) / fc->rect_x,
             (fa->ry_end - fa->ry_begin + fc->rect_y - 1) / fc->rect_y,
             channels);

  filter<<<grid, fc->warps * 32, fc->smem, stream>>> (*fa);
}
