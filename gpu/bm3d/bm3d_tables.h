/* Tables shared by the CPU and CUDA backends: parameter profiles by
 * sigma, the 2D and 1D transforms, the aggregation window and the colour
 * transform.  Both backends build their constants from these functions,
 * so the two paths cannot drift apart.  Plain C, no GIMP, no CUDA.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef BM3D_TABLES_H
#define BM3D_TABLES_H

#ifdef __cplusplus
extern "C" {
#endif

/* Patch side: fixed, so transforms unroll and a patch is 64 floats.  */
#define BM3D_PATCH       8
#define BM3D_PATCH_AREA  (BM3D_PATCH * BM3D_PATCH)
/* Largest group (patches per 3D group) of any phase.  */
#define BM3D_GROUP_MAX   32
/* Colour images are filtered as 3 decorrelated channels.  */
#define BM3D_MAX_CHANNELS 3

typedef enum
{
  BM3D_TRANSFORM_DCT = 0,     /* orthonormal DCT-II                        */
  BM3D_TRANSFORM_BIOR15 = 1   /* biorthogonal 1.5 wavelet, rows unit norm  */
} bm3d_transform_kind;

/* One phase's parameters (names from Honzátko & Kruliš 2017).  */
typedef struct
{
  int                  step;         /* p: reference patch spacing          */
  int                  search;       /* n: search window side (odd)         */
  int                  group_max;    /* N: most patches in a group (2^k)    */
  float                tau_match;    /* tau: max ||P-Q||^2 / k^2 (0..255)   */
  float                lambda_3d;    /* hard threshold, multiples of sigma  */
  bm3d_transform_kind  transform_2d;
  float                kaiser_beta;  /* aggregation window                  */
} bm3d_phase_profile;

typedef struct
{
  bm3d_phase_profile hard;    /* phase 1: hard thresholding  */
  bm3d_phase_profile wiener;  /* phase 2: empirical Wiener   */
} bm3d_profile;

/* The parameters for a noise level (the published changes above
 * sigma 40 included).  */
void bm3d_profile_for_sigma (float sigma, bm3d_profile *profile);

/* Non-local means (Buades, Coll & Morel, IPOL 2011): patches of side
 * 2 f + 1 compared over a search window of side 2 r + 1, weights
 * exp (-max (d^2 - 2 sigma^2, 0) / h^2) with d^2 the mean squared
 * difference per value (channels averaged).  */
typedef struct
{
  int    patch_radius;    /* f                                         */
  int    search_radius;   /* r                                         */
  float  h;               /* 0..255 scale                              */
  int    gaussian;        /* Gaussian-weighted patch distance          */
} bm3d_nlm_profile;

/* The published table for `sigma`: grayscale and colour (channels 3)
 * differ.  */
void bm3d_nlm_profile_for_sigma (float sigma, int channels,
                                 bm3d_nlm_profile *profile);

/* Largest patch and search radii the options allow (sides 15 and 71).  */
#define BM3D_NLM_PATCH_RADIUS_MAX   7
#define BM3D_NLM_SEARCH_RADIUS_MAX  35

/* Weights are carried scaled by 2^-83: identical patches weigh 2^-83,
 * and 2^-126, the smallest normal float, is the least weight kept
 * (exp (-29.8) before the scaling; see below).  */
#define BM3D_NLM_WEIGHT_TOP   (-83.0f)
#define BM3D_NLM_WEIGHT_LOW   (-126.0f)

/* What both backends turn a patch distance into a weight with.  With
 * s = sum over the patch of taps[i] * taps[j] * (squared differences
 * summed over the channels), d^2 = s / (channels * (sum of taps)^2) and
 * the weight
 *
 *   exp (-max (d^2 - 2 sigma^2, 0) / h^2) = 2^min (slope * s + offset, 0)
 *
 * and 0 where that is below 2^-43 (exp (-29.8)), as the article's
 * program tabulates exp (-x) only up to x = 30.  Both backends compute
 * 2^-83 times that, 2^min (slope * s + offset - 83, -83): the scale
 * cancels in the normalised weights, and it puts the cutoff at the
 * smallest normal float, where the GPU's exponential flushes its
 * result to zero at no cost (offset includes the -83).  The cutoff
 * matters where a patch resembles nothing in its window (an edge or a
 * detail at low noise, 3 x 3 patches): every weight is then far below
 * 1, and only a true zero lets the patch keep its own values; a floor
 * instead (any small constant) would weigh the whole window alike and
 * blur the detail away.
 *
 * The taps are 1 for the plain patch mean and a sampled Gaussian
 * (standard deviation (f + 1) / 2) for the Gaussian-weighted distance.
 * A pixel's result is the mean of the (2f + 1)^2 patch estimates that
 * cover it: their sum times inv_patches.  */
