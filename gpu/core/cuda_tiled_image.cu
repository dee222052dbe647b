/* BM3D Denoise — whole images on a CUDA device, tile by tile, with the
 * transfers beside the work (see cuda_device.cuh).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The caller's image lives in pageable memory, which the device reads
 * at a seventh of the speed of pinned memory (bench/transfer-bench.cu:
 * 7.3 against 55 GB/s on the H100 machine), and a pageable copy holds
 * the thread that asks for it until it is done.  So the copies run on
 * transfer threads of their own, on streams of their own: while the
 * device filters tile k, one thread uploads tile k + 1 into the other
 * staging buffer and, for a streamed result (an image whose result does
 * not fit the device, or params->out_scratch), the other brings tile
 * k - 1's finished core back into `out`.  The smallest tile goes first,
 * since its upload is the one nothing hides.  Otherwise the result
 * stays on the device until every tile is done (`out` is then written
 * only on success).  Where the caller asks, the threads pin the images
 * (page-lock them) while the device works, so that the copies after run
 * at pinned speed.
 *
 * Integer pixels (bm3d_denoise_pixels: job->pixels_in, _out) travel as
 * they are, a quarter (8-bit) or half (16-bit) of the floats' bytes:
 * the colour transforms convert them on the device, the inverse
 * rounding (and unclipping) into the result's own type.
 *
 * The copies go through pinned bounce buffers, two each way: several
 * host threads copy rows between the caller's image and one buffer
 * while the copy engine moves the other, in place of the driver's
 * single-threaded pageable copies, and nothing is pinned or unpinned in
 * the call.  A streamed result comes back on a thread and stream of its
 * own, beside the uploads: a tile's download and the next tile's upload
 * then share the filtering of the tile between them rather than follow
 * each other (isoline's filtering, 0.43 ms a megapixel at 8-bit RGB, is
 * shorter than the two copies one after the other, 0.5).  On
 * the H100 machine, 12 MP RGB, against the direct copies in the same
 * run: NL-means 40.4 -> 28.4 ms (floats), 24.2 -> 22.3 (8-bit); isoline
 * 30.9 -> 19.7, 10.1 -> 9.0 (docs/user-wait.md).  BM3D_CUDA_BOUNCE=0
 * copies direct, with the algorithm's pin policy, as before;
 * BM3D_CUDA_BOUNCE_THREADS sets the host threads (1..16) for
 * benchmarks.  */
#include <cuda_runtime.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_device.cuh"
#include "cuda_check.cuh"

/* The host threads that copy rows into and out of a bounce buffer (two
 * a direction, BM3D_CUDA_BOUNCE_BYTES each) at most, and by default;
 * copies under BOUNCE_ALONE bytes take one.  */
#define BOUNCE_THREADS_MAX 16
#define BOUNCE_THREADS 8
#define BOUNCE_ALONE ((size_t) 1 << 20)

/* One direction's pair of bounce buffers, each buffer's last copy on
 * the device marked by its event.  */
typedef struct
{
  char                *buf[2];
  cudaEvent_t          free[2];
  int                  next;
} bounce_lane;

/* What the calling thread and the transfer threads share.  The counters
 * say how far each has got (a tile's event is recorded before its
 * counter moves past it), under `lock`.  */
typedef struct
{
  const bm3d_image    *in;           /* the shape of the images         */
  bm3d_image          *out;
  /* Where the values are, and their type: the float images', or the
   * caller's integer pixels.  Pitches in bytes.  */
  bm3d_pixel_type      type;
  size_t               value_bytes;
  const char          *in_data;
  size_t               in_pitch;
  char                *out_data;
  size_t               out_pitch;
  const bm3d_tile_rect *rect;        /* the tiles, in the order run     */
  int                  tiles;
  int                  ordinal;
  float               *staging[2];   /* interleaved input of a tile     */
  float               *core[2];      /* streamed result cores, or NULL  */
  cudaStream_t         copy;         /* uploads                         */
  cudaStream_t         copy_down;    /* a streamed result's downloads   */
  cudaEvent_t          uploaded[2], staging_free[2], core_ready[2],
                       core_free[2];

  pthread_mutex_t      lock;
  pthread_cond_t       moved;
  int                  uploads;      /* tiles uploaded (events recorded) */
  int                  downloads;    /* cores brought back               */
  int                  filtered;     /* tiles the device is done with    */
  int                  stop;         /* the call gave up                 */
  cudaError_t          error;        /* the thread's first failure       */
  const char          *error_what;
  int                  pin;          /* BM3D_CUDA_PIN_IN | _OUT to try   */
  int                  pinned_in;    /* in registered by the thread      */
  int                  pinned_out;   /* out registered by the thread     */
  double               pin_seconds;  /* the thread's time pinning        */
  double               waited;       /* the calling thread's waits       */
  /* Copies through the device's bounce buffers (up.buf[0] NULL:
   * direct).  The final download of a result kept on the device takes
   * the uploads' lane, free by then.  */
  bounce_lane          up, down;
  int                  bounce_threads;
} transfers;

