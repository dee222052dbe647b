/* The noise profile estimate's block statistics on CUDA, below the
 * engine call (bm3d_cuda_block_autocov in engine.h): the kernel's launch
 * on device buffers, for bench/autocov-bench.cu, which times it against
 * other ways of computing the same tables.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef BM3D_NOISE_PROFILE_CUDA_CUH
#define BM3D_NOISE_PROFILE_CUDA_CUH

#include <cuda_runtime.h>

#include "bm3d.h"

#define AUTOCOV_BLOCK      32                 /* PE_BLOCK                */
#define AUTOCOV_AREA       (AUTOCOV_BLOCK * AUTOCOV_BLOCK)
#define AUTOCOV_LAGS       ((BM3D_NOISE_LAG + 1) * BM3D_NOISE_SIDE)

/* The lag tables on `stream`: d_residual [block][plane][32 * 32] into
 * d_autocov [plane][block][AUTOCOV_LAGS], the host's values bit for
 * bit, by block_autocov_rows (the engine's) or block_autocov (a thread
 * per lag, the engine's before: bench/autocov-bench.cu's reference).
 * Return the launch's error; faults show at the next sync.  */
extern "C" cudaError_t
bm3d_cuda_launch_block_autocov (const float *d_residual, int blocks,
                                int channels, double *d_autocov,
                                cudaStream_t stream);
extern "C" cudaError_t
bm3d_cuda_launch_block_autocov_direct (const float *d_residual, int blocks,
                                       int channels, double *d_autocov,
                                       cudaStream_t stream);

#endif /* BM3D_NOISE_PROFILE_CUDA_CUH */