typedef struct
{
  int    radius;                                /* f                   */
  int    gaussian;
  float  taps[2 * BM3D_NLM_PATCH_RADIUS_MAX + 1];
  float  slope;
  float  offset;
  float  inv_patches;
} bm3d_nlm_weights;

void bm3d_nlm_weights_init (const bm3d_nlm_profile *profile, float sigma,
                            int channels, bm3d_nlm_weights *weights);

/* The isoline filter (Perrot, Domas, Couturier & Bertaux, "Fast
 * GPU-based denoising filter using isoline levels").  An isoline is a
 * poly-line of segments of l pixels in one of D directions; the
 * segment patterns P_l, the regions of the hybrid's edge detector and
 * the constants of the tests are built here once and used as they are
 * by both backends (isoline_core.h has the per-pixel arithmetic).  */
#define BM3D_ISOLINE_DIRECTIONS   32
#define BM3D_ISOLINE_SEGMENT_MAX  16  /* l                                */
#define BM3D_ISOLINE_LENGTH_MAX   64  /* n                                */
#define BM3D_ISOLINE_ACROSS       3   /* pixels across a thickened line   */
/* The hybrid's regions around a pixel: two square windows (radius 3
 * and 5), and the two halves of the radius-2 and radius-3 windows cut
 * by a line through the pixel in each of four orientations (0, 45, 90
 * and 135 degrees).  */
#define BM3D_ISOLINE_ORIENTATIONS 4
#define BM3D_ISOLINE_HALVES       (2 * BM3D_ISOLINE_ORIENTATIONS)
#define BM3D_ISOLINE_REGIONS      (2 + 2 * BM3D_ISOLINE_HALVES)
#define BM3D_ISOLINE_WINDOW       5   /* radius of the larger window      */
#define BM3D_ISOLINE_RESIDUAL     4   /* radius of the residual's window  */

typedef struct
{
  int    variant;         /* bm3d_isoline_variant                      */
  int    segment;         /* l: pixels a segment adds                  */
  int    length_max;      /* n: most segment pixels on an isoline      */
  float  t_max;           /* lengthening GLRT threshold, sigma^2 units */
  float  t2_max;          /* hybrid: edge-test scale, sigma^2 units    */
  int    thicken;         /* segments three pixels wide                */
  int    turn_max;        /* most direction steps between segments     */
} bm3d_isoline_profile;

/* The paper's values (n 25, l 5, T_max 1, T2_max 2): the tests are
 * written in units of the noise variance, so the same values hold at
 * every sigma (see bm3d_tables.c).  */
void bm3d_isoline_profile_for_sigma (float sigma,
                                     bm3d_isoline_profile *profile);

/* Everything the isoline filter's kernels read, for one noise level:
 * copied as it is to constant memory on the GPU.  Offsets are (dx, dy)
 * pairs, y down.  */