/* ---- rows copied by several host threads ------------------------------ */

typedef struct
{
  char        *dst;
  size_t       dst_pitch;
  const char  *src;
  size_t       src_pitch;
  size_t       row;          /* bytes of a row                          */
  int          rows;
  int          threads;      /* to share the rows among                 */
} row_block;

static void *
copy_row_block (void *arg)
{
  const row_block *b = (const row_block *) arg;

  for (int y = 0; y < b->rows; y++)
    memcpy (b->dst + (size_t) y * b->dst_pitch,
            b->src + (size_t) y * b->src_pitch, b->row);
  return NULL;
}

/* The rows of `all` split among its threads (this one included): one
 * core's memcpy reaches a fraction of the memory's bandwidth.  A thread
 * that cannot start leaves its share to this one.  */
static void
copy_rows (const row_block *all)
{
  row_block part[BOUNCE_THREADS_MAX];
  pthread_t thread[BOUNCE_THREADS_MAX];
  int started[BOUNCE_THREADS_MAX] = { 0 };
  int n = all->row * all->rows < BOUNCE_ALONE ? 1 : all->threads;

  if (n > all->rows)
    n = all->rows;
  for (int i = 0; i < n; i++)
    {
      int y0 = (int) ((long) all->rows * i / n);
      int y1 = (int) ((long) all->rows * (i + 1) / n);

      part[i] = *all;
      part[i].dst += (size_t) y0 * all->dst_pitch;
      part[i].src += (size_t) y0 * all->src_pitch;
      part[i].rows = y1 - y0;
      if (i > 0)
        started[i] = pthread_create (&thread[i], NULL, copy_row_block,
                                     &part[i]) == 0;
    }
  for (int i = 0; i < n; i++)
    if (!started[i])
      copy_row_block (&part[i]);
  for (int i = 1; i < n; i++)
    if (started[i])
      pthread_join (thread[i], NULL);
}

/* Rows of a chunk: as many as fill a bounce buffer, at least one.  */
static int
chunk_rows (size_t row)
{
  return row < BM3D_CUDA_BOUNCE_BYTES ? (int) (BM3D_CUDA_BOUNCE_BYTES / row)
                                      : 1;
}

/* `rows` rows of `row` bytes from host `src` (`pitch` apart) to device
 * `dst` (packed), on `stream`, through the bounce buffers in chunks:
 * the host fills one while the copy engine empties the other.  */
static cudaError_t
bounce_up (transfers *t, bounce_lane *l, char *dst, const char *src,
           size_t pitch, size_t row, int rows, cudaStream_t stream)
{
  const int per = chunk_rows (row);
  cudaError_t e;

  for (int y = 0; y < rows; y += per)
    {
      const int n = rows - y < per ? rows - y : per;
      const int b = l->next;
      row_block block = { l->buf[b], row, src + (size_t) y * pitch, pitch,
                          row, n, t->bounce_threads };

      l->next ^= 1;
      if ((e = cudaEventSynchronize (l->free[b])) != cudaSuccess)
        return e;
      copy_rows (&block);
      if ((e = cudaMemcpyAsync (dst + (size_t) y * row, l->buf[b],
                                (size_t) n * row, cudaMemcpyHostToDevice,
                                stream)) != cudaSuccess
          || (e = cudaEventRecord (l->free[b], stream)) != cudaSuccess)
        return e;
    }
  return cudaSuccess;
}

/* Chunk `k` of `rows` (`per` a chunk) from device `src` into bounce
 * buffer `b`, on `stream`, once the buffer's last copy is done.  */
