/* What every CUDA backend shares: the state of each device (stream,
 * events, a reusable workspace), the lock a call holds on it, the memory
 * budget, and the colour transform between interleaved pixels and
 * planes.  The algorithms' .cu files hold only their own kernels and
 * orchestration.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef BM3D_CUDA_DEVICE_CUH
#define BM3D_CUDA_DEVICE_CUH

#include <cuda_runtime.h>
#include <pthread.h>

#include "engine.h"
#include "cuda_check.cuh"

/* Devices a process may use at once.  */
#define BM3D_CUDA_MAX_DEVICES 16

/* Device memory a backend may hold beyond the CUDA context.  */
#define BM3D_CUDA_DEVICE_BUDGET ((size_t) 512 << 20)

/* Each of the four pinned bounce buffers of a device (dev->bounce).  */
#define BM3D_CUDA_BOUNCE_BYTES ((size_t) 8 << 20)
#define BM3D_CUDA_BOUNCE_AREA  (4 * BM3D_CUDA_BOUNCE_BYTES)

typedef struct
{
  pthread_mutex_t  lock;            /* held for a whole engine call      */
  int              state;           /* 0 unknown, -1 unusable, 1 usable  */
  char             why[200];
  char             name[256];
  int              ordinal;
  int              sm_count;
  int              smem_optin;      /* shared bytes a block may opt into */
  cudaStream_t     stream;
  cudaEvent_t      ev[4];           /* phase timing                      */
  cudaEvent_t      batch_done[2];   /* double-buffered progress          */
  void            *workspace;       /* kept between calls                */
  size_t           workspace_bytes;
  /* Pinned host memory the copies of unpinned images bounce through
   * (cuda_tiled_image.cu), 4 x BM3D_CUDA_BOUNCE_BYTES, kept between
   * calls once made; NULL until then.  */
  void            *bounce;
  int              bm3d_tables_for; /* key of BM3D's constant tables     */
} bm3d_cuda_device;

/* Take device params->device for the whole call: probe it on first use,
 * lock it, make it current on this thread, and set job->cuda.  On
 * failure nothing is held and the message says why.  */
bm3d_status bm3d_cuda_enter (bm3d_job *job, bm3d_cuda_device **dev);

/* Give it back: after a failure, leave the stream idle and the error
 * state clear for the next call.  Returns `status`.  */
bm3d_status bm3d_cuda_leave (bm3d_job *job, bm3d_status status);

/* Called as each tile of a whole image begins on the call's device
 * (cuda_tiled_image.cu): BM3D_OK, or, under the test switch
 * BM3D_TEST_FAIL_DEVICE=N:K once device N has begun K tiles in this
 * process, the failure of a device that faults (bm3d_cuda_fail: the
 * device is unusable from then on).  */
bm3d_status bm3d_cuda_tile_begins (bm3d_job *job);

static inline bm3d_cuda_device *
bm3d_cuda_device_of (const bm3d_job *job)
{
  return (bm3d_cuda_device *) job->cuda;
}

/* The device's pinned bounce area (dev->bounce, BM3D_CUDA_BOUNCE_AREA
 * bytes), made on first use and kept between calls: the tiles' copies
 * bounce through it (cuda_tiled_image.cu), the noise profile's
 * residuals are written to it (noise_profile_cuda.cu).  NULL under
 * BM3D_CUDA_BOUNCE=0 or when no pinned memory can be had.  Only between
 * bm3d_cuda_enter () and bm3d_cuda_leave (): one user at a time.  */
void       *bm3d_cuda_bounce_area (bm3d_job *job);

/* Bytes the backend may hold now: the budget, or 80 % of what is free
 * (counting what it already holds) when that is less.  Call with the
 * device held.  */
size_t      bm3d_cuda_budget (bm3d_cuda_device *dev);

/* Hold at least `bytes` in dev->workspace (re-allocated only when short
 * or far too large) and count it in the report's device peak.  */
bm3d_status bm3d_cuda_reserve (bm3d_job *job, size_t bytes);

/* The budget of device params->device for sizing tiles, without holding
 * it; the plain budget when it cannot be asked.  */
size_t      bm3d_cuda_budget_for (const bm3d_job *job);

/* ---- colour transform between pixels and planes --------------------- */

/* Interleaved pixels of `type` (`channels` values each, alpha last) of
 * a `count`-pixel tile to `colour` float planes through the job's
 * forward matrix, converted (pixels.h) and rounded as the host's
 * conversion and transform round.  */
