/* What every backend of every algorithm is handed, and the helpers they
 * share: messages, peak-tracking allocation, progress, the clock and the
 * tile plan.  The dispatcher (engine.c) fills a job; backends and the
 * noise model only read it and call these helpers, so the arrows run
 * one way: dispatcher -> backends and noise model -> job and tables.
 * Not installed.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef BM3D_JOB_H
#define BM3D_JOB_H

#include "bm3d.h"
#include "bm3d/bm3d_tables.h"
#include "env.h"
#include "noise/noise_vst.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A tile in planar form: for colour, either luminance and two
 * chrominance planes (BM3D_COLOUR_OPPONENT) or R, G, B
 * (BM3D_COLOUR_RGB), as the algorithm asked.  Each plane is width *
 * height floats, row after row, no padding.  Tiles are at least
 * BM3D_PATCH wide and high: the tiler mirrors smaller images.  */
typedef struct
{
  int     width;
  int     height;
  int     channels;                    /* 1 or 3                          */
  float  *plane[BM3D_MAX_CHANNELS];
  float   sigma[BM3D_MAX_CHANNELS];    /* noise deviation of each plane   */
} bm3d_planes;

/* How colour reaches an algorithm's backends.  */
typedef enum
{
  BM3D_COLOUR_OPPONENT = 0,   /* bm3d_colour_fwd: luminance first        */
  BM3D_COLOUR_RGB = 1         /* the channels as they are                */
} bm3d_colour_space;

typedef struct bm3d_algorithm bm3d_algorithm;
typedef struct bm3d_job bm3d_job;

struct bm3d_job
{
  const bm3d_params    *params;
  bm3d_report          *report;     /* never NULL inside the engine       */
  const bm3d_algorithm *algorithm;
  int                   channels;   /* planes per tile: 1 gray, 3 colour  */
  int                   threads;    /* resolved: >= 1                     */
  bm3d_colour_space     colour_space;
  float                 sigma[BM3D_MAX_CHANNELS];  /* of each plane       */
  /* The white-noise sigma the parameters follow: params->sigma, or
   * with a noise profile its sigma_white times the strength.  */
  float                 white_sigma;

  /* Tiling, set by the algorithm's setup: pixels read around a tile's
   * core so that the core comes out as in one piece, and the multiple
   * that tile sides keep (a reference grid stays aligned).  */
  int                   margin;
  int                   align;
  /* The rows of the call's `out` it writes, [rows_y0, rows_y1): a
   * band's core when one image is split over several devices
   * (devices.c), the rows around it being context only.  Both 0: every
   * row.  The tile plan (bm3d_job_tile_rect) then starts at rows_y0.  */
  int                   rows_y0;
  int                   rows_y1;

  /* The algorithm's resolved parameters.  */
  bm3d_profile          bm3d_settings;  /* BM3D's, for the job's sigma    */
  int                   phases;     /* BM3D: 1 hard threshold only, 2 both */
  bm3d_nlm_profile      nlm;
  bm3d_isoline_profile  isoline;

  /* BM3D with a noise profile (params->noise), whose noise differs
   * from one 2D coefficient to another: non-zero, and the per-plane
   * variances of each 2D coefficient of the hard phase's and the
   * Wiener phase's transforms (bm3d_noise_profile's, the strengths
   * applied; index u * 8 + v), which both backends read as they are.
   * 0 for white noise, whose deviations are sigma[].  */
  int                   per_coefficient_noise;
  /* The profile's levels are multiplied by this (the strengths apart):
   * for a photograph's processed noise (processed_noise non-zero) what
   * takes them to the level photo_noise.c's processed_sigma () gives,
   * else 1.  */
  float                 photo_gain;
  int                   processed_noise;
  /* Processed noise's luminance: each coefficient's variance at least
   * this share of the largest (photo_noise.c's PROCESSED_FLOOR, as
   * much as the processing took); 0 for any other noise.  */
  float                 processed_floor;
  float                 var_hard[BM3D_MAX_CHANNELS][BM3D_PATCH_AREA];
  float                 var_wiener[BM3D_MAX_CHANNELS][BM3D_PATCH_AREA];
  /* The profile a profile job uses, its derived values filled: a copy
   * of params->profile, or the one estimated from the input.  */
  bm3d_noise_profile    noise_profile;

  /* bm3d_denoise_pixels with integer pixels on a device: the caller's
   * pixels, which the device converts to floats and back itself (the
   * float images the backend is handed then only give the shape), and
   * with params->clipped, the unclip table the device applies before
   * rounding.  NULL otherwise.  */
  const bm3d_pixels    *pixels_in;
  bm3d_pixels          *pixels_out;
  const struct bm3d_unclip_table *unclip;

  /* Camera mode with a level function (noise_vst.h): the stabilising
   * transform, which the backends apply around their filter (the CPU
   * on a stabilised copy, CUDA on the device, tile by tile); NULL
   * otherwise.  While the noise is measured, the estimators read the
   * input through read_through's forward tables, as if from the
   * stabilised image; NULL: as it is.  */
  const bm3d_vst       *vst;
  const bm3d_vst_table *read_through;

