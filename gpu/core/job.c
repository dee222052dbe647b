/* Helpers every backend shares (see job.h).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "job.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const float identity[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };

static int
job_tick (bm3d_job *job, double tile_fraction)
{
  const bm3d_params *params = job->params;
  double f;

  if (!params->progress)
    return 0;
  if (tile_fraction < 0.0)
    tile_fraction = 0.0;
  if (tile_fraction > 1.0)
    tile_fraction = 1.0;
  f = job->tile_base + job->tile_share * tile_fraction;
  return params->progress (f, params->progress_data) != 0;
}

void
bm3d_job_init (bm3d_job *job, const bm3d_params *params, bm3d_report *report)
{
  memset (job, 0, sizeof *job);
  job->params = params;
  job->report = report;
  job->tick = job_tick;
  job->align = 1;
  job->photo_gain = 1.0f;
  bm3d_env_read (&job->env);
}

const bm3d_noise_profile *
bm3d_job_noise_profile (const bm3d_job *job)
{
  return &job->noise_profile;
}

double
bm3d_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int
bm3d_default_threads (void)
{
  long n = sysconf (_SC_NPROCESSORS_ONLN);

  return n > 0 ? (int) n : 1;
}

int
bm3d_params_threads (const bm3d_params *params)
{
  return params->threads > 0 ? params->threads : bm3d_default_threads ();
}

void
bm3d_job_message (bm3d_job *job, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  vsnprintf (job->report->message, sizeof job->report->message, format, args);
  va_end (args);
}

void
bm3d_job_trace (const bm3d_job *job, const char *format, ...)
{
  va_list args;

  if (!job->env.cpu_trace)
    return;
  fputs ("trace ", stderr);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
}

void
bm3d_job_note_host_bytes (bm3d_job *job, size_t bytes)
{
  if (bytes > job->report->peak_host_bytes)
    job->report->peak_host_bytes = bytes;
}

void *
bm3d_alloc (bm3d_job *job, size_t bytes)
{
  /* 64-byte alignment: whole cache lines, and aligned vector loads.  */
  size_t rounded = (bytes + 63) & ~(size_t) 63;
  void  *ptr = rounded ? aligned_alloc (64, rounded) : NULL;

  if (ptr)
    {
      job->host_bytes_now += rounded;
      bm3d_job_note_host_bytes (job, job->host_bytes_now);
    }
  return ptr;
}

void
bm3d_free (bm3d_job *job, void *ptr, size_t bytes)
{
  if (!ptr)
    return;
  job->host_bytes_now -= (bytes + 63) & ~(size_t) 63;
  free (ptr);
}

void
bm3d_tile_rect_for (int width, int height, int side, int margin, int ix,
                    int iy, bm3d_tile_rect *t)
{
  t->cx0 = ix * side;
  t->cy0 = iy * side;
  t->cx1 = t->cx0 + side < width ? t->cx0 + side : width;
  t->cy1 = t->cy0 + side < height ? t->cy0 + side : height;
  t->x0 = t->cx0 - margin > 0 ? t->cx0 - margin : 0;
  t->y0 = t->cy0 - margin > 0 ? t->cy0 - margin : 0;
  t->x1 = t->cx1 + margin < width ? t->cx1 + margin : width;
  t->y1 = t->cy1 + margin < height ? t->cy1 + margin : height;
  /* A tile narrower than a patch can only come from a tiny image.  */
  if (t->x1 - t->x0 < BM3D_PATCH)
    t->x1 = t->x0 + BM3D_PATCH;
  if (t->y1 - t->y0 < BM3D_PATCH)
    t->y1 = t->y0 + BM3D_PATCH;
}

void
bm3d_job_rows (const bm3d_job *job, int height, int *y0, int *y1)
{
  int windowed = job->rows_y1 > job->rows_y0;

  *y0 = windowed ? job->rows_y0 : 0;
  *y1 = windowed ? job->rows_y1 : height;
}

void
bm3d_job_tile_grid (const bm3d_job *job, int width, int height, int side,
                    int *tiles_x, int *tiles_y)
{
  int y0, y1;

  bm3d_job_rows (job, height, &y0, &y1);
  *tiles_x = (width + side - 1) / side;
  *tiles_y = (y1 - y0 + side - 1) / side;
}

void
bm3d_job_tile_rect (const bm3d_job *job, int width, int height, int side,
                    int ix, int iy, bm3d_tile_rect *t)
{
  int y0, y1;

  bm3d_job_rows (job, height, &y0, &y1);
  bm3d_tile_rect_for (width, y1 - y0, side, job->margin, ix, iy, t);
  if (y0 == 0 && y1 == height)
    return;
  /* The core among the rows written; the context from every row.  */
  t->cy0 += y0;
  t->cy1 += y0;
  t->y0 = t->cy0 - job->margin > 0 ? t->cy0 - job->margin : 0;
  t->y1 = t->cy1 + job->margin < height ? t->cy1 + job->margin : height;
  if (t->y1 - t->y0 < BM3D_PATCH)
    t->y1 = t->y0 + BM3D_PATCH;
}

int
bm3d_tile_side_aligned (const bm3d_job *job, int side)
{
  int align = job->align > 0 ? job->align : 1;
  int least = (3 * BM3D_PATCH + align - 1) / align * align;

  side -= side % align;
  return side < least ? least : side;
}

const float (*bm3d_job_colour_fwd (const bm3d_job *job))[3]
{
  return job->colour_space == BM3D_COLOUR_RGB ? identity : bm3d_colour_fwd;
}

const float (*bm3d_job_colour_inv (const bm3d_job *job))[3]
{
  return job->colour_space == BM3D_COLOUR_RGB ? identity : bm3d_colour_inv;
}
