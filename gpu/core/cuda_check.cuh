/* One way to check every CUDA call in the CUDA backend: a failure
 * becomes a BM3D_ERR_* status with a one-line message in the job's
 * report, never an abort.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef BM3D_CUDA_CHECK_CUH
#define BM3D_CUDA_CHECK_CUH

#include <cuda_runtime.h>

#include "engine.h"

/* Turn `error` from `what` into a status, write the message and, for
 * faults that leave the device unusable, disable the backend for the
 * rest of the process so that later calls fall back at once.  */
bm3d_status bm3d_cuda_fail (bm3d_job *job, cudaError_t error,
                            const char *what);

/* Evaluate a CUDA runtime call; on failure return its status from the
 * enclosing function (which must return bm3d_status).  */
#define BM3D_CUDA_CHECK(job, call)                                      \
  do                                                                    \
    {                                                                   \
      cudaError_t bm3d_cuda_error_ = (call);                            \
      if (bm3d_cuda_error_ != cudaSuccess)                              \
        return bm3d_cuda_fail ((job), bm3d_cuda_error_, #call);         \
    }                                                                   \
  while (0)

/* After a kernel launch: launch errors (bad configuration, no kernel
 * image for the device) show up here, faults at the next sync.  */
#define BM3D_CUDA_CHECK_LAUNCH(job, name)                               \
  do                                                                    \
    {                                                                   \
      cudaError_t bm3d_cuda_error_ = cudaGetLastError ();               \
      if (bm3d_cuda_error_ != cudaSuccess)                              \
        return bm3d_cuda_fail ((job), bm3d_cuda_error_,                 \
                               "launch of " name);                      \
    }                                                                   \
  while (0)

#endif /* BM3D_CUDA_CHECK_CUH */
