/* The engine's inside: the algorithms the dispatcher (engine.c) knows
 * (algorithms.c), each a pair of backends with the same steps, the
 * tiler they share (tiler.c) and the checks of a call (check.c).  The
 * noise model's exports are noise/noise.h.  Not installed; the plug-in
 * and the command use bm3d.h alone.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef BM3D_ENGINE_H
#define BM3D_ENGINE_H

#include "bm3d.h"
#include "bm3d/bm3d_tables.h"
#include "job.h"
#include "noise/noise.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A whole image at once on a device: the backend does the tiling and
 * the colour transform itself, and writes `out` only when every tile is
 * done.  Returns BM3D_ERR_NOT_IMPLEMENTED (nothing done, no message)
 * when it cannot take this image (too small, or its output does not fit
 * the device budget); the dispatcher then tiles on the host.  */
typedef bm3d_status (*bm3d_image_func) (const bm3d_image *in,
                                        bm3d_image       *out,
                                        bm3d_job         *job);

/* One algorithm: how it wants its input, and its two backends, as
 * darktable's modules declare their tiling needs beside process () and
 * process_cl ().  */
struct bm3d_algorithm
{
  bm3d_mode          mode;
  bm3d_colour_space  colour_space;
  /* The result is a weighted mean of the noisy values themselves, so it
   * keeps the bias of clipped noise whole: with params->clipped the
   * dispatcher maps it through bm3d_unclip (), after either backend.  */
  int                unclips;

  /* Resolve job->(profile | nlm | isoline) from sigma and the expert
   * options, refuse options out of range (message set), and set
   * job->margin and job->align.  */
  bm3d_status      (*setup)          (bm3d_job *job);

  bm3d_tile_func     cpu_tile;
  int              (*cpu_tile_side)  (const bm3d_job *job);
  /* Several tiles in one pool of threads, and how many for the job
   * (output identical to one at a time), or NULL.  */
  bm3d_tiles_func    cpu_tiles;
  int              (*cpu_tiles_in_flight) (const bm3d_job *job);
  bm3d_tile_func     cuda_tile;       /* NULL in a build without CUDA   */
  int              (*cuda_tile_side) (const bm3d_job *job);
  bm3d_image_func    cuda_image;      /* NULL in a build without CUDA   */
};

/* tiler.c: run `func` over the image tile by tile (colour transform, overlap,
 * mirroring of images smaller than a patch), writing `out` only when
 * every tile succeeded.  With `tiles` (else NULL), `in_flight` tiles
 * at a time go to it instead.  */
bm3d_status bm3d_run_tiled (const bm3d_image *in, bm3d_image *out,
                            bm3d_job *job, bm3d_tile_func func,
                            bm3d_tiles_func tiles, int in_flight,
                            int tile_side);

/* ---- BM3D / CBM3D: bm3d_cpu.c, bm3d_cuda.cu ------------------------- */
bm3d_status bm3d_cpu_tile       (const bm3d_planes *noisy, bm3d_planes *out,
                                 bm3d_job *job);
int         bm3d_cpu_tile_side  (const bm3d_job *job);
bm3d_status bm3d_cpu_tiles      (const bm3d_planes *noisy, bm3d_planes *out,
                                 int n, bm3d_job *job);
int         bm3d_cpu_tiles_in_flight (const bm3d_job *job);
bm3d_status bm3d_cuda_tile      (const bm3d_planes *noisy, bm3d_planes *out,
                                 bm3d_job *job);
int         bm3d_cuda_tile_side (const bm3d_job *job);
bm3d_status bm3d_cuda_image     (const bm3d_image *in, bm3d_image *out,
                                 bm3d_job *job);

/* BM3D's overlap at the standard search window: the search radius plus
 * a patch for each phase, so matching near a tile edge sees as much as
 * anywhere else; a multiple of the reference step keeps the reference
 * grid aligned across tiles.  Wider windows widen it (algorithms.c).  */
#define BM3D_TILE_MARGIN 48

/* ---- non-local means: nlm_cpu.c, nlm_cuda.cu ------------------------ */
bm3d_status bm3d_nlm_cpu_tile       (const bm3d_planes *noisy,
                                     bm3d_planes *out, bm3d_job *job);
int         bm3d_nlm_cpu_tile_side  (const bm3d_job *job);
bm3d_status bm3d_nlm_cuda_tile      (const bm3d_planes *noisy,
                                     bm3d_planes *out, bm3d_job *job);
int         bm3d_nlm_cuda_tile_side (const bm3d_job *job);
bm3d_status bm3d_nlm_cuda_image      (const bm3d_image *in, bm3d_image *out,
                                     bm3d_job *job);