  /* The CUDA device a call holds (cuda_device.cu), else NULL.  */
  void                 *cuda;

  /* Progress inside the current tile, 0..1.  Returns non-zero when the
   * user cancelled; the backend then stops and returns
   * BM3D_ERR_CANCELLED.  Call it from the calling thread only.  */
  int                 (*tick) (bm3d_job *job, double tile_fraction);

  /* The environment's switches, read as the call started (env.h).
   * With env.cpu_trace (BM3D_CPU_TRACE) the stages' and the bands'
   * times go to stderr (bench/cpu-scaling.sh reads them).  */
  bm3d_env              env;

  /* Private to the dispatcher and these helpers.  */
  double                tile_base;
  double                tile_share;
  size_t                host_bytes_now;
};

/* Zero `job` and tie it to `params` and `report`.  */
void   bm3d_job_init (bm3d_job *job, const bm3d_params *params,
                      bm3d_report *report);

/* The noise profile a profile job uses (job->noise_profile): a checked
 * copy of params->profile, or the one estimated from the input.  */
const bm3d_noise_profile *bm3d_job_noise_profile (const bm3d_job *job);

/* Write a one-line message into job->report->message (printf style).  */
void   bm3d_job_message (bm3d_job *job, const char *format, ...)
  __attribute__ ((format (printf, 2, 3)));

/* One "trace ..." line on stderr when job->env.cpu_trace is set (printf
 * style): measurements for the benchmarks, never for users.  */
void   bm3d_job_trace (const bm3d_job *job, const char *format, ...)
  __attribute__ ((format (printf, 2, 3)));

/* Record an allocation high-water mark (bytes now held by the engine).  */
void   bm3d_job_note_host_bytes (bm3d_job *job, size_t bytes);

/* Peak-tracking allocation for backends (64-byte aligned): counts
 * toward report->peak_host_bytes.  */
void  *bm3d_alloc (bm3d_job *job, size_t bytes);
void   bm3d_free  (bm3d_job *job, void *ptr, size_t bytes);

double bm3d_seconds (void);   /* monotonic clock */

/* The threads a call with params->threads 0 runs on: every core.  */
int    bm3d_default_threads (void);
/* The threads a call of `params` runs on.  */
int    bm3d_params_threads  (const bm3d_params *params);

/* Denoise one tile: `noisy` in, `out` (same geometry, allocated by the
 * caller) out.  Returns BM3D_OK or an error with the message set.  */
typedef bm3d_status (*bm3d_tile_func) (const bm3d_planes *noisy,
                                       bm3d_planes       *out,
                                       bm3d_job          *job);

/* Denoise `n` tiles at once, noisy[i] into out[i] (each as for
 * bm3d_tile_func), their work in one pool of threads.  */
typedef bm3d_status (*bm3d_tiles_func) (const bm3d_planes *noisy,
                                        bm3d_planes       *out,
                                        int                n,
                                        bm3d_job          *job);

/* The most tiles a bm3d_tiles_func takes.  */
#define BM3D_TILES_IN_FLIGHT_MAX 4

/* One tile of the plan every tiled path shares: the read rectangle
 * (core plus `margin`, clipped to the image, widened to a patch only
 * for images smaller than one) and the core written back.  */
typedef struct
{
  int x0, y0, x1, y1;
  int cx0, cy0, cx1, cy1;
} bm3d_tile_rect;

void   bm3d_tile_rect_for (int width, int height, int side, int margin,
                           int ix, int iy, bm3d_tile_rect *t);

/* The rows a job writes in an image `height` rows high (job->rows_y0,
 * _y1, or all of them): [*y0, *y1).  */
void   bm3d_job_rows (const bm3d_job *job, int height, int *y0, int *y1);

/* The tile plan of `job` over a width x height image: tiles of `side`
 * over the rows it writes, `*tiles_x` across and `*tiles_y` down; and
 * tile (ix, iy) of it, whose read rectangle takes the margin from the
 * rows around them too.  Without a window, bm3d_tile_rect_for's.  */
void   bm3d_job_tile_grid (const bm3d_job *job, int width, int height,
                           int side, int *tiles_x, int *tiles_y);
void   bm3d_job_tile_rect (const bm3d_job *job, int width, int height,
                           int side, int ix, int iy, bm3d_tile_rect *t);

/* A tile core side for `job`: `side` rounded down to job->align, and
 * at least three patches.  */
int    bm3d_tile_side_aligned (const bm3d_job *job, int side);

/* The matrix taking pixels to planes (forward) and back (inverse) for
 * the job's colour space: the opponent transform or the identity.  */
const float (*bm3d_job_colour_fwd (const bm3d_job *job))[3];
const float (*bm3d_job_colour_inv (const bm3d_job *job))[3];

#ifdef __cplusplus
}
#endif

#endif /* BM3D_JOB_H */
