/* BM3D Denoise: the host's tiler.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * bm3d_run_tiled (): the image cut into tiles with their context
 * margin, each colour-transformed into planes, handed to a backend
 * and its core written back; every algorithm's CPU backend runs
 * this way, and a device's when the whole image does not fit.  */
#include "config.h"

#include "engine.h"

#include <string.h>

/* Index into [0, n) mirrored at the edges (…2 1 0 | 0 1 2 … n-1 | n-1 …),
 * so images smaller than a patch are padded with their own pixels.  */
static int
mirror (int i, int n)
{
  int period = 2 * n;

  i %= period;
  if (i < 0)
    i += period;
  return i < n ? i : period - 1 - i;
}

/* Colour-transform the tile's read rectangle of `in` into planes.  The
 * whole-image loops below split their rows among the job's threads:
 * 1.5 % of a one-thread run, on one thread they would be a sixth of a
 * 16-thread run (docs/cpu-speed.md, "Scaling"); and the planes' pages
 * are first touched by the threads that use them.  */
static void
extract_tile (const bm3d_image *in, const bm3d_tile_rect *t, bm3d_planes *p,
              const float (*fwd)[3], int threads)
{
  int colour = p->channels;

#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads)
#endif
  for (int y = t->y0; y < t->y1; y++)
    {
      const float *row = in->data + (size_t) mirror (y, in->height) * in->stride;
      size_t o = (size_t) (y - t->y0) * p->width;

      for (int x = t->x0; x < t->x1; x++, o++)
        {
          const float *px = row + (size_t) mirror (x, in->width) * in->channels;

          if (colour == 1)
            p->plane[0][o] = px[0];
          else
            for (int c = 0; c < 3; c++)
              p->plane[c][o] = fwd[c][0] * px[0] + fwd[c][1] * px[1]
                               + fwd[c][2] * px[2];
        }
    }
  (void) threads;
}

/* Copy the tile's core from `p` into the whole-image planes `dst`.  */
static void
store_tile_core (const bm3d_planes *p, const bm3d_tile_rect *t, float **dst,
                 int width, int threads)
{
  const int rows = t->cy1 - t->cy0;

#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads)
#endif
  for (int k = 0; k < p->channels * rows; k++)
    {
      int c = k / rows, y = t->cy0 + k % rows;

      memcpy (dst[c] + (size_t) y * width + t->cx0,
              p->plane[c] + (size_t) (y - t->y0) * p->width + (t->cx0 - t->x0),
              sizeof (float) * (t->cx1 - t->cx0));
    }
  (void) threads;
}

/* Inverse colour transform into rows y0 .. y1 - 1 of `out`; alpha
 * copied bit-exact.  */
static void
write_output (const bm3d_image *in, bm3d_image *out, float **planes,
              int colour, const float (*inv)[3], int y0, int y1,
              int threads)
{
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads)
#endif
  for (int y = y0; y < y1; y++)
    {
      const float *src = in->data + (size_t) y * in->stride;
      float *dst = out->data + (size_t) y * out->stride;

      for (int x = 0; x < in->width; x++)
        {
          size_t o = (size_t) y * in->width + x;
          float *px = dst + (size_t) x * out->channels;

          if (colour == 1)
            px[0] = planes[0][o];
          else
            for (int c = 0; c < 3; c++)
              px[c] = inv[c][0] * planes[0][o] + inv[c][1] * planes[1][o]
                      + inv[c][2] * planes[2][o];
          if (in->has_alpha)
            memcpy (px + colour, src + (size_t) x * in->channels + colour,
                    sizeof (float));
        }
    }
  (void) threads;
}

static void
free_planes (bm3d_job *job, float **planes, int n, size_t count)
{
  for (int c = 0; c < n; c++)
    {
      bm3d_free (job, planes[c], count * sizeof (float));
      planes[c] = NULL;
    }
}

static int
alloc_planes (bm3d_job *job, float **planes, int n, size_t count)
{
  for (int c = 0; c < n; c++)
    if (!(planes[c] = bm3d_alloc (job, count * sizeof (float))))
      {
        free_planes (job, planes, c, count);
        return 0;
      }
  return 1;
}

/* Denoise tiles first .. first + n - 1 of the plan (row after row of
 * `tiles_x`) into `result`: each one's planes, then `func` on it or
 * `tiles` on all of them.  */
