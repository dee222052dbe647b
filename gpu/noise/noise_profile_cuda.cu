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
 *   block_autocov_rows  the engine's: eight blocks and planes a
 *                    thread block, a thread per dy holding the lower
 *                    row in registers as doubles and summing its 15 dx
 *                    from them, in the host's order and precision, so
 *                    the tables are the host's bit for bit (each
 *                    product of two floats is exact in double);
 *                    launched through bm3d_cuda_launch_block_autocov.
 *   block_autocov    the engine's before: a thread block per block and
 *                    plane, a thread per lag, the same sums; kept as
 *                    bench/autocov-bench.cu's reference.
 *
 * Direct sums rather than an FFT: an FFT's rounding would differ from
 * the host's.  Measured on an H100 machine (bench/bm3d-autocov-bench,
 * 2048 blocks x 3 planes, docs/camera-noise.md): rows 0.074 ms, a
 * thread per lag 0.552 ms, batched cuFFT in float 0.471 ms; the
 * residuals' upload takes 2.3 ms of the whole.  */
#include <cuda_runtime.h>

#include <stddef.h>
#include <string.h>

#include "core/cuda_device.cuh"
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

/* block_autocov_rows: 8 blocks x planes a thread block, a thread per dy;
 * a row of 33 floats and squares 1064 apart, so that the 32 lanes of a
 * warp (4 squares x 8 dy) read 32 different banks.  */
#define ROWS_SQUARES     8
#define ROWS_DY          (BM3D_NOISE_LAG + 1)
#define ROWS_THREADS     (ROWS_SQUARES * ROWS_DY)
#define ROWS_STRIDE      (AUTOCOV_BLOCK + 1)
#define ROWS_SQUARE      (AUTOCOV_BLOCK * ROWS_STRIDE + 8)

/* Lags dy, -7..7 of a block and plane per thread: for each row pair the
 * lower row in registers as doubles, every dx summed from them.  Each
 * lag's sum runs over y, then x, as the host's, and a fused
 * multiply-add rounds as the host's multiply and add (the product of
 * two floats is exact in double), so the tables are the host's.  */
__global__ void __launch_bounds__ (ROWS_THREADS)
block_autocov_rows (const float *__restrict__ residual, int blocks,
                    int channels, double *__restrict__ autocov)
{
  __shared__ float v[ROWS_SQUARES * ROWS_SQUARE];
  const int count = blocks * channels;
  const int first = blockIdx.x * ROWS_SQUARES;

  for (int i = threadIdx.x; i < ROWS_SQUARES * AUTOCOV_AREA;
       i += ROWS_THREADS)
    {
      const int sq = i / AUTOCOV_AREA, r = i - sq * AUTOCOV_AREA;

      if (first + sq < count)
        v[sq * ROWS_SQUARE + r / AUTOCOV_BLOCK * ROWS_STRIDE
          + r % AUTOCOV_BLOCK] = residual[(size_t) first * AUTOCOV_AREA + i];
    }
  __syncthreads ();

  const int sq = threadIdx.x / ROWS_DY, dy = threadIdx.x - sq * ROWS_DY;
  const int bc = first + sq;

  if (bc >= count)
    return;
  const float *square = v + sq * ROWS_SQUARE;
  double s[BM3D_NOISE_SIDE];

#pragma unroll
  for (int k = 0; k < BM3D_NOISE_SIDE; k++)
    s[k] = 0.0;
  for (int y = 0; y + dy < AUTOCOV_BLOCK; y++)
    {
      const float *p = square + y * ROWS_STRIDE;
      const float *q_row = square + (y + dy) * ROWS_STRIDE;
      double q[AUTOCOV_BLOCK];

#pragma unroll
      for (int x = 0; x < AUTOCOV_BLOCK; x++)
        q[x] = q_row[x];
#pragma unroll
      for (int x = 0; x < AUTOCOV_BLOCK; x++)
        {
          const double a = p[x];

#pragma unroll
          for (int k = 0; k < BM3D_NOISE_SIDE; k++)
            {
              const int xq = x + k - BM3D_NOISE_LAG;

              if (xq >= 0 && xq < AUTOCOV_BLOCK)
                s[k] = __fma_rn (a, q[xq], s[k]);
            }
        }
    }

  const int b = bc / channels, c = bc - b * channels;
  double *out = autocov + ((size_t) c * blocks + b) * AUTOCOV_LAGS
                + dy * BM3D_NOISE_SIDE;

#pragma unroll
  for (int k = 0; k < BM3D_NOISE_SIDE; k++)
    {
      const int dx = k - BM3D_NOISE_LAG;

      out[k] = s[k] / ((double) (AUTOCOV_BLOCK - dy)
                       * (AUTOCOV_BLOCK - (dx < 0 ? -dx : dx)));
    }
}

extern "C" cudaError_t
bm3d_cuda_launch_block_autocov_direct (const float *d_residual, int blocks,
                                int channels, double *d_autocov,
                                cudaStream_t stream)
{
  block_autocov<<<blocks * channels, AUTOCOV_THREADS, 0, stream>>>
    (d_residual, blocks, channels, d_autocov);
  return cudaGetLastError ();
}

extern "C" cudaError_t
bm3d_cuda_launch_block_autocov (const float *d_residual, int blocks,
                                int channels, double *d_autocov,
                                cudaStream_t stream)
{
  block_autocov_rows<<<(blocks * channels + ROWS_SQUARES - 1) / ROWS_SQUARES,
                       ROWS_THREADS, 0, stream>>>
    (d_residual, blocks, channels, d_autocov);
  return cudaGetLastError ();
}


/* The residuals' bytes on the device, rounded up for the tables that
 * follow them.  */
static size_t
residual_bytes (int blocks, int channels)
{
  return ((size_t) blocks * channels * AUTOCOV_AREA * sizeof (float) + 255)
         & ~(size_t) 255;
}

static bm3d_status
autocov_on_device (const float *residual, int blocks, int channels,
                   double *autocov, bm3d_job *job)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const size_t in_bytes = residual_bytes (blocks, channels);
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

extern "C" float *
bm3d_cuda_autocov_open (bm3d_job *job, int blocks, int channels)
{
  bm3d_cuda_device *dev;
  float *area = NULL;

  if (bm3d_cuda_enter (job, &dev) != BM3D_OK)
    return NULL;
  if (residual_bytes (blocks, channels) <= BM3D_CUDA_BOUNCE_AREA)
    area = (float *) bm3d_cuda_bounce_area (job);
  if (!area)
    bm3d_cuda_leave (job, BM3D_OK);
  return area;
}

extern "C" bm3d_status
bm3d_cuda_autocov_close (bm3d_job *job, int blocks, int channels,
                         double *autocov, float *fallback)
{
  /* Held apart: a device that faults forgets its area, which stays
   * allocated.  */
  const float *residual = (const float *) bm3d_cuda_device_of (job)->bounce;
  bm3d_status status = autocov_on_device (residual, blocks, channels,
                                          autocov, job);

  if (status != BM3D_OK)
    memcpy (fallback, residual,
            (size_t) blocks * channels * AUTOCOV_AREA * sizeof (float));
  return bm3d_cuda_leave (job, status);
}
