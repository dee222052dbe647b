/* BM3D Denoise: what the noise model exports to the engine's core.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The dispatcher (core/engine.c) and the algorithm table
 * (core/algorithms.c) call these; the noise folder itself uses only
 * the job's helpers (core/job.h), so the calls run one way: core ->
 * noise -> job.  Not installed.  */
#ifndef BM3D_NOISE_H
#define BM3D_NOISE_H

#include "core/job.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- a photograph's processed noise: photo_noise.c ------------------ */
/* No camera's noise in an 8-bit photograph wants a white sigma above
 * this (the shared real photographs, ISO 800 to 12800, want 10 to 25):
 * more is texture the profile took for noise, where no block is flat.  */
#define PHOTO_SIGMA_MAX 30.0f
/* Set job->photo_gain: a photograph's processed noise gets its
 * profile's levels raised (photo_noise.c says why), other noise 1.  */
bm3d_status bm3d_photo_gain   (const bm3d_image *in, bm3d_job *job);
/* Does bm3d_photo_gain () read the image for noise of `profile`?  */
int         bm3d_photo_gain_reads (const bm3d_noise_profile *profile);
/* bm3d_estimate_sigma ()'s second step: `*sigma`, the finest scale's
 * white sigma of `in` (its band's kurtosis `kurtosis`), becomes a
 * photograph's when the profile says its noise is processed.  */
bm3d_status bm3d_photo_sigma  (const bm3d_image *in, bm3d_job *job,
                               float *sigma, float kurtosis);
/* The profile of `in` (at least 32x32) for a job of its parameters;
 * `share` is the part of the call's progress it takes.  */
bm3d_status bm3d_estimate_profile_job (const bm3d_image *in, bm3d_job *job,
                                       bm3d_noise_profile *profile,
                                       double share);
/* BM3D's per-coefficient variances (job->var_hard, var_wiener) and
 * sigma[] from the job's noise profile, its strengths and photo gain
 * applied, with `chroma_scale` (the expert option, 0 for none).  */
void        bm3d_noise_profile_tables (bm3d_job *job, float chroma_scale);

/* ---- JPEG's trace: jpeg_lattice.c -------------------------------------- */
/* How sure it is that `in` (0..255) was saved as JPEG: the Rayleigh z
 * of its luminance's 8x8 DCT coefficients' phases against the best
 * quantiser step, the median of a band of frequencies, the largest of
 * three bands (jpeg_lattice.c; BM3D_JPEG_LATTICE_MIN in bm3d.h).  */
float       bm3d_jpeg_lattice (const bm3d_image *in);

/* ---- noise estimation: noise_estimate.c ----------------------------- */
/* The noise deviation of `in` (checked by the caller), on the luminance
 * the engine matches on for colour, in the channels' units; and, when
 * `kurtosis` is not NULL, how sparse the measured band is (2.8 for
 * Gaussian noise, up to 28; see noise_estimate.c).  */
bm3d_status bm3d_estimate_cpu (const bm3d_image *in, bm3d_job *job,
                               float *sigma, float *kurtosis);

/* ---- noise against texture: block_scales.c ---------------------------- */
/* What the luminance's flattest 32x32 blocks hold (block_scales.c says
 * how); each 0 when fewer than 20 blocks can be read.  */
typedef struct
{
  /* Their plane-residual variance over the flattest 16x16 blocks' (0
   * when those are flat).  */
  float across;
  /* Their plane-residual variance over their own quarters'.  */
  float within;
  /* The unoriented share of their gradients' energy: the local
   * structure tensors' smaller eigenvalue over their mean (1 where the
   * blocks have no gradient at all).  */
  float isotropy;
  /* The flattest twentieth of the 16x16 blocks: their mean
   * plane-residual variance (0..255 squared; 0 when fewer than 20 of
   * the 32x32 blocks can be read).  */
  float small;
} bm3d_flat_blocks;

/* The measures of `in`'s flattest blocks; `tolerate_clipping` non-zero
 * (noise of one level at every brightness) reads blocks that hold a few
 * clipped pixels too (block_scales.c).  */
void        bm3d_flat_block_measures (const bm3d_image *in,
                                      int tolerate_clipping,
                                      bm3d_flat_blocks *m);

/* ---- noise profiles: noise_profile_estimate.c ------------------------ */
/* Estimate the profile of `in` (checked by the caller, at least
 * 32x32): filled whole, derived fields too, on success.  */
