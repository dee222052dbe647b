/* BM3D Denoise — CUDA aggregation: the quotient of a phase's sums.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The CUDA side of aggregate in bm3d_cpu.c.  The filters add each
 * weighted group to the tile's numerators, and its weight once to the
 * patch's corner in a plane of patch weights, as they go
 * (aggregate_group, bm3d_cuda_kernels.cuh); once a phase's groups are
 * done, `aggregate` spreads the patch weights by the Kaiser window into
 * the denominators and divides.  */
#include <cuda_runtime.h>

#include <stddef.h>

#include "bm3d_cuda_kernels.cuh"

/* The one-dimensional Kaiser windows of both phases
 * (bm3d_cuda_aggregate_tables).  */
__constant__ float c_kaiser_1d[2][BM3D_PATCH];

/* ---- aggregation ----------------------------------------------------- */

/* A block of the aggregation: AGG_W x AGG_H pixels, whose denominators
 * need the patch weights of AGG_REACH more rows and columns above and to
 * the left (the patches covering them).  */
#define AGG_W      32
#define AGG_H      8
#define AGG_REACH  (BM3D_PATCH - 1)

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

/* ---- host side ------------------------------------------------------- */

cudaError_t
bm3d_cuda_aggregate_tables (const float kaiser_1d[2][BM3D_PATCH],
                            cudaStream_t stream)
{
  return cudaMemcpyToSymbolAsync (c_kaiser_1d, kaiser_1d, sizeof c_kaiser_1d,
                                  0, cudaMemcpyHostToDevice, stream);
}

void
bm3d_cuda_aggregate_launch (const aggregate_args *a, cudaStream_t stream)
{
  dim3 grid ((a->width + AGG_W - 1) / AGG_W, (a->height + AGG_H - 1) / AGG_H);

  aggregate<<<grid, dim3 (AGG_W, AGG_H), 0, stream>>> (*a);
}