static cudaError_t
bounce_fetch (bounce_lane *l, int b, const char *src, size_t row, int rows,
              int per, int k, cudaStream_t stream)
{
  const int y = k * per, n = rows - y < per ? rows - y : per;
  cudaError_t e;

  if ((e = cudaEventSynchronize (l->free[b])) != cudaSuccess
      || (e = cudaMemcpyAsync (l->buf[b], src + (size_t) y * row,
                               (size_t) n * row, cudaMemcpyDeviceToHost,
                               stream)) != cudaSuccess)
    return e;
  return cudaEventRecord (l->free[b], stream);
}

/* The reverse of bounce_up: device `src` (packed rows) to host `dst`,
 * on `stream`; chunk k + 1 comes down while the host copies chunk k
 * out.  Returns once `dst` holds every row.  */
static cudaError_t
bounce_down (transfers *t, bounce_lane *l, char *dst, size_t pitch,
             const char *src, size_t row, int rows, cudaStream_t stream)
{
  const int per = chunk_rows (row), chunks = (rows + per - 1) / per;
  const int first = l->next;
  cudaError_t e;

  if ((e = bounce_fetch (l, first, src, row, rows, per, 0, stream))
      != cudaSuccess)
    return e;
  for (int k = 0; k < chunks; k++)
    {
      const int b = (first + k) & 1;
      const int y = k * per, n = rows - y < per ? rows - y : per;
      row_block block = { dst + (size_t) y * pitch, pitch, l->buf[b], row,
                          row, n, t->bounce_threads };

      if (k + 1 < chunks
          && (e = bounce_fetch (l, b ^ 1, src, row, rows, per, k + 1,
                                stream)) != cudaSuccess)
        return e;
      if ((e = cudaEventSynchronize (l->free[b])) != cudaSuccess)
        return e;
      copy_rows (&block);
    }
  l->next = (first + chunks) & 1;
  return cudaSuccess;
}

/* The bytes the rows of an image of the call's shape span from `data`
 * on, `pitch` bytes apart.  */
static size_t
image_extent (const transfers *t, size_t pitch)
{
  return ((size_t) t->in->height - 1) * pitch
         + (size_t) t->in->width * t->in->channels * t->value_bytes;
}

/* Page-lock the image at `data` so that the copy engines reach it at
 * full speed.  A failure (memory the caller pinned already, a limit)
 * leaves the copies pageable, as slow as before and as right.  */
static int
pin (transfers *t, const void *data, size_t pitch)
{
  double t0 = bm3d_seconds ();
  int ok;

  ok = cudaHostRegister ((void *) data, image_extent (t, pitch),
                         cudaHostRegisterDefault) == cudaSuccess;
  if (!ok)
    (void) cudaGetLastError ();
  t->pin_seconds += bm3d_seconds () - t0;
  return ok;
}

static void
unpin (const void *data)
{
  (void) cudaHostUnregister ((void *) data);
}

/* Wait until `*counter` reaches `value`; 0 when the call gave up.  */
static int
wait_for (transfers *t, const int *counter, int value)
{
  int ok;

  pthread_mutex_lock (&t->lock);
  while (*counter < value && !t->stop && t->error == cudaSuccess)
    pthread_cond_wait (&t->moved, &t->lock);
  ok = *counter >= value;
  pthread_mutex_unlock (&t->lock);
  return ok;
}

static void
advance (transfers *t, int *counter, int value)
{
  pthread_mutex_lock (&t->lock);
  *counter = value;
  pthread_cond_broadcast (&t->moved);
  pthread_mutex_unlock (&t->lock);
}

static int
failed (transfers *t, cudaError_t e, const char *what)
{
  if (e == cudaSuccess)
    return 0;
  pthread_mutex_lock (&t->lock);
  if (t->error == cudaSuccess)
    {
      t->error = e;
      t->error_what = what;
    }
  pthread_cond_broadcast (&t->moved);
  pthread_mutex_unlock (&t->lock);
  return 1;
}

