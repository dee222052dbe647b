/* BM3D Denoise — the noise profile estimate's block statistics on CUDA.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The CUDA side of block_autocov in noise_profile_estimate.c: the
 * residuals' autocovariance at lags dy = 0..7, dx = -7..7 of every
 * block of every plane at once, where the host measures the blocks it
 * selects one by one.  The host keeps the rest (residuals, selection,
 * the profile); this is where its time went (on an H100 machine's 16
 * cores, 1.2 s of 1.3 at 12 MP RGB).
 *
 *   block_autocov    a thread block per block and plane: the 32x32
 *                    residual in shared memory, a thread per lag, its
 *                    sum in the host's order and precision, so the
 *                    tables are the host's bit for bit (each product of
 *                    two floats is exact in double); launched through
 *                    bm3d_cuda_launch_block_autocov (also by
 *                    bench/autocov-bench.cu).
 *
 * Direct sums rather than an FFT: an FFT's rounding would differ from
 * the host's, and 120 lags of a 32x32 block are a few microseconds of
 * work per block.  bench/bm3d-autocov-bench times them against batched
 * cuFFT (docs/camera-noise.md).  */
#include <cuda_runtime.h>

#include <stddef.h>

#include "cuda_device.cuh"
#include "noise_profile_cuda.cuh"

/* A thread per lag, rounded up to whole warps.  */
#define AUTOCOV_THREADS    128

__global__ void __launch_bounds__ (AUTOCOV_THREADS)
block_autocov (const float *__restrict__ residual, int blocks, int channels,
               double *__restrict__ autocov)
{
  __shared__ float v[AUTOCOV_AREA];
  const int bc = blockIdx.x;        /* residual [block][plane]          */
  const int b = bc / channels, c = bc - b * channels;
  const float *src = residual + (size_t) bc * AUTOCOV_AREA;

  for (int i = threadIdx.x; i < AUTOCOV_AREA; i += blockDim.x)
    v[i] = src[i];
  __syncthreads ();

  const int k = threadIdx.x;
  if (k >= AUTOCOV_LAGS)
    return;
  const int dy = k / BM3D_NOISE_SIDE;
  const int dx = k - dy * BM3D_NOISE_SIDE - BM3D_NOISE_LAG;
  const int xa = dx < 0 ? -dx : 0;
  const int xb = dx > 0 ? AUTOCOV_BLOCK - dx : AUTOCOV_BLOCK;
  double s = 0.0;

  for (int y = 0; y + dy < AUTOCOV_BLOCK; y++)
    {
      const float *p = v + y * AUTOCOV_BLOCK;
      const float *q = v + (y + dy) * AUTOCOV_BLOCK + dx;

      /* Rounded as the host rounds: no fused multiply-add (the product
       * is exact anyway), the additions in x order.  */
      for (int x = xa; x < xb; x++)
        s = __dadd_rn (s, __dmul_rn ((double) p[x], (double) q[x]));
    }
  autocov[((size_t) c * blocks + b) * AUTOCOV_LAGS + k]
    = s / ((double) (AUTOCOV_BLOCK - dy) * (xb - xa));
}

extern "C" cudaError_t
bm3d_cuda_launch_block_autocov (const float *d_residual, int blocks,
                                int channels, double *d_autocov,
                                cudaStream_t stream)
{
  block_autocov<<<blocks * channels, AUTOCOV_THREADS, 0, stream>>>
    (d_residual, blocks, channels, d_autocov);
  return cudaGetLastError ();
}

static bm3d_status
autocov_on_device (const float *residual, int blocks, int channels,
                   double *autocov, bm3d_job *job)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const size_t in_bytes = ((size_t) blocks * channels * AUTOCOV_AREA
                           * sizeof (float) + 255) & ~(size_t) 255;
  const size_t out_bytes = (size_t) blocks * channels * AUTOCOV_LAGS
                           * sizeof (double);
  bm3d_status status;

  /* A workspace BM3D left is used as it is, not shrunk and grown back
   * for the filter that follows.  */
  if (!(dev->workspace && dev->workspace_bytes >= in_bytes + out_bytes)
      && (status = bm3d_cuda_reserve (job, in_bytes + out_bytes)) != BM3D_OK)
    return status;

  float *d_in = (float *) dev->workspace;
  double *d_out = (double *) ((char *) dev->workspace + in_bytes);

  BM3D_CUDA_CHECK (job, cudaMemcpyAsync (d_in, residual,
                                         (size_t) blocks * channels
                                         * AUTOCOV_AREA * sizeof (float),
                                         cudaMemcpyHostToDevice,
                                         dev->stream));
  cudaError_t launch = bm3d_cuda_launch_block_autocov (d_in, blocks,
                                                       channels, d_out,
                                                       dev->stream);
  if (launch != cudaSuccess)
    return bm3d_cuda_fail (job, launch, "launch of block_autocov");
  BM3D_CUDA_CHECK (job, cudaMemcpyAsync (autocov, d_out, out_bytes,
                                         cudaMemcpyDeviceToHost,
                                         dev->stream));
  BM3D_CUDA_CHECK (job, cudaStreamSynchronize (dev->stream));
  return BM3D_OK;
}

extern "C" bm3d_status
bm3d_cuda_block_autocov (const float *residual, int blocks, int channels,
                         double *autocov, bm3d_job *job)
{
  bm3d_cuda_device *dev;
  bm3d_status status = bm3d_cuda_enter (job, &dev);

  if (status != BM3D_OK)
    return status;
  return bm3d_cuda_leave (job, autocov_on_device (residual, blocks, channels,
                                                  autocov, job));
}
