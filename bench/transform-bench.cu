/* Microbenchmark: the 2D transform stage of BM3D on the GPU, done two
 * ways on the same batch of 8x8 patches:
 *
 *   matrix   the backend's way: coef = F X F^T with F in constant
 *            memory, one patch per thread, everything in registers;
 *   cuFFT    a batched 8x8 real-to-complex FFT (cufftExecR2C), the
 *            core of an FFT-based DCT (which needs extra pre- and
 *            post-processing on top, so this is a lower bound).
 *
 * Both read the patches from and write the coefficients to global
 * memory; inside the backend the matrix transform works on patches
 * already in shared memory, which cuFFT cannot.
 *
 *   nvcc -O3 -arch=sm_90 bench/transform-bench.cu -lcufft -o transform-bench
 *   ./transform-bench [patches]
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include <cuda_runtime.h>
#include <cufft.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

__constant__ float c_f[8][8];

__global__ void
matrix_transform (const float *__restrict__ in, float *__restrict__ out,
                  int patches)
{
  int p = blockIdx.x * blockDim.x + threadIdx.x;

  if (p >= patches)
    return;
  float x[8][8], t[8][8];
  const float4 *src = (const float4 *) (in + (size_t) p * 64);
#pragma unroll
  for (int i = 0; i < 16; i++)
    {
      float4 v = src[i];
      x[i / 2][(i % 2) * 4 + 0] = v.x;
      x[i / 2][(i % 2) * 4 + 1] = v.y;
      x[i / 2][(i % 2) * 4 + 2] = v.z;
      x[i / 2][(i % 2) * 4 + 3] = v.w;
    }
#pragma unroll
  for (int r = 0; r < 8; r++)
#pragma unroll
    for (int u = 0; u < 8; u++)
      {
        float s = 0.0f;
#pragma unroll
        for (int j = 0; j < 8; j++)
          s = fmaf (c_f[u][j], x[r][j], s);
        t[r][u] = s;
      }
  float4 *dst = (float4 *) (out + (size_t) p * 64);
#pragma unroll
  for (int u = 0; u < 8; u++)
    {
      float o[8];
#pragma unroll
      for (int v = 0; v < 8; v++)
        {
          float s = 0.0f;
#pragma unroll
          for (int r = 0; r < 8; r++)
            s = fmaf (c_f[u][r], t[r][v], s);
          o[v] = s;
        }
      dst[u * 2] = make_float4 (o[0], o[1], o[2], o[3]);
      dst[u * 2 + 1] = make_float4 (o[4], o[5], o[6], o[7]);
    }
}

#define CHECK(call)                                                     \
  do                                                                    \
    {                                                                   \
      cudaError_t e_ = (call);                                          \
      if (e_ != cudaSuccess)                                            \
        {                                                               \
          fprintf (stderr, "%s: %s\n", #call, cudaGetErrorString (e_)); \
          return 1;                                                     \
        }                                                               \
    }                                                                   \
  while (0)

int
main (int argc, char **argv)
{
  int patches = argc > 1 ? atoi (argv[1]) : 1 << 20;
  size_t n = (size_t) patches * 64;
  float f[8][8], *in, *out, ms;
  cufftComplex *spec;
  cudaEvent_t a, b;
  cufftHandle plan;
  int dims[2] = { 8, 8 };
  const int reps = 20;

  for (int u = 0; u < 8; u++)
    for (int x = 0; x < 8; x++)
      f[u][x] = (float) ((u == 0 ? sqrt (1.0 / 8) : sqrt (2.0 / 8))
                         * cos (M_PI * (2 * x + 1) * u / 16.0));
  CHECK (cudaMemcpyToSymbol (c_f, f, sizeof f));
  CHECK (cudaMalloc (&in, n * sizeof (float)));
  CHECK (cudaMalloc (&out, n * sizeof (float)));
  CHECK (cudaMalloc (&spec, (size_t) patches * 8 * 5 * sizeof (cufftComplex)));
  CHECK (cudaMemset (in, 0, n * sizeof (float)));
  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&b));

  matrix_transform<<<(patches + 127) / 128, 128>>> (in, out, patches);
  CHECK (cudaDeviceSynchronize ());
  CHECK (cudaEventRecord (a));
  for (int r = 0; r < reps; r++)
    matrix_transform<<<(patches + 127) / 128, 128>>> (in, out, patches);
  CHECK (cudaEventRecord (b));
  CHECK (cudaEventSynchronize (b));
  CHECK (cudaEventElapsedTime (&ms, a, b));
  printf ("matrix 8x8 transform: %d patches, %.3f ms, %.3f ns/patch, "
          "%.0f GB/s\n", patches, ms / reps, ms / reps * 1e6 / patches,
          2.0 * n * sizeof (float) / (ms / reps * 1e-3) / 1e9);

  if (cufftPlanMany (&plan, 2, dims, NULL, 1, 64, NULL, 1, 40, CUFFT_R2C,
                     patches) != CUFFT_SUCCESS)
    {
      printf ("cuFFT: plan failed\n");
      return 1;
    }
  cufftExecR2C (plan, in, spec);
  CHECK (cudaDeviceSynchronize ());
  CHECK (cudaEventRecord (a));
  for (int r = 0; r < reps; r++)
    cufftExecR2C (plan, in, spec);
  CHECK (cudaEventRecord (b));
  CHECK (cudaEventSynchronize (b));
  CHECK (cudaEventElapsedTime (&ms, a, b));
  printf ("cuFFT 8x8 R2C:        %d patches, %.3f ms, %.3f ns/patch "
          "(before any DCT post-processing)\n", patches, ms / reps,
          ms / reps * 1e6 / patches);
  cufftDestroy (plan);
  return 0;
}
