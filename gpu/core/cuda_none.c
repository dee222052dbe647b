/* The CUDA backend's device queries in a build without CUDA: the engine
 * then always runs on the CPU, and asking for CUDA says why not.  The
 * algorithm table (algorithms.c) has no CUDA functions in such a build.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "engine.h"

#include <stdio.h>

int
bm3d_cuda_available (char *why, size_t why_len)
{
  if (why && why_len)
    snprintf (why, why_len, "built without CUDA support");
  return 0;
}

bm3d_status
bm3d_cuda_block_autocov (const float *residual, int blocks, int channels,
                         double *autocov, bm3d_job *job)
{
  (void) residual, (void) blocks, (void) channels, (void) autocov;
  (void) job;
  return BM3D_ERR_BACKEND_UNAVAILABLE;
}

float *
bm3d_cuda_autocov_open (bm3d_job *job, int blocks, int channels)
{
  (void) job, (void) blocks, (void) channels;
  return NULL;
}

bm3d_status
bm3d_cuda_autocov_close (bm3d_job *job, int blocks, int channels,
                         double *autocov, float *fallback)
{
  (void) job, (void) blocks, (void) channels, (void) autocov;
  (void) fallback;
  return BM3D_ERR_BACKEND_UNAVAILABLE;
}

int
bm3d_cuda_device_count (void)
{
  return 0;
}

int
bm3d_cuda_device_name (int device, char *name, size_t name_len)
{
  (void) device;
  if (name && name_len)
    snprintf (name, name_len, "built without CUDA support");
  return 0;
}

void
bm3d_cuda_warm_up (int device, const int *others, int n_others)
{
  (void) device, (void) others, (void) n_others;
}

double
bm3d_cuda_wait_ready (int device)
{
  (void) device;
  return 0.0;
}