/* ---- isoline filter: isoline_cpu.c, isoline_cuda.cu ----------------- */
bm3d_status bm3d_isoline_cpu_tile       (const bm3d_planes *noisy,
                                         bm3d_planes *out, bm3d_job *job);
int         bm3d_isoline_cpu_tile_side  (const bm3d_job *job);
bm3d_status bm3d_isoline_cuda_tile      (const bm3d_planes *noisy,
                                         bm3d_planes *out, bm3d_job *job);
int         bm3d_isoline_cuda_tile_side (const bm3d_job *job);
bm3d_status bm3d_isoline_cuda_image     (const bm3d_image *in,
                                         bm3d_image *out, bm3d_job *job);

/* ---- the backends' runs of one image: devices.c ---------------------- */
/* The CPU backend: the tiler over the algorithm's CPU tiles.  */
bm3d_status bm3d_run_cpu  (const bm3d_image *in, bm3d_image *out,
                           bm3d_job *job);
/* The CUDA backend: the whole image on device params->device (tiled on
 * the host when the device does not take it whole), or, with several
 * devices given and an image large enough, in bands over them, a
 * failed device's band redone on another one or, under "auto", on the
 * CPU.  With integer pixels (job->pixels_in) BM3D_ERR_NOT_IMPLEMENTED
 * when a device does not take them.  */
bm3d_status bm3d_run_cuda (const bm3d_image *in, bm3d_image *out,
                           bm3d_job *job);
/* Whether every device of params->devices exists; when not, writes
 * the reason.  */
int         bm3d_job_devices_exist (const bm3d_job *job, char *why,
                                    size_t why_len);

/* ---- the checks of a call: check.c ---------------------------------- */
/* BM3D_OK when `img` can be read (size, stride, channels), else a
 * one-line message in job's report naming it `what`.  */
bm3d_status bm3d_check_image  (const bm3d_image *img, const char *what,
                               bm3d_job *job);
/* The noise model: sigma for white noise; for a profile, one that fits
 * the image's colour channels (`colour`, 0 when not known yet) and
 * strengths in range.  */
bm3d_status bm3d_check_noise  (const bm3d_params *params, int colour,
                               bm3d_job *job);
/* bm3d_denoise ()'s arguments: both images, their match, the noise
 * model, the mode, the backend, the device and the threads.  */
bm3d_status bm3d_check_call   (const bm3d_image *in, const bm3d_image *out,
                               const bm3d_params *params, bm3d_job *job);

/* ---- the algorithm table: algorithms.c ------------------------------- */
/* The algorithm of `mode` (checked by the caller).  */
const bm3d_algorithm *bm3d_algorithm_for_mode (bm3d_mode mode);

/* ---- integer pixels: pixels.c ---------------------------------------- */
/* A packed float copy of `px`'s values, converted on `threads` threads
 * by the rules of pixels.h; data NULL when out of memory.  */
bm3d_image  bm3d_pixels_float_copy (const bm3d_pixels *px, int threads);

/* ---- the dispatcher: engine.c ---------------------------------------- */
/* bm3d_denoise () for integer pixels (pixels.c) on the CUDA backend,
 * converted on the device: BM3D_ERR_NOT_IMPLEMENTED (nothing done) when
 * the call cannot go that way (CPU backend, no usable device), then the
 * caller converts on the host.  Camera mode measures its noise on a
 * float copy on the host, freed before the filter.  Other errors are
 * bm3d_denoise ()'s, as from its CUDA backend before any fall-back.  */
bm3d_status bm3d_denoise_on_device (const bm3d_pixels *in, bm3d_pixels *out,
                                    const bm3d_params *params,
                                    bm3d_report *report);

/* CUDA faults that the CPU can recover from under backend "auto"
 * (bm3d_denoise () and bm3d_denoise_pixels () redo the call there).  */
int         bm3d_cuda_error_recoverable (bm3d_status status);

/* cuda_device.cu (cuda_none.c: nothing to do, 0 s): start device
 * `device`, then the `n_others` at `others` (BM3D_ALL_DEVICES: every
 * device) one after the other, on a detached thread, once a process;
 * and wait until one is started (by that thread or by this call),
 * returning the seconds waited.  */
void        bm3d_cuda_warm_up    (int device, const int *others,
                                  int n_others);
double      bm3d_cuda_wait_ready (int device);

/* engine.c: unless the job runs on the CPU, wait for its device to
 * start, adding the wait to job->report->seconds_startup.  */
void        bm3d_job_wait_for_device (bm3d_job *job);

#ifdef __cplusplus
}
#endif

#endif /* BM3D_ENGINE_H */