typedef struct
{
  int          segment;       /* l                                        */
  int          segments_max;  /* n / l: segments on an isoline            */
  int          across;        /* 1, or BM3D_ISOLINE_ACROSS when thickened */
  int          turn_max;
  int          hybrid;        /* variant is BM3D_ISOLINE_HYBRID           */
  /* P_l: pixel k (1..l) of direction d's segment from its origin, with
   * its neighbours across the line when thickened (index 0 is the line
   * itself); pixel l is also the next segment's origin.  */
  signed char  pattern[BM3D_ISOLINE_DIRECTIONS][BM3D_ISOLINE_SEGMENT_MAX]
                      [BM3D_ISOLINE_ACROSS][2];
  /* The hybrid's regions, summed in this order: the radius-3 window in
   * raster order, then the rest of the radius-5 window; for each half
   * (orientation o side s at index 2 o + s), its radius-2 pixels, then
   * the rest of its radius-3 pixels.  */
  signed char  window_px[(2 * BM3D_ISOLINE_WINDOW + 1)
                         * (2 * BM3D_ISOLINE_WINDOW + 1)][2];
  signed char  half_px[BM3D_ISOLINE_HALVES][21][2];
  int          region_count[BM3D_ISOLINE_REGIONS];  /* 49, 121, 10.., 21.. */
  /* 1 / m for every pixel count m the filter divides by.  */
  float        inv_count[BM3D_ISOLINE_LENGTH_MAX * BM3D_ISOLINE_ACROSS
                         + 130];
  float        glrt_limit;    /* T_max sigma^2                            */
  float        first_limit;   /* 9 sigma^2: the first segment's test      */
  float        guide_noise;   /* sigma^2 / 9: the guide's noise variance  */
  float        edge_scale;    /* 1 / (4 T2_max sigma^2)                   */
  float        chroma_scale;  /* edge_scale of the planes that follow     */
  /* Noise power the residual must exceed, on each plane.  */
  float        residual_floor[BM3D_MAX_CHANNELS];
} bm3d_isoline_tables;

/* Build the tables for `profile`, for tiles of `planes` planes (1 or
 * 3) of noise deviations sigma[] (plane 0 leads).  */
void bm3d_isoline_tables_init (const bm3d_isoline_profile *profile,
                               const float *sigma, int planes,
                               bm3d_isoline_tables *tables);

/* How far from a pixel the filter reads before its residual step: the
 * padding a tile's planes need.  */
int  bm3d_isoline_reach (const bm3d_isoline_profile *profile);

/* Separable 2D transform: coef = F * X * F^T, X = I * coef * I^T, with
 * F = fwd and I = inv (row-major, [row][col]).  Every row of fwd has unit
 * norm, so white noise of deviation s gives coefficients of deviation s.  */
typedef struct
{
  float fwd[BM3D_PATCH][BM3D_PATCH];
  float inv[BM3D_PATCH][BM3D_PATCH];
} bm3d_transform_2d;

void bm3d_transform_2d_init (bm3d_transform_kind kind, bm3d_transform_2d *t);

/* Orthonormal Walsh-Hadamard transform (its own inverse) of n values
 * v[0], v[stride], ...; n is a power of two, 1..BM3D_GROUP_MAX.  */
void bm3d_wht (float *v, int n, int stride);

/* Orthonormal Haar transform across a group (Dabov et al.'s choice for
 * the third dimension): n values v[0], v[stride], ... (n a power of two,
 * 1..BM3D_GROUP_MAX) become, level after level, pairwise sums and
 * differences scaled by 1/sqrt 2:
 *   a[i] = (x[2i] + x[2i+1]) / sqrt 2,  d[i] = (x[2i] - x[2i+1]) / sqrt 2,
 * with a in the first half and d in the second, then the first half is
 * transformed again, down to one value.  The group is sorted by
 * similarity, so the finest differences pair the closest patches.  */
void bm3d_haar         (float *v, int n, int stride);
void bm3d_haar_inverse (float *v, int n, int stride);

/* Aggregation window: the outer product of two Kaiser windows, the
 * one-dimensional window of side BM3D_PATCH.  */
void bm3d_kaiser_1d     (float beta, double window[BM3D_PATCH]);
void bm3d_kaiser_window (float beta, float window[BM3D_PATCH][BM3D_PATCH]);

/* Colour transform to luminance + two chrominance channels.  Rows are
 * applied to (R, G, B); channel 0 is the luminance block matching uses.
 * bm3d_colour_noise_gain[c] is the norm of row c: the noise deviation of
 * channel c is sigma times it.  */
extern const float bm3d_colour_fwd[3][3];
extern const float bm3d_colour_inv[3][3];
extern const float bm3d_colour_noise_gain[3];

/* Largest power of two <= n (n >= 1).  */
static inline int
bm3d_pow2_floor (int n)
{
  int p = 1;
  while (p * 2 <= n)
    p *= 2;
  return p;
}

#ifdef __cplusplus
}
#endif

#endif /* BM3D_TABLES_H */
