/* The variance-stabilising transform of a noise level function
 * (bm3d.h, "the noise model"): tables and their arithmetic.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * A table holds a monotone map of 0..255 at BM3D_VST_STEPS + 1 even
 * steps; values between steps are interpolated linearly, values outside
 * 0..255 (float images) continue the end steps' slopes.  The engine
 * hands the tables to the backends (bm3d_job's vst): the CPU filters a
 * stabilised copy of the input and maps its result back, the CUDA
 * backend maps each tile on the device (cuda_device.cu, with this
 * lookup's rounding), so both filter the same stabilised values.  The
 * estimators read the input through the forward tables
 * (job->read_through) rather than from a copy.  */
#ifndef BM3D_NOISE_VST_H
#define BM3D_NOISE_VST_H

#include "bm3d.h"

#ifdef __CUDACC__
#define BM3D_VST_FN __host__ __device__ static inline
#else
#define BM3D_VST_FN static inline
#endif

#define BM3D_VST_STEPS 1024

/* A row of tables, one a colour channel.  */
typedef float bm3d_vst_table[BM3D_VST_STEPS + 1];

typedef struct bm3d_vst
{
  int   channels;
  /* Forward: f (x) at x = i * 255 / BM3D_VST_STEPS, f (0) = 0,
   * f (255) = 255.  */
  float fwd[BM3D_NOISE_PLANES][BM3D_VST_STEPS + 1];
  /* Inverse: the x whose noisy values have mean y in the stabilised
   * domain, at y = i * 255 / BM3D_VST_STEPS.  */
  float inv[BM3D_NOISE_PLANES][BM3D_VST_STEPS + 1];
} bm3d_vst;

/* t (x) for a table of BM3D_VST_STEPS + 1 values over 0..255.  */
BM3D_VST_FN float
bm3d_vst_lookup (const float *t, float x)
{
  const float step = 255.0f / BM3D_VST_STEPS;
  float p = x / step;
  int i;

  if (!(p > 0.0f))
    return t[0] + (t[1] - t[0]) * p;
  if (p >= (float) BM3D_VST_STEPS)
    return t[BM3D_VST_STEPS]
           + (t[BM3D_VST_STEPS] - t[BM3D_VST_STEPS - 1]) * (p - BM3D_VST_STEPS);
  i = (int) p;
  return t[i] + (t[i + 1] - t[i]) * (p - (float) i);
}

/* `profile`'s forward tables alone (what the estimators read through).  */
void bm3d_vst_forward (const bm3d_noise_profile *profile,
                       bm3d_vst_table *fwd);
void bm3d_vst_init  (bm3d_vst *vst, const bm3d_noise_profile *profile,
                     float sigma, int clipped);
void bm3d_vst_apply (const bm3d_image *in, bm3d_image *out,
                     const bm3d_vst_table *table, int threads);

#endif