#define TRY(t, call) \
  do { if (failed ((t), (call), #call)) return 0; } while (0)

/* Tile k's read rectangle into staging buffer k % 2, once the device
 * has finished with tile k - 2 there.  */
static int
upload (transfers *t, int k)
{
  const bm3d_tile_rect *r = &t->rect[k];
  const size_t px = t->in->channels * t->value_bytes;
  const size_t row = (size_t) (r->x1 - r->x0) * px;

  if (k >= 2)
    {
      if (!wait_for (t, &t->filtered, k - 1))
        return 0;
      TRY (t, cudaStreamWaitEvent (t->copy, t->staging_free[k & 1], 0));
    }
  if (t->up.buf[0] && !t->pinned_in)
    TRY (t, bounce_up (t, &t->up, (char *) t->staging[k & 1],
                       t->in_data + (size_t) r->y0 * t->in_pitch
                       + (size_t) r->x0 * px, t->in_pitch, row,
                       r->y1 - r->y0, t->copy));
  else
    TRY (t, cudaMemcpy2DAsync (t->staging[k & 1], row,
                               t->in_data + (size_t) r->y0 * t->in_pitch
                               + (size_t) r->x0 * px,
                               t->in_pitch, row, r->y1 - r->y0,
                               cudaMemcpyHostToDevice, t->copy));
  TRY (t, cudaEventRecord (t->uploaded[k & 1], t->copy));
  advance (t, &t->uploads, k + 1);
  return 1;
}

/* Tile k's finished core from core buffer k % 2 into `out`.  */
static int
download (transfers *t, int k)
{
  const bm3d_tile_rect *r = &t->rect[k];
  const size_t px = t->out->channels * t->value_bytes;
  const size_t row = (size_t) (r->cx1 - r->cx0) * px;

  if (!wait_for (t, &t->filtered, k + 1))
    return 0;
  TRY (t, cudaStreamWaitEvent (t->copy_down, t->core_ready[k & 1], 0));
  if (t->down.buf[0] && !t->pinned_out)
    TRY (t, bounce_down (t, &t->down, t->out_data
                         + (size_t) r->cy0 * t->out_pitch
                         + (size_t) r->cx0 * px, t->out_pitch,
                         (const char *) t->core[k & 1], row,
                         r->cy1 - r->cy0, t->copy_down));
  else
    TRY (t, cudaMemcpy2DAsync (t->out_data + (size_t) r->cy0 * t->out_pitch
                               + (size_t) r->cx0 * px,
                               t->out_pitch, t->core[k & 1],
                               row, row, r->cy1 - r->cy0,
                               cudaMemcpyDeviceToHost, t->copy_down));
  TRY (t, cudaEventRecord (t->core_free[k & 1], t->copy_down));
  TRY (t, cudaStreamSynchronize (t->copy_down));
  advance (t, &t->downloads, k + 1);
  return 1;
}

static void *
upload_thread (void *arg)
{
  transfers *t = (transfers *) arg;

  if (failed (t, cudaSetDevice (t->ordinal), "cudaSetDevice"))
    return NULL;
  for (int k = 0; k < t->tiles; k++)
    {
      if (!upload (t, k))
        return NULL;
      /* While the first tile is filtered: the input pinned for the
       * uploads after it.  */
      if (k == 0 && t->tiles > 1 && (t->pin & BM3D_CUDA_PIN_IN))
        t->pinned_in = pin (t, t->in_data, t->in_pitch);
    }
  if (!t->core[0] && t->tiles > 1 && (t->pin & BM3D_CUDA_PIN_OUT))
    /* A result kept on the device comes back in one download that
     * nothing hides: pinned, it runs at 55 rather than 10 GB/s.
     * Pinning leaves the pixels as they are, so `out` may be pinned
     * before the call has succeeded.  */
    t->pinned_out = pin (t, t->out_data, t->out_pitch);
  return NULL;
}

/* A streamed result, tile by tile as the device finishes them.  */
static void *
download_thread (void *arg)
{
  transfers *t = (transfers *) arg;

  if (failed (t, cudaSetDevice (t->ordinal), "cudaSetDevice"))
    return NULL;
  /* While the first tile is filtered.  */
  if (t->tiles > 1 && (t->pin & BM3D_CUDA_PIN_OUT))
    t->pinned_out = pin (t, t->out_data, t->out_pitch);
  for (int k = 0; k < t->tiles; k++)
    if (!download (t, k))
      break;
  return NULL;
}

static size_t
rect_area (const bm3d_tile_rect *r)
{
  return (size_t) (r->x1 - r->x0) * (r->y1 - r->y0);
}

/* Smaller tiles first; among equals, raster order.  */
static int
by_area (const void *a, const void *b)
{
  const bm3d_tile_rect *ra = (const bm3d_tile_rect *) a;
  const bm3d_tile_rect *rb = (const bm3d_tile_rect *) b;

  if (rect_area (ra) != rect_area (rb))
    return rect_area (ra) < rect_area (rb) ? -1 : 1;
  if (ra->cy0 != rb->cy0)
    return ra->cy0 < rb->cy0 ? -1 : 1;
  return (ra->cx0 > rb->cx0) - (ra->cx0 < rb->cx0);
}

/* `n` tiles in growing order rearranged to rise and fall: the even
 * places first, then the odd ones backwards.  */
static void
rise_and_fall (bm3d_tile_rect *rect, int n)
{
  bm3d_tile_rect *sorted = (bm3d_tile_rect *) malloc (sizeof *rect * n);
  int k = 0;

  if (!sorted)
    return;                     /* growing order: as good, a bit slower */
  memcpy (sorted, rect, sizeof *rect * n);
  for (int i = 0; i < n; i += 2)
    rect[k++] = sorted[i];
  for (int i = (n - 1) | 1; i >= 1; i -= 2)
    if (i < n)
      rect[k++] = sorted[i];
  free (sorted);
}

/* The tiles of the image, smallest first: the first upload is the one
 * nothing hides, and in growing order each tile's filtering (about 7 ns
 * a pixel for BM3D) hides more of the next one's upload (about 2).  A
 * streamed result's last download is the other copy nothing hides, and
 * each download must fit in the next tile's filtering: its tiles rise
 * and fall (sizes 0, 2, 4 .. 5, 3, 1 in growing order), so the last is
 * the second smallest and the ones before it shrink step by step.  */
static bm3d_tile_rect *
plan_tiles (const bm3d_job *job, int W, int H, int side, int streamed,
            int *count)
{
  int tx, ty;
  bm3d_tile_rect *rect;

  bm3d_job_tile_grid (job, W, H, side, &tx, &ty);
  if (!(rect = (bm3d_tile_rect *) malloc (sizeof *rect * tx * ty)))
    return NULL;
  for (int iy = 0; iy < ty; iy++)
    for (int ix = 0; ix < tx; ix++)
      bm3d_job_tile_rect (job, W, H, side, ix, iy, &rect[iy * tx + ix]);
  qsort (rect, (size_t) tx * ty, sizeof *rect, by_area);
  *count = tx * ty;
  if (streamed && *count > 2)
    rise_and_fall (rect, *count);
  return rect;
}

static void
core_of (const bm3d_tile_rect *r, int width, bm3d_cuda_core *core)
{
  core->tile_width = r->x1 - r->x0;
  core->tile_height = r->y1 - r->y0;
  core->ox = r->cx0 - r->x0;
  core->oy = r->cy0 - r->y0;
  core->core_w = r->cx1 - r->cx0;
  core->core_h = r->cy1 - r->cy0;
  core->gx = r->cx0;
  core->gy = r->cy0;
  core->width = width;
}

/* The transfer threads' first error as the call's.  */
static bm3d_status
transfer_error (transfers *t, bm3d_job *job)
{
  return bm3d_cuda_fail (job, t->error, t->error_what);
}

/* Tile k on the device: its colour transform, the algorithm's steps,
 * and the inverse into `dev_out` (the whole image) or core buffer
 * k % 2 (streaming).  */
static bm3d_status
filter_tile (transfers *t, int k, int colour, float *dev_out,
             const bm3d_cuda_tile_steps *steps, bm3d_job *job)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const bm3d_tile_rect *r = &t->rect[k];
  const int ch = t->in->channels;
  bm3d_cuda_core core, dst_core;
  const float *const *result;
  float *const *planes;
  bm3d_status status;

  core_of (r, t->in->width, &core);
  job->tile_share = (double) core.core_w * core.core_h
                    / ((double) t->in->width * t->in->height);
  if (job->tick (job, 0.0))
    {
      bm3d_job_message (job, "cancelled");
      return BM3D_ERR_CANCELLED;
    }
  if ((status = bm3d_cuda_tile_begins (job)) != BM3D_OK)
    return status;
  double t0 = bm3d_seconds ();
  if (!wait_for (t, &t->uploads, k + 1))
    return transfer_error (t, job);
  t->waited += bm3d_seconds () - t0;
  BM3D_CUDA_CHECK (job, cudaStreamWaitEvent (dev->stream,
                                             t->uploaded[k & 1], 0));
  planes = steps->input (steps->ctx, &core, job);
  if ((status = bm3d_cuda_colour_forward (job, t->staging[k & 1], t->type,
                                          ch, colour, planes,
                                          (size_t) core.tile_width
                                          * core.tile_height)) != BM3D_OK
      || (status = steps->denoise (steps->ctx, &core, &result, job))
         != BM3D_OK)
    return status;
  dst_core = core;
  if (t->core[0])
    {
      /* The core alone, packed, once tile k - 2's core has left.  */
      if (k >= 2 && !wait_for (t, &t->downloads, k - 1))
        return transfer_error (t, job);
      BM3D_CUDA_CHECK (job, cudaStreamWaitEvent (dev->stream,
                                                 t->core_free[k & 1], 0));
      dst_core.gx = dst_core.gy = 0;
      dst_core.width = core.core_w;
      dev_out = t->core[k & 1];
    }
  if ((status = bm3d_cuda_colour_inverse (job, result, t->staging[k & 1],
                                          dev_out, t->type, ch, colour,
                                          &dst_core))
      != BM3D_OK)
    return status;
  BM3D_CUDA_CHECK (job, cudaEventRecord (t->staging_free[k & 1], dev->stream));
  if (t->core[0])
    BM3D_CUDA_CHECK (job, cudaEventRecord (t->core_ready[k & 1], dev->stream));
  advance (t, &t->filtered, k + 1);
  job->tile_base += job->tile_share;
  return BM3D_OK;
}

/* After the last tile, with the result on the device: the rows the
 * job writes into `out` (a band's neighbours write the others).  */
static bm3d_status
download_result (transfers *t, const float *dev_out, bm3d_job *job)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const bm3d_image *out = t->out;
  const size_t row = (size_t) out->width * out->channels * t->value_bytes;
  int y0, y1;

  bm3d_job_rows (job, out->height, &y0, &y1);
  char *dst = t->out_data + (size_t) y0 * t->out_pitch;
  const char *src = (const char *) dev_out + (size_t) y0 * row;
  if (t->up.buf[0] && !t->pinned_out)
    {
      BM3D_CUDA_CHECK (job, bounce_down (t, &t->up, dst, t->out_pitch, src,
                                         row, y1 - y0, dev->stream));
      return BM3D_OK;
    }
  BM3D_CUDA_CHECK (job, cudaMemcpy2DAsync (dst, t->out_pitch, src, row, row,
                                           y1 - y0, cudaMemcpyDeviceToHost,
                                           dev->stream));
  BM3D_CUDA_CHECK (job, cudaStreamSynchronize (dev->stream));
  return BM3D_OK;
}

void *
bm3d_cuda_bounce_area (bm3d_job *job)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);

  if (job->env.cuda_bounce_off)
    return NULL;
  if (!dev->bounce
      && cudaHostAlloc (&dev->bounce, BM3D_CUDA_BOUNCE_AREA,
                        cudaHostAllocDefault) != cudaSuccess)
    {
      (void) cudaGetLastError ();
      dev->bounce = NULL;
    }
  return dev->bounce;
}