bm3d_status bm3d_estimate_profile_cpu (const bm3d_image *in, bm3d_job *job,
                                       bm3d_noise_profile *profile);

/* noise_profile_cuda.cu (core/cuda_none.c: BM3D_ERR_BACKEND_UNAVAILABLE):
 * the residual autocovariance (lags dy 0..7, dx -7..7) of every block
 * and plane, residual [block][plane][32 * 32] into autocov
 * [plane][block][120], the host's values bit for bit.  */
bm3d_status bm3d_cuda_block_autocov (const float *residual, int blocks,
                                     int channels, double *autocov,
                                     bm3d_job *job);
/* The same with the residuals written straight to pinned memory, which
 * the device reads at the bus's pace (a pageable copy of 2048 blocks'
 * residuals took 4 ms of the estimate at 12 MP).
 * bm3d_cuda_autocov_open () holds the job's device and returns where
 * the residuals go (its bounce area), or NULL, holding nothing, when it
 * cannot; bm3d_cuda_autocov_close () measures the tables from them and
 * gives the device back, having copied the residuals to `fallback` if
 * it failed, for the host to measure.  */
float      *bm3d_cuda_autocov_open  (bm3d_job *job, int blocks,
                                     int channels);
bm3d_status bm3d_cuda_autocov_close (bm3d_job *job, int blocks,
                                     int channels, double *autocov,
                                     float *fallback);

/* qsort's ascending order of doubles (noise_profile_estimate.c).  */
int  bm3d_compare_double   (const void *a, const void *b);

/* ---- noise level functions: noise_vst.c -------------------------------- */

void bm3d_truncated_normal (double p, double *ratio, double *shift);
/* Solve the 3x3 system m x = r (Cramer's rule); 0 when singular.  */
int  bm3d_solve3           (double m[3][3], const double *r, double *x);
int  bm3d_nlf_estimate     (const bm3d_image *in, int threads,
                            float nlf[BM3D_NOISE_PLANES][BM3D_NLF_BINS]);
int  bm3d_nlf_present      (const bm3d_noise_profile *profile);
bm3d_image *bm3d_stabilised (const bm3d_image *in, const bm3d_vst_table *fwd,
                             bm3d_job *job);
void bm3d_stabilised_free  (bm3d_image *img, bm3d_job *job);

/* ---- clipped noise: clipped_noise.c ---------------------------------- */
/* Maps the colour channels of `img` (a denoised result of values that
 * had been clipped to 0..255 with noise sigma) through the inverse of
 * the clipped mean.  */
void        bm3d_unclip       (bm3d_image *img, float sigma, int threads);

/* The inverse of the clipped mean for one sigma, tabulated (2048 even
 * steps of the result between g (0) and g (255), read with linear
 * interpolation), as bm3d_unclip applies it: a device applies the same
 * table to its own results.  */
#define BM3D_UNCLIP_STEPS 2048
typedef struct bm3d_unclip_table
{
  float lo, hi;           /* g (0), g (255): the table's span          */
  float pass_lo, pass_hi; /* results left as they are (g (u) = u there) */
  float per_step;         /* table steps per unit of result            */
  float u[BM3D_UNCLIP_STEPS + 1];
} bm3d_unclip_table;

void        bm3d_unclip_table_init (bm3d_unclip_table *t, float sigma);

/* What clipping does to the noise of values whose clipped mean is
 * `mean`: the share of its variance left (returned: 1 well inside
 * 0..255, 0.34 where the mean before clipping is 0 or 255) and, into
 * `clipped`, the share of values it puts at 0 or 255; tabulated for one
 * sigma on even steps of the clipped mean, read with linear
 * interpolation (clipped_noise.c).  */
#define BM3D_CLIP_SQUEEZE_STEPS 256
typedef struct bm3d_clip_squeeze_table
{
  float lo;               /* g (0): the first step's clipped mean      */
  float per_step;         /* table steps per unit of clipped mean      */
  float variance[BM3D_CLIP_SQUEEZE_STEPS + 1];
  float clipped[BM3D_CLIP_SQUEEZE_STEPS + 1];
} bm3d_clip_squeeze_table;

void  bm3d_clip_squeeze_init (bm3d_clip_squeeze_table *t, float sigma);
float bm3d_clip_squeeze      (const bm3d_clip_squeeze_table *t, float mean,
                              float *clipped);

#ifdef __cplusplus
}
#endif

#endif /* BM3D_NOISE_H */
