/* The CPU BM3D backend's shared state: what a band of references needs
 * to know about the current phase, and one worker's scratch.  Private
 * to bm3d_cpu.c (bands, filtering, aggregation) and bm3d_cpu_match.c
 * (block matching).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef BM3D_CPU_BAND_H
#define BM3D_CPU_BAND_H

#include <stdint.h>

#include "bm3d_cpu_simd.h"
#include "core/engine.h"

/* Everything a band needs to know about the current phase.  */
typedef struct
{
  const bm3d_phase_profile *phase;
  int            wiener;         /* 0: hard threshold, 1: Wiener         */
  int            width;
  int            height;
  int            channels;
  const float   *noisy[BM3D_MAX_CHANNELS];
  const float   *basic[BM3D_MAX_CHANNELS];  /* Wiener phase only        */
  const float   *match;          /* plane block matching reads           */
  float         *num[BM3D_MAX_CHANNELS];
  float         *den[BM3D_MAX_CHANNELS];
  float          sigma[BM3D_MAX_CHANNELS];
  /* Camera noise (job->per_coefficient_noise): per plane and row u of
   * a 2D coefficient block, the variances of the coefficients (u, 0..7)
   * and the hard thresholds lambda_3d sqrt (var).  Unused for white
   * noise, whose code keeps its own path, pixel for pixel as before.  */
  int            profile;
  row8           var_rows[BM3D_MAX_CHANNELS][K];
  row8           thr_rows[BM3D_MAX_CHANNELS][K];
  row8           fwd[K][K], inv[K][K];      /* 2D transform and inverse,
                                               each entry in all lanes  */
  row8           fwd_t[K], inv_t[K];        /* rows of their transposes  */
  row8           kaiser_rows[K];
  const int     *xs;             /* reference columns                    */
  const int     *xcol;           /* column -> index in xs, or -1         */
  int            nx;
  const int     *ys;             /* reference rows                       */
  int            ny;
  const int     *band_first;     /* band b: ys[band_first[b]] ... ys[band_first[b+1] - 1] */
  int            bands;
  int            band_rows_max;  /* most reference rows in a band        */
} phase_ctx;

/* One worker's scratch, reused band after band.  */
typedef struct
{
  float   *dist;     /* per reference: group_max - 1 sorted distances   */
  int32_t *pos;      /* ... and the candidates' raster indices          */
  int     *count;    /* candidates kept per reference                   */
  float   *limit;    /* per reference row and column: the largest
                        distance a new candidate may have              */
  float   *hsum;     /* horizontal 8-sums, one row per pixel row        */
  row8    *group;    /* 3 x BM3D_GROUP_MAX patches of 64 coefficients:
                        noisy, basic estimate, transform scratch       */
} band_scratch;

/* Find the group candidates of every reference of band `b` into the
 * scratch's dist, pos and count (bm3d_cpu_match.c).  */
void bm3d_cpu_block_match (const phase_ctx *ctx, band_scratch *s, int b);

#endif /* BM3D_CPU_BAND_H */