/* The device's bounce buffers for this call (bm3d_cuda_bounce_area ());
 * without them the copies go direct.  */
static bm3d_status
bounce_open (transfers *t, bm3d_job *job)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const int threads = job->env.cuda_bounce_threads;

  if (!bm3d_cuda_bounce_area (job))
    return BM3D_OK;
  t->bounce_threads = BOUNCE_THREADS;
  if (threads >= 1)
    t->bounce_threads = threads < BOUNCE_THREADS_MAX
                        ? threads : BOUNCE_THREADS_MAX;
  for (int i = 0; i < 2; i++)
    {
      t->up.buf[i] = (char *) dev->bounce + i * BM3D_CUDA_BOUNCE_BYTES;
      t->down.buf[i] = (char *) dev->bounce
                       + (2 + i) * BM3D_CUDA_BOUNCE_BYTES;
      BM3D_CUDA_CHECK (job, cudaEventCreateWithFlags (&t->up.free[i],
                                                      cudaEventDisableTiming));
      BM3D_CUDA_CHECK (job, cudaEventCreateWithFlags (&t->down.free[i],
                                                      cudaEventDisableTiming));
    }
  /* Copies through them need no pinning of the images.  */
  t->pin = 0;
  return BM3D_OK;
}

static bm3d_status
transfers_open (transfers *t, const bm3d_image *in, bm3d_image *out,
                float *const staging[2], float *const core[2],
                bm3d_job *job)
{
  cudaEvent_t *events[] = { t->uploaded, t->staging_free, t->core_ready,
                            t->core_free };

  t->in = in;
  t->out = out;
  if (job->pixels_in)
    {
      t->type = job->pixels_in->type;
      t->value_bytes = bm3d_pixel_size (t->type);
      t->in_data = (const char *) job->pixels_in->data;
      t->in_pitch = job->pixels_in->stride * t->value_bytes;
      t->out_data = (char *) job->pixels_out->data;
      t->out_pitch = job->pixels_out->stride * t->value_bytes;
    }
  else
    {
      t->type = BM3D_PIXELS_FLOAT;
      t->value_bytes = sizeof (float);
      t->in_data = (const char *) in->data;
      t->in_pitch = in->stride * sizeof (float);
      t->out_data = (char *) out->data;
      t->out_pitch = out->stride * sizeof (float);
    }
  t->ordinal = bm3d_cuda_device_of (job)->ordinal;
  for (int i = 0; i < 2; i++)
    {
      t->staging[i] = staging[i];
      t->core[i] = core ? core[i] : NULL;
    }
  pthread_mutex_init (&t->lock, NULL);
  pthread_cond_init (&t->moved, NULL);
  BM3D_CUDA_CHECK (job, cudaStreamCreateWithFlags (&t->copy,
                                                   cudaStreamNonBlocking));
  BM3D_CUDA_CHECK (job, cudaStreamCreateWithFlags (&t->copy_down,
                                                   cudaStreamNonBlocking));
  for (int e = 0; e < 4; e++)
    for (int i = 0; i < 2; i++)
      BM3D_CUDA_CHECK (job, cudaEventCreateWithFlags (&events[e][i],
                                                      cudaEventDisableTiming));
  return bounce_open (t, job);
}

