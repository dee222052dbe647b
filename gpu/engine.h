/* The engine's inside: what the dispatcher (engine.c) hands a backend.
 * Not installed; the plug-in and the command use bm3d.h alone.  */
#ifndef BM3D_ENGINE_H
#define BM3D_ENGINE_H

#include "bm3d.h"
#include "bm3d_tables.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A tile in planar, colour-transformed form: plane 0 is luminance (or
 * gray), planes 1 and 2 chrominance.  Each plane is width * height floats,
 * row after row, no padding.  Tiles are at least BM3D_PATCH wide and
 * high: the tiler mirrors smaller images.  */
typedef struct
{
  int     width;
  int     height;
  int     channels;                    /* 1 or 3                          */
  float  *plane[BM3D_MAX_CHANNELS];
  float   sigma[BM3D_MAX_CHANNELS];    /* noise deviation of each plane   */
} bm3d_planes;

/* What a backend needs beyond the pixels, the same for every tile.  */
typedef struct bm3d_job bm3d_job;
struct bm3d_job
{
  bm3d_profile  profile;
  int           phases;        /* 1: hard threshold only, 2: both        */
  int           channels;      /* planes per tile: 1 gray, 3 colour      */
  int           threads;       /* resolved: >= 1                          */
  bm3d_report  *report;        /* never NULL inside the engine            */

  /* Progress inside the current tile, 0..1.  Returns non-zero when the
   * user cancelled; the backend then stops and returns
   * BM3D_ERR_CANCELLED.  Call it from the calling thread only.  */
  int         (*tick) (bm3d_job *job, double tile_fraction);

  /* Private to the dispatcher.  */
  double        tile_base;
  double        tile_share;
  size_t        host_bytes_now;
  const bm3d_params *params;
};

/* Write a one-line message into job->report->message (printf style).  */
void bm3d_job_message (bm3d_job *job, const char *format, ...)
  __attribute__ ((format (printf, 2, 3)));

/* Record an allocation high-water mark (bytes now held by the engine).  */
void bm3d_job_note_host_bytes (bm3d_job *job, size_t bytes);

/* Denoise one tile: `noisy` in, `out` (same geometry, allocated by the
 * caller) out.  Returns BM3D_OK or an error with the message set.  */
typedef bm3d_status (*bm3d_tile_func) (const bm3d_planes *noisy,
                                       bm3d_planes       *out,
                                       bm3d_job          *job);

/* The backends' BM3D / CBM3D.  */
bm3d_status bm3d_cpu_tile  (const bm3d_planes *noisy, bm3d_planes *out,
                            bm3d_job *job);
bm3d_status bm3d_cuda_tile (const bm3d_planes *noisy, bm3d_planes *out,
                            bm3d_job *job);

/* CUDA on a whole image at once: the device does the tiling and the
 * colour transform, and `out` is written only when every tile is done.
 * Returns BM3D_ERR_NOT_IMPLEMENTED (nothing done, no message) when the
 * image is smaller than a patch or its output does not fit the device
 * budget; the caller then tiles on the host with bm3d_cuda_tile.  */
bm3d_status bm3d_cuda_image (const bm3d_image *in, bm3d_image *out,
                             bm3d_job *job);

/* Tiling: the core tile side each backend wants (the tile grows by the
 * overlap margin on every side that is inside the image).  */
int         bm3d_cpu_tile_side  (const bm3d_job *job);
int         bm3d_cuda_tile_side (const bm3d_job *job);

/* Overlap read around each tile's core, in pixels: the search radius plus
 * a patch for each phase, so matching near a tile edge sees as much as
 * anywhere else.  A multiple of the reference step keeps the reference
 * grid aligned across tiles.  */
#define BM3D_TILE_MARGIN 48

/* One tile of the plan every tiled path shares: the read rectangle
 * (core plus overlap, clipped to the image, widened to a patch only for
 * images smaller than one) and the core written back.  */
typedef struct
{
  int x0, y0, x1, y1;
  int cx0, cy0, cx1, cy1;
} bm3d_tile_rect;

void        bm3d_tile_rect_for (int width, int height, int side,
                                int ix, int iy, bm3d_tile_rect *t);

/* Run `func` over the image tile by tile (colour transform, overlap,
 * mirroring of images smaller than a patch), writing `out` only when
 * every tile succeeded.  */
bm3d_status bm3d_run_tiled (const bm3d_image *in, bm3d_image *out,
                            bm3d_job *job, bm3d_tile_func func,
                            int tile_side);

/* Peak-tracking allocation for backends: counts toward
 * report->peak_host_bytes.  */
void       *bm3d_alloc (bm3d_job *job, size_t bytes);
void        bm3d_free  (bm3d_job *job, void *ptr, size_t bytes);

double      bm3d_seconds (void);   /* monotonic clock */

#ifdef __cplusplus
}
#endif

#endif /* BM3D_ENGINE_H */