bm3d_status bm3d_cuda_colour_forward (bm3d_job *job, const void *src,
                                      bm3d_pixel_type type, int channels,
                                      int colour, float *const *plane,
                                      size_t count);

/* The core of a tile back into the whole image `dst` (interleaved,
 * `width` pixels a row, values of `type`) through the inverse matrix;
 * integer types are unclipped first when the job has a table
 * (job->unclip), then rounded and clipped; alpha is copied bit for bit
 * from the tile's input `src` (of the same type).  */
typedef struct
{
  int tile_width, tile_height;
  int ox, oy;          /* core's offset inside the tile  */
  int core_w, core_h;
  int gx, gy;          /* core's offset inside the image */
  int width;           /* image width                    */
} bm3d_cuda_core;

bm3d_status bm3d_cuda_colour_inverse (bm3d_job *job,
                                      const float *const *plane,
                                      const void *src, void *dst,
                                      bm3d_pixel_type type, int channels,
                                      int colour,
                                      const bm3d_cuda_core *core);

/* job->unclip, when set, into the device's table for the inverse
 * (on the device's stream, before the tiles).  */
bm3d_status bm3d_cuda_unclip_upload (bm3d_job *job);

/* job->vst, when set, into the device's tables: the forward transform
 * then maps every input value before the colour transform, the inverse
 * every result before its rounding (on the device's stream, before the
 * tiles).  */
bm3d_status bm3d_cuda_vst_upload (bm3d_job *job);

/* ---- whole images, tile by tile, on the device ---------------------- */

/* What an algorithm does to one tile (`core` describes it): `input`
 * says where the colour transform writes the tile's planes, `denoise`
 * filters them and says which planes hold the result.  */
typedef struct
{
  void          *ctx;
  float *const *(*input) (void *ctx, const bm3d_cuda_core *core,
                          bm3d_job *job);
  bm3d_status   (*denoise) (void *ctx, const bm3d_cuda_core *core,
                            const float *const **result, bm3d_job *job);
} bm3d_cuda_tile_steps;

/* The image in tiles of `side` (plus the job's margin), in
 * cuda_tiled_image.cu: each tile's pixels uploaded (on a transfer
 * thread, while the device filters the tile before) into one of the two
 * `staging` buffers (room for the largest tile, interleaved), through
 * the colour transform, `steps`, and the inverse into the result.  With
 * `core` NULL the result is `dev_out`, the whole image on the device,
 * and `out` is written only once every tile has succeeded.  Otherwise
 * the result does not fit the device, or the caller's `out` is scratch
 * (bm3d_cuda_stream_by_choice): each tile's core goes to one of the two
 * `core` buffers (side x side pixels) and from there into `out` while
 * the next tile is filtered, so a failed or cancelled call leaves `out`
 * partly written.  `pin` says which images the transfer threads
 * may page-lock (BM3D_CUDA_PIN_IN, _OUT) when there are several tiles:
 * pinning speeds the copies 5 to 7 times, but it stalls the device's
 * work while it runs and unpinning comes at the end, so an algorithm
 * whose filtering hides pageable copies asks for less.  Progress and
 * cancelling go through the job.  */
#define BM3D_CUDA_PIN_IN   1
#define BM3D_CUDA_PIN_OUT  2
bm3d_status bm3d_cuda_tiled_image (const bm3d_image *in, bm3d_image *out,
                                   int side, int colour,
                                   float *const staging[2], float *dev_out,
                                   float *const core[2], int pin,
                                   const bm3d_cuda_tile_steps *steps,
                                   bm3d_job *job);

/* How a whole-image call lays out its device memory: tiles of `side`
 * (job-aligned), and `result_bytes` for the result: the whole image
 * (`streamed` 0) when it fits beside tiles of 512 x 512 pixels, else
 * two tile cores (`streamed` 1, when `may_stream`).  `per_px`: the
 * algorithm's device bytes per tile pixel, `fixed`: its bytes beside;
 * the two staging buffers are counted here.  0 when nothing fits.  */
int         bm3d_cuda_image_side (bm3d_job *job, const bm3d_image *in,
                                  size_t per_px, size_t fixed, int may_stream,
                                  size_t *result_bytes, int *streamed);

/* Whether a result that fits the device is better streamed tile by
 * tile: the caller's `out` is scratch (params->out_scratch), the W x H
 * image takes more than one tile of `side`, and two tile cores of `ch`
 * floats a pixel take no more device memory than the whole result.  */
int         bm3d_cuda_stream_by_choice (const bm3d_job *job, int W, int H,
                                        int side, int ch);

#endif /* BM3D_CUDA_DEVICE_CUH */