/* Stop the threads still running (NULL: none; they have been joined
 * when this returns) and free what the call made; `out` unpinned.  */
static void
transfers_close (transfers *t, pthread_t *up, pthread_t *down)
{
  cudaEvent_t *events[] = { t->uploaded, t->staging_free, t->core_ready,
                            t->core_free, t->up.free, t->down.free };
  cudaStream_t streams[] = { t->copy, t->copy_down };

  pthread_mutex_lock (&t->lock);
  t->stop = 1;
  pthread_cond_broadcast (&t->moved);
  pthread_mutex_unlock (&t->lock);
  if (up)
    pthread_join (*up, NULL);
  if (down)
    pthread_join (*down, NULL);
  if (t->pinned_in)
    unpin (t->in_data);
  if (t->pinned_out)
    unpin (t->out_data);
  for (int i = 0; i < 2; i++)
    if (streams[i])
      {
        (void) cudaStreamSynchronize (streams[i]);
        (void) cudaStreamDestroy (streams[i]);
      }
  for (int e = 0; e < 6; e++)
    for (int i = 0; i < 2; i++)
      if (events[e][i])
        (void) cudaEventDestroy (events[e][i]);
  pthread_cond_destroy (&t->moved);
  pthread_mutex_destroy (&t->lock);
}