static bm3d_status
run_tile_group (const bm3d_image *in, bm3d_job *job, bm3d_tile_func func,
                bm3d_tiles_func tiles, int side, int tiles_x, int first,
                int n, float **result)
{
  int colour = in->channels - (in->has_alpha ? 1 : 0);
  int rows_y0, rows_y1;
  size_t image_px;
  bm3d_planes noisy[BM3D_TILES_IN_FLIGHT_MAX] = { { 0 } };
  bm3d_planes denoised[BM3D_TILES_IN_FLIGHT_MAX] = { { 0 } };
  bm3d_tile_rect t[BM3D_TILES_IN_FLIGHT_MAX];
  size_t px[BM3D_TILES_IN_FLIGHT_MAX];
  bm3d_status status = BM3D_OK;
  double t0;

  bm3d_job_rows (job, in->height, &rows_y0, &rows_y1);
  image_px = (size_t) in->width * (rows_y1 - rows_y0);
  job->tile_share = 0.0;
  for (int i = 0; i < n; i++)
    {
      bm3d_job_tile_rect (job, in->width, in->height, side,
                          (first + i) % tiles_x, (first + i) / tiles_x, &t[i]);
      noisy[i].width = denoised[i].width = t[i].x1 - t[i].x0;
      noisy[i].height = denoised[i].height = t[i].y1 - t[i].y0;
      noisy[i].channels = denoised[i].channels = colour;
      for (int c = 0; c < colour; c++)
        noisy[i].sigma[c] = denoised[i].sigma[c] = job->sigma[c];
      px[i] = (size_t) noisy[i].width * noisy[i].height;
      job->tile_share += (double) (t[i].cx1 - t[i].cx0)
                         * (t[i].cy1 - t[i].cy0) / image_px;
    }
  if (job->tick (job, 0.0))
    {
      bm3d_job_message (job, "cancelled");
      return BM3D_ERR_CANCELLED;
    }
  for (int i = 0; i < n && status == BM3D_OK; i++)
    if (!alloc_planes (job, noisy[i].plane, colour, px[i])
        || !alloc_planes (job, denoised[i].plane, colour, px[i]))
      {
        bm3d_job_message (job, "out of memory for a %dx%d tile",
                          noisy[i].width, noisy[i].height);
        status = BM3D_ERR_OUT_OF_MEMORY;
      }
  if (status == BM3D_OK)
    {
      t0 = bm3d_seconds ();
      for (int i = 0; i < n; i++)
        extract_tile (in, &t[i], &noisy[i], bm3d_job_colour_fwd (job),
                      job->threads);
      bm3d_job_trace (job, "stage extract_tile %.3f ms",
                      1e3 * (bm3d_seconds () - t0));
      status = tiles ? tiles (noisy, denoised, n, job)
                     : func (&noisy[0], &denoised[0], job);
    }
  t0 = bm3d_seconds ();
  for (int i = 0; i < n && status == BM3D_OK; i++)
    store_tile_core (&denoised[i], &t[i], result, in->width, job->threads);
  bm3d_job_trace (job, "stage store_tile_core %.3f ms",
                  1e3 * (bm3d_seconds () - t0));
  for (int i = 0; i < n; i++)
    {
      free_planes (job, noisy[i].plane, colour, px[i]);
      free_planes (job, denoised[i].plane, colour, px[i]);
    }
  job->tile_base += job->tile_share;
  return status;
}

bm3d_status
bm3d_run_tiled (const bm3d_image *in, bm3d_image *out, bm3d_job *job,
                bm3d_tile_func func, bm3d_tiles_func tiles, int in_flight,
                int tile_side)
{
  int colour = in->channels - (in->has_alpha ? 1 : 0);
  int side = bm3d_tile_side_aligned (job, tile_side);
  float *result[BM3D_MAX_CHANNELS] = { NULL };
  size_t image_px = (size_t) in->width * in->height;
  bm3d_status status = BM3D_OK;
  int tiles_x, tiles_y, count, rows_y0, rows_y1;

  bm3d_job_tile_grid (job, in->width, in->height, side, &tiles_x, &tiles_y);
  bm3d_job_rows (job, in->height, &rows_y0, &rows_y1);
  count = tiles_x * tiles_y;
  if (!tiles || in_flight < 1)
    in_flight = 1;
  if (in_flight > BM3D_TILES_IN_FLIGHT_MAX)
    in_flight = BM3D_TILES_IN_FLIGHT_MAX;

  if (!alloc_planes (job, result, colour, image_px))
    {
      bm3d_job_message (job, "out of memory for a %dx%d image",
                        in->width, in->height);
      return BM3D_ERR_OUT_OF_MEMORY;
    }

  for (int first = 0; first < count && status == BM3D_OK; first += in_flight)
    status = run_tile_group (in, job, func, tiles, side, tiles_x, first,
                             count - first < in_flight ? count - first
                                                       : in_flight,
                             result);

  if (status == BM3D_OK)
    {
      double t0 = bm3d_seconds ();

      write_output (in, out, result, colour, bm3d_job_colour_inv (job),
                    rows_y0, rows_y1, job->threads);
      bm3d_job_trace (job, "stage write_output %.3f ms",
                      1e3 * (bm3d_seconds () - t0));
      /* tile_base is already 1 here: report exactly 1, not 1 + share.  */
      job->tile_base = 1.0;
      job->tile_share = 0.0;
      job->tick (job, 1.0);
    }
  free_planes (job, result, colour, image_px);
  return status;
}