bm3d_status
bm3d_cuda_tiled_image (const bm3d_image *in, bm3d_image *out, int side,
                       int colour, float *const staging[2], float *dev_out,
                       float *const core[2], int pin,
                       const bm3d_cuda_tile_steps *steps, bm3d_job *job)
{
  transfers t;
  pthread_t up, down;
  int up_started = 0, down_started = 0;
  bm3d_status status;

  memset (&t, 0, sizeof t);
  t.pin = pin;
  /* Benchmarks compare: 0 pins nothing, 3 both images.  */
  if (job->env.cuda_pin_set)
    t.pin = job->env.cuda_pin & (BM3D_CUDA_PIN_IN | BM3D_CUDA_PIN_OUT);
  t.rect = plan_tiles (job, in->width, in->height, side, core != NULL,
                       &t.tiles);
  if (!t.rect)
    {
      bm3d_job_message (job, "out of memory for the tile plan");
      return BM3D_ERR_OUT_OF_MEMORY;
    }
  status = transfers_open (&t, in, out, staging, core, job);
  if (status == BM3D_OK)
    status = bm3d_cuda_unclip_upload (job);
  if (status == BM3D_OK)
    status = bm3d_cuda_vst_upload (job);
  if (status == BM3D_OK)
    {
      up_started = pthread_create (&up, NULL, upload_thread, &t) == 0;
      down_started = core && up_started
                     && pthread_create (&down, NULL, download_thread,
                                        &t) == 0;
      if (!up_started || (core && !down_started))
        {
          bm3d_job_message (job, "could not start the transfer threads");
          status = BM3D_ERR_OUT_OF_MEMORY;
        }
    }

  job->tile_base = 0.0;
  for (int k = 0; k < t.tiles && status == BM3D_OK; k++)
    status = filter_tile (&t, k, colour, dev_out, steps, job);

  double t0 = bm3d_seconds ();
  if (status == BM3D_OK)
    {
      /* Every tile succeeded: only now is a result kept on the device
       * written to `out`.  */
      if (!wait_for (&t, t.core[0] ? &t.downloads : &t.uploads, t.tiles))
        status = transfer_error (&t, job);
      if (status == BM3D_OK && !t.core[0])
        {
          pthread_join (up, NULL);
          up_started = 0;
          status = download_result (&t, dev_out, job);
        }
    }
  double t1 = bm3d_seconds ();
  transfers_close (&t, up_started ? &up : NULL, down_started ? &down : NULL);
  job->report->seconds_transfer += t.waited + bm3d_seconds () - t0;
  if (job->env.cuda_times)
    fprintf (stderr, "bm3d cuda tiles: %d of side %d%s; waited for uploads "
             "%.2f ms, result %.2f ms, unpinning %.2f ms; pinning in %s, "
             "out %s: %.2f ms on the transfer threads\n", t.tiles, side,
             t.core[0] ? ", streamed" : "", t.waited * 1e3, (t1 - t0) * 1e3,
             (bm3d_seconds () - t1) * 1e3, t.pinned_in ? "yes" : "no",
             t.pinned_out ? "yes" : "no", t.pin_seconds * 1e3);
  free ((void *) t.rect);
  if (status == BM3D_OK)
    {
      job->tile_base = 0.0;
      job->tile_share = 1.0;
      (void) job->tick (job, 1.0);
    }
  return status;
}

static size_t
align256 (size_t bytes)
{
  return (bytes + 255) & ~(size_t) 255;
}

int
bm3d_cuda_image_side (bm3d_job *job, const bm3d_image *in, size_t per_px,
                      size_t fixed, int may_stream, size_t *result_bytes,
                      int *streamed)
{
  const int W = in->width, H = in->height, ch = in->channels;
  const size_t budget = bm3d_cuda_budget (bm3d_cuda_device_of (job));
  const size_t whole = align256 ((size_t) W * H * ch * sizeof (float));
  const size_t core_px = 2 * ch * sizeof (float);
  int side;

  /* Two staging buffers of the tile's interleaved pixels.  */
  per_px += 2 * ch * sizeof (float);
  *streamed = whole + fixed + per_px * 512 * 512 > budget;
  /* Tests stream small images through tiles of a given side
   * (BM3D_CUDA_STREAM_SIDE).  */
  const int forced = job->env.cuda_stream_side;
  if (may_stream && forced >= 24)
    {
      side = bm3d_tile_side_aligned (job, forced < 4096 ? forced : 4096);
      *streamed = 1;
      *result_bytes = 2 * align256 ((size_t) side * side * ch
                                    * sizeof (float));
      return side;
    }
  if (*streamed && (!may_stream
                    || fixed + (per_px + core_px) * 512 * 512 > budget))
    return 0;
  if (*streamed)
    side = (int) sqrt ((double) ((budget - fixed) / (per_px + core_px)));
  else
    side = (int) sqrt ((double) ((budget - whole - fixed) / per_px));
  side -= 2 * job->margin;
  if (side > 4096)
    side = 4096;
  /* Keeps the reference grid aligned across tiles.  */
  side = bm3d_tile_side_aligned (job, side);
  if (!*streamed && bm3d_cuda_stream_by_choice (job, W, H, side, ch))
    *streamed = 1;
  *result_bytes = *streamed ? 2 * align256 ((size_t) side * side * ch
                                            * sizeof (float))
                            : whole;
  return side;
}

int
bm3d_cuda_stream_by_choice (const bm3d_job *job, int W, int H, int side,
                            int ch)
{
  const size_t tiles = (size_t) ((W + side - 1) / side)
                       * ((H + side - 1) / side);

  return job->params->out_scratch && tiles > 1
         && 2 * align256 ((size_t) side * side * ch * sizeof (float))
            <= align256 ((size_t) W * H * ch * sizeof (float));
}
