/* The engine's dispatcher: checks the call, picks the backend, falls back
 * from CUDA to the CPU, and feeds the backend tile by tile in a planar,
 * colour-transformed form.  The algorithms live in their backends.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Width and height above this are refused: the engine indexes pixels with
 * int and a plane with size_t, and no photograph is this large.  */
#define BM3D_MAX_SIDE   (1 << 20)
#define BM3D_MAX_PIXELS ((size_t) 1 << 31)


void
bm3d_params_init (bm3d_params *params)
{
  memset (params, 0, sizeof *params);
  params->sigma = 25.0f;
  params->mode = BM3D_MODE_BM3D;
  params->backend = BM3D_BACKEND_AUTO;
}

const char *
bm3d_status_string (bm3d_status status)
{
  switch (status)
    {
    case BM3D_OK:                      return "success";
    case BM3D_ERR_INVALID_SIZE:        return "invalid image size";
    case BM3D_ERR_INVALID_STRIDE:      return "invalid row stride";
    case BM3D_ERR_INVALID_SIGMA:       return "invalid sigma";
    case BM3D_ERR_INVALID_ARGUMENT:    return "invalid argument";
    case BM3D_ERR_OUT_OF_MEMORY:       return "out of memory";
    case BM3D_ERR_CANCELLED:           return "cancelled";
    case BM3D_ERR_BACKEND_UNAVAILABLE: return "backend unavailable";
    case BM3D_ERR_BACKEND_FAILED:      return "backend failed";
    case BM3D_ERR_NOT_IMPLEMENTED:     return "not implemented";
    }
  return "unknown error";
}

static const char *const mode_names[] = { "bm3d", "bm3d-fast", "nlm", "isoline" };
static const char *const backend_names[] = { "auto", "cpu", "cuda" };

const char *
bm3d_mode_name (bm3d_mode mode)
{
  return (unsigned) mode < 4 ? mode_names[mode] : "unknown";
}

const char *
bm3d_backend_name (bm3d_backend backend)
{
  return (unsigned) backend < 3 ? backend_names[backend] : "unknown";
}

static int
parse_name (const char *name, const char *const *names, int n)
{
  for (int i = 0; name && i < n; i++)
    if (strcmp (name, names[i]) == 0)
      return i;
  return -1;
}

int
bm3d_mode_parse (const char *name)
{
  return parse_name (name, mode_names, 4);
}

int
bm3d_backend_parse (const char *name)
{
  return parse_name (name, backend_names, 3);
}

static const char *const variant_names[] = { "hybrid", "pipd" };

const char *
bm3d_isoline_variant_name (bm3d_isoline_variant variant)
{
  return (unsigned) variant < 2 ? variant_names[variant] : "unknown";
}

int
bm3d_isoline_variant_parse (const char *name)
{
  return parse_name (name, variant_names, 2);
}

/* ---- validation ------------------------------------------------------ */

bm3d_status
bm3d_check_image (const bm3d_image *img, const char *what, bm3d_job *job)
{
  int colour;

  if (!img || !img->data)
    {
      bm3d_job_message (job, "%s image is missing", what);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (img->width < 1 || img->height < 1
      || img->width > BM3D_MAX_SIDE || img->height > BM3D_MAX_SIDE
      || (size_t) img->width * img->height > BM3D_MAX_PIXELS)
    {
      bm3d_job_message (job, "%s image size %dx%d is not supported "
                        "(1x1 up to %zu pixels)", what, img->width,
                        img->height, BM3D_MAX_PIXELS);
      return BM3D_ERR_INVALID_SIZE;
    }
  colour = img->channels - (img->has_alpha ? 1 : 0);
  if (img->channels < 1 || img->channels > 4 || (colour != 1 && colour != 3))
    {
      bm3d_job_message (job, "%s image has %d channel(s)%s; expected gray, "
                        "gray+alpha, RGB or RGBA", what, img->channels,
                        img->has_alpha ? " with alpha" : "");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (img->stride < (size_t) img->width * img->channels)
    {
      bm3d_job_message (job, "%s image row stride %zu is smaller than a row "
                        "(%zu values)", what, img->stride,
                        (size_t) img->width * img->channels);
      return BM3D_ERR_INVALID_STRIDE;
    }
  return BM3D_OK;
}

static int
strength_ok (bm3d_job *job, const char *name, float v)
{
  if (v == 0.0f || (isfinite (v) && v >= BM3D_STRENGTH_MIN
                    && v <= BM3D_STRENGTH_MAX))
    return 1;
  bm3d_job_message (job, "%s must be from %g to %g (got %g)", name,
                    (double) BM3D_STRENGTH_MIN, (double) BM3D_STRENGTH_MAX,
                    (double) v);
  return 0;
}

/* The noise model: sigma for white noise; for a profile, one that fits
 * the image's colour channels (`colour`, 0 when not known yet) and
 * strengths in range.  */
static bm3d_status
check_noise (const bm3d_params *params, int colour, bm3d_job *job)
{
  if (params->noise == BM3D_NOISE_WHITE)
    {
      if (!isfinite (params->sigma)
          || params->sigma <= BM3D_SIGMA_MIN_EXCLUSIVE
          || params->sigma > BM3D_SIGMA_MAX)
        {
          bm3d_job_message (job, "sigma must be a number above 0 and at most "
                            "255 (got %g)", (double) params->sigma);
          return BM3D_ERR_INVALID_SIGMA;
        }
      return BM3D_OK;
    }
  if (params->noise != BM3D_NOISE_PROFILE)
    {
      bm3d_job_message (job, "unknown noise model %d", (int) params->noise);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (!strength_ok (job, "strength", params->strength)
      || !strength_ok (job, "chroma strength", params->chroma_strength))
    return BM3D_ERR_INVALID_ARGUMENT;
  if (params->profile)
    {
      bm3d_noise_profile check = *params->profile;
      char why[200];

      if (bm3d_noise_profile_update (&check, why, sizeof why) != BM3D_OK)
        {
          bm3d_job_message (job, "invalid noise profile: %s", why);
          return BM3D_ERR_INVALID_ARGUMENT;
        }
      if (colour && check.channels != colour)
        {
          bm3d_job_message (job, "the noise profile is for %s images, this "
                            "one is %s", check.channels == 3 ? "colour"
                            : "gray", colour == 3 ? "colour" : "gray");
          return BM3D_ERR_INVALID_ARGUMENT;
        }
    }
  return BM3D_OK;
}

static bm3d_status
check_call (const bm3d_image *in, const bm3d_image *out,
            const bm3d_params *params, bm3d_job *job)
{
  bm3d_status status;

  if (!params)
    {
      bm3d_job_message (job, "parameters are missing");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if ((status = bm3d_check_image (in, "input", job)) != BM3D_OK
      || (status = bm3d_check_image (out, "output", job)) != BM3D_OK)
    return status;
  if (in->width != out->width || in->height != out->height
      || in->channels != out->channels || in->has_alpha != out->has_alpha)
    {
      bm3d_job_message (job, "output image must have the input's size and "
                        "channels");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (in->data == out->data)
    {
      bm3d_job_message (job, "output image must not be the input image");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if ((status = check_noise (params, in->channels - (in->has_alpha ? 1 : 0),
                             job)) != BM3D_OK)
    return status;
  if ((unsigned) params->mode > BM3D_MODE_ISOLINE)
    {
      bm3d_job_message (job, "unknown mode %d", (int) params->mode);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if ((unsigned) params->backend > BM3D_BACKEND_CUDA)
    {
      bm3d_job_message (job, "unknown backend %d", (int) params->backend);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (params->device < 0)
    {
      bm3d_job_message (job, "CUDA device must be 0 or more");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (params->threads < 0)
    {
      bm3d_job_message (job, "thread count must be 0 (all cores) or more");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  return BM3D_OK;
}

/* ---- tiling and colour ----------------------------------------------- */

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

/* Inverse colour transform into `out`; alpha copied bit-exact.  */
static void
write_output (const bm3d_image *in, bm3d_image *out, float **planes,
              int colour, const float (*inv)[3], int threads)
{
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads)
#endif
  for (int y = 0; y < in->height; y++)
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
  size_t image_px = (size_t) in->width * in->height;
  bm3d_planes noisy[BM3D_TILES_IN_FLIGHT_MAX] = { { 0 } };
  bm3d_planes denoised[BM3D_TILES_IN_FLIGHT_MAX] = { { 0 } };
  bm3d_tile_rect t[BM3D_TILES_IN_FLIGHT_MAX];
  size_t px[BM3D_TILES_IN_FLIGHT_MAX];
  bm3d_status status = BM3D_OK;
  double t0;

  job->tile_share = 0.0;
  for (int i = 0; i < n; i++)
    {
      bm3d_tile_rect_for (in->width, in->height, side, job->margin,
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
  int tiles_x, tiles_y, count;

  tiles_x = (in->width + side - 1) / side;
  tiles_y = (in->height + side - 1) / side;
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
                    job->threads);
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

/* ---- the algorithms ---------------------------------------------------- */

/* Is `v` 0 (the default) or within lo..hi?  Refuses with a message.  */
static int
option_ok (bm3d_job *job, const char *name, double v, double lo, double hi)
{
  if (v == 0.0 || (isfinite (v) && v >= lo && v <= hi))
    return 1;
  bm3d_job_message (job, "%s must be from %g to %g (or 0 for the default; "
                    "got %g)", name, lo, hi, v);
  return 0;
}

static int
odd_option_ok (bm3d_job *job, const char *name, int v, int lo, int hi)
{
  if (!option_ok (job, name, v, lo, hi))
    return 0;
  if (v == 0 || v % 2 == 1)
    return 1;
  bm3d_job_message (job, "%s must be odd (got %d)", name, v);
  return 0;
}

static int
align_up (int v, int a)
{
  return (v + a - 1) / a * a;
}

/* A photograph's processed noise: the luminance keeps its profile's
 * shape, each coefficient's variance at least PROCESSED_FLOOR times the
 * largest; the chrominances get white noise's, at the luminance's
 * white level.  Measured on the shared real photographs
 * (docs/camera-noise.md): the profile of the flattest blocks, where
 * the camera's noise reduction and JPEG left least, underrates the
 * noise of textured areas at the higher frequencies, and its chroma
 * levels (JPEG flattens the chroma of flat areas to its rounding) far
 * more: 0.5 dB of the blind result's 0.6 dB gap to the best single
 * sigma.  */
#define PROCESSED_FLOOR 0.5f

/* out = var * scale, where `processed` each at least PROCESSED_FLOOR
 * times the largest.  */
static void
processed_floor (const float *var, int processed, float scale, float *out)
{
  float floor = 0.0f;

  if (processed)
    for (int i = 0; i < BM3D_PATCH_AREA; i++)
      floor = fmaxf (floor, PROCESSED_FLOOR * var[i]);
  for (int i = 0; i < BM3D_PATCH_AREA; i++)
    out[i] = fmaxf (var[i], floor) * scale;
}

/* The job's per-coefficient variances from its noise profile, times
 * the squared strengths (and the expert chroma scale).  */
static void
profile_tables (bm3d_job *job, float chroma_scale)
{
  const bm3d_noise_profile *prof = bm3d_job_noise_profile (job);
  const bm3d_params *params = job->params;
  float k = params->strength > 0.0f ? params->strength : 1.0f;
  float kc = params->chroma_strength > 0.0f ? params->chroma_strength : 1.0f;

  if (chroma_scale > 0.0f)
    kc *= chroma_scale;
  for (int c = 0; c < job->channels; c++)
    {
      float g = (c == 0 ? k : k * kc) * job->photo_gain;

      if (job->processed_noise && c > 0)
        {
          /* White, at the luminance's level in RGB terms.  */
          float s = prof->sigma_white * g * bm3d_colour_noise_gain[c];

          for (int i = 0; i < BM3D_PATCH_AREA; i++)
            job->var_hard[c][i] = job->var_wiener[c][i] = s * s;
          job->sigma[c] = s;
          continue;
        }
      processed_floor (prof->var_hard[c], job->processed_noise, g * g,
                       job->var_hard[c]);
      processed_floor (prof->var_wiener[c], job->processed_noise, g * g,
                       job->var_wiener[c]);
      job->sigma[c] = prof->sigma[c] * g;
    }
}

static bm3d_status
setup_bm3d (bm3d_job *job)
{
  const bm3d_bm3d_options *o = &job->params->bm3d;
  bm3d_profile *p = &job->profile;
  bm3d_phase_profile *phase[2] = { &p->hard, &p->wiener };
  const int group[2] = { o->group_max_hard, o->group_max_wiener };

  if (!odd_option_ok (job, "search window", o->search, 9, 75)
      || !option_ok (job, "hard-threshold group size", o->group_max_hard, 1,
                     BM3D_GROUP_MAX)
      || !option_ok (job, "Wiener group size", o->group_max_wiener, 1,
                     BM3D_GROUP_MAX)
      || !option_ok (job, "reference step", o->step, 1, 8)
      || !option_ok (job, "lambda_3d", o->lambda_3d, 1.0, 5.0)
      || !option_ok (job, "chroma sigma scale", o->chroma_scale, 0.25, 4.0))
    return BM3D_ERR_INVALID_ARGUMENT;
  for (int i = 0; i < 2; i++)
    if (group[i] && bm3d_pow2_floor (group[i]) != group[i])
      {
        bm3d_job_message (job, "group sizes must be powers of two (got %d)",
                          group[i]);
        return BM3D_ERR_INVALID_ARGUMENT;
      }

  bm3d_profile_for_sigma (job->white_sigma, p);
  for (int i = 0; i < 2; i++)
    {
      if (o->search)
        phase[i]->search = o->search;
      if (o->step)
        phase[i]->step = o->step;
      if (group[i])
        phase[i]->group_max = group[i];
    }
  if (o->lambda_3d > 0.0f)
    p->hard.lambda_3d = o->lambda_3d;
  if (o->chroma_scale > 0.0f && job->channels == 3)
    job->sigma[1] *= o->chroma_scale, job->sigma[2] *= o->chroma_scale;
  if (job->noise_profile)
    profile_tables (job, o->chroma_scale);

  job->phases = job->params->mode == BM3D_MODE_BM3D ? 2 : 1;
  /* Both phases share the step.  The standard window keeps the standard
   * margin; a wider one reaches further.  */
  job->align = p->hard.step;
  job->margin = align_up (BM3D_TILE_MARGIN > p->hard.search / 2 + 29
                          ? BM3D_TILE_MARGIN : p->hard.search / 2 + 29,
                          job->align);
  return BM3D_OK;
}

static bm3d_status
setup_nlm (bm3d_job *job)
{
  const bm3d_nlm_options *o = &job->params->nlm;
  bm3d_nlm_profile *p = &job->nlm;

  if (!odd_option_ok (job, "NL-means patch size", o->patch, 1, 15)
      || !odd_option_ok (job, "NL-means search window", o->search, 3, 71)
      || !option_ok (job, "NL-means h", o->h, 1e-3, 1e4))
    return BM3D_ERR_INVALID_ARGUMENT;
  bm3d_nlm_profile_for_sigma (job->white_sigma, job->channels, p);
  if (o->patch)
    p->patch_radius = o->patch / 2;
  if (o->search)
    p->search_radius = o->search / 2;
  if (o->h > 0.0f)
    p->h = o->h;
  p->gaussian = o->gaussian != 0;
  /* A pixel's estimate averages the patches that cover it, and each of
   * those compares patches across the search window.  */
  job->margin = 2 * p->patch_radius + p->search_radius;
  job->align = 1;
  return BM3D_OK;
}

static bm3d_status
setup_isoline (bm3d_job *job)
{
  const bm3d_isoline_options *o = &job->params->isoline;
  bm3d_isoline_profile *p = &job->isoline;

  if ((unsigned) o->variant > BM3D_ISOLINE_PIPD)
    {
      bm3d_job_message (job, "unknown isoline variant %d", (int) o->variant);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (!option_ok (job, "isoline length", o->length_max, 2, 64)
      || !option_ok (job, "isoline segment", o->segment, 2, 16)
      || !option_ok (job, "isoline T_max", o->t_max, 1e-3, 1e3)
      || !option_ok (job, "isoline T2_max", o->t2_max, 1e-3, 1e3))
    return BM3D_ERR_INVALID_ARGUMENT;
  bm3d_isoline_profile_for_sigma (job->white_sigma, p);
  p->variant = o->variant;
  if (o->length_max)
    p->length_max = o->length_max;
  if (o->segment)
    p->segment = o->segment;
  if (o->t_max > 0.0f)
    p->t_max = o->t_max;
  if (o->t2_max > 0.0f)
    p->t2_max = o->t2_max;
  p->thicken = o->thicken != 0;
  if (p->segment > p->length_max)
    {
      bm3d_job_message (job, "isoline segment (%d) is longer than the "
                        "isoline (%d)", p->segment, p->length_max);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  /* A pixel's estimate reads its isoline and regions (the planes'
   * padding), and the residual step reads estimates around it.  */
  job->margin = bm3d_isoline_reach (p) + BM3D_ISOLINE_RESIDUAL;
  job->align = 1;
  return BM3D_OK;
}

#ifdef HAVE_CUDA
#define CUDA_BACKEND(tile, side, image) tile, side, image
#else
#define CUDA_BACKEND(tile, side, image) NULL, NULL, NULL
#endif

static const bm3d_algorithm algorithms[] =
{
  { BM3D_MODE_BM3D, BM3D_COLOUR_OPPONENT, 0, setup_bm3d,
    bm3d_cpu_tile, bm3d_cpu_tile_side,
    bm3d_cpu_tiles, bm3d_cpu_tiles_in_flight,
    CUDA_BACKEND (bm3d_cuda_tile, bm3d_cuda_tile_side, bm3d_cuda_image) },
  { BM3D_MODE_BM3D_FAST, BM3D_COLOUR_OPPONENT, 0, setup_bm3d,
    bm3d_cpu_tile, bm3d_cpu_tile_side,
    bm3d_cpu_tiles, bm3d_cpu_tiles_in_flight,
    CUDA_BACKEND (bm3d_cuda_tile, bm3d_cuda_tile_side, bm3d_cuda_image) },
  { BM3D_MODE_NLM, BM3D_COLOUR_RGB, 1, setup_nlm,
    bm3d_nlm_cpu_tile, bm3d_nlm_cpu_tile_side, NULL, NULL,
    CUDA_BACKEND (bm3d_nlm_cuda_tile, bm3d_nlm_cuda_tile_side,
                  bm3d_nlm_cuda_image) },
  { BM3D_MODE_ISOLINE, BM3D_COLOUR_OPPONENT, 0, setup_isoline,
    bm3d_isoline_cpu_tile, bm3d_isoline_cpu_tile_side, NULL, NULL,
    CUDA_BACKEND (bm3d_isoline_cuda_tile, bm3d_isoline_cuda_tile_side,
                  bm3d_isoline_cuda_image) },
};

/* ---- backends -------------------------------------------------------- */

int
bm3d_default_threads (void)
{
  long n = sysconf (_SC_NPROCESSORS_ONLN);

  return n > 0 ? (int) n : 1;
}

static bm3d_status
run_backend (const bm3d_image *in, bm3d_image *out, bm3d_job *job,
             bm3d_backend backend)
{
  const bm3d_algorithm *a = job->algorithm;

  job->tile_base = 0.0;
  job->report->backend_used = backend;
  if (backend == BM3D_BACKEND_CUDA)
    {
      /* Whole image on the device when it fits: no tiling or colour
       * transform on the host.  */
      bm3d_status status = a->cuda_image (in, out, job);

      if (status != BM3D_ERR_NOT_IMPLEMENTED)
        return status;
      return bm3d_run_tiled (in, out, job, a->cuda_tile, NULL, 1,
                             a->cuda_tile_side (job));
    }
  return bm3d_run_tiled (in, out, job, a->cpu_tile, a->cpu_tiles,
                         a->cpu_tiles
                         ? a->cpu_tiles_in_flight (job) : 1,
                         a->cpu_tile_side (job));
}

int
bm3d_cuda_error_recoverable (bm3d_status status)
{
  return status == BM3D_ERR_BACKEND_UNAVAILABLE
         || status == BM3D_ERR_BACKEND_FAILED
         || status == BM3D_ERR_OUT_OF_MEMORY;
}

/* Is CUDA usable for this job?  Writes the reason when not.  */
static int
cuda_usable (const bm3d_job *job, char *why, size_t why_len)
{
  if (!job->algorithm->cuda_tile)
    {
      snprintf (why, why_len, "built without CUDA support");
      return 0;
    }
  if (!bm3d_cuda_available (why, why_len))
    return 0;
  if (job->params->device >= bm3d_cuda_device_count ())
    {
      snprintf (why, why_len, "no CUDA device %d (this machine has %d)",
                job->params->device, bm3d_cuda_device_count ());
      return 0;
    }
  return 1;
}

/* Run on the backend asked for; under "auto", on the CPU when CUDA is
 * missing or fails, and say so.  */
static bm3d_status
run_with_fallback (const bm3d_image *in, bm3d_image *out, bm3d_job *job,
                   bm3d_backend wanted)
{
  char why[200] = "";
  bm3d_status status;

  if (wanted == BM3D_BACKEND_CPU)
    return run_backend (in, out, job, BM3D_BACKEND_CPU);

  if (!cuda_usable (job, why, sizeof why))
    {
      if (wanted == BM3D_BACKEND_CUDA)
        {
          bm3d_job_message (job, "CUDA backend unavailable: %s", why);
          return BM3D_ERR_BACKEND_UNAVAILABLE;
        }
      /* Automatic: say once why the work ran on the CPU, so a user who
       * expected the GPU learns what is missing.  */
      status = run_backend (in, out, job, BM3D_BACKEND_CPU);
      if (status == BM3D_OK)
        {
          job->report->fell_back = BM3D_FALLBACK_UNAVAILABLE;
          bm3d_job_message (job, "CUDA unavailable (%s); denoised on the CPU",
                            why);
        }
      return status;
    }

  status = run_backend (in, out, job, BM3D_BACKEND_CUDA);
  if (wanted == BM3D_BACKEND_AUTO && bm3d_cuda_error_recoverable (status))
    {
      char cuda_message[sizeof job->report->message];

      memcpy (cuda_message, job->report->message, sizeof cuda_message);
      job->report->seconds_phase[0] = job->report->seconds_phase[1] = 0.0;
      status = run_backend (in, out, job, BM3D_BACKEND_CPU);
      job->report->fell_back = BM3D_FALLBACK_FAILED;
      if (status == BM3D_OK)
        bm3d_job_message (job, "CUDA failed (%s); denoised on the CPU instead",
                          cuda_message);
    }
  return status;
}

static void job_noise (bm3d_job *job);

/* Fill the parts of `job` every algorithm shares.  */
static void
job_prepare (bm3d_job *job, const bm3d_image *in)
{
  const bm3d_params *params = job->params;

  job->algorithm = &algorithms[params->mode];
  job->colour_space = job->algorithm->colour_space;
  job->threads = params->threads > 0 ? params->threads : bm3d_default_threads ();
  job->channels = in->channels - (in->has_alpha ? 1 : 0);
  job_noise (job);
}

/* The noise a job's parameters follow (white_sigma, sigma[]) and, for
 * BM3D with a profile, noise_profile; setup_bm3d fills the tables.  The
 * profile, when estimated, is in job->estimated already.  */
static void
job_noise (bm3d_job *job)
{
  const bm3d_params *params = job->params;

  job->white_sigma = params->sigma;
  job->noise_profile = 0;
  if (params->noise == BM3D_NOISE_PROFILE)
    {
      float k = params->strength > 0.0f ? params->strength : 1.0f;
      float measured = bm3d_job_noise_profile (job)->sigma_white
                       * job->photo_gain;

      job->noise_profile = params->mode == BM3D_MODE_BM3D
                           || params->mode == BM3D_MODE_BM3D_FAST;
      /* Modes without a transform filter white noise of this sigma
       * alone: capped as --sigma auto caps it (photo_sigma ()), since
       * more is texture the profile took for noise.  The strength then
       * scales what is left, as it scales the profile.  */
      if (! job->noise_profile && measured > PHOTO_SIGMA_MAX)
        measured = PHOTO_SIGMA_MAX;
      job->white_sigma = measured * k;
      if (job->white_sigma > BM3D_SIGMA_MAX)
        job->white_sigma = BM3D_SIGMA_MAX;
    }
  for (int c = 0; c < job->channels; c++)
    job->sigma[c] = job->white_sigma
                    * (job->channels == 3
                       && job->colour_space == BM3D_COLOUR_OPPONENT
                       ? bm3d_colour_noise_gain[c] : 1.0f);
}

void
bm3d_backend_warm_up (const bm3d_params *params)
{
  if (params && params->backend == BM3D_BACKEND_CPU)
    return;
  bm3d_cuda_warm_up (params ? params->device : 0);
}

/* ---- auto: the CPU or the device for a job of known shape ----------
 *
 * What a CPU run costs, in seconds per pixel and colour channel per
 * thread, with each mode's default settings at sigma 20.  From the H100
 * machine's 16 host cores (the machine where the choice matters): one
 * 512x512 RGB JPEG (786,432 values), `bm3d-denoise --sigma 20 --mode M
 * --backend cpu`, whole process, five runs each at 5cdeaf2
 * (docs/user-wait.md), the middle of each range times 16 threads over
 * the values: BM3D 0.227-0.335 s, bm3d-fast 0.089-0.092, NL-means
 * 0.056-0.072, isoline 0.027-0.033.  Whole processes (reading and
 * writing the file included) on 16 threads, which a 512x512 image
 * keeps busy poorly: per thread that is 7 to 10 times what the 2-core
 * machine measures on one thread (the same photo, `-t 1`, engine time:
 * 0.575, 0.204, 0.136, 0.046 s), so the estimate runs high on fewer
 * threads and on larger images, which picks the device.  */
#define CPU_SECONDS_BM3D       5.72e-6
#define CPU_SECONDS_BM3D_FAST  1.84e-6
#define CPU_SECONDS_NLM        1.30e-6
#define CPU_SECONDS_ISOLINE    6.10e-7
/* Estimating a camera-noise profile from the image first (no profile
 * given): 0.014 s on one thread of the 2-core machine for the same
 * photo (isoline with and without --noise camera), times 8 as above.  */
#define CPU_SECONDS_PROFILE    1.4e-7

/* What using the device adds to a process on the H100 machine
 * (docs/user-wait.md): a program that creates the context, allocates,
 * launches one kernel and exits takes 0.29-0.33 s; inside a denoise of
 * a small photo 0.19-0.21 s of the creation was still waited for after
 * the read, in whole processes of 0.32-0.48 s against the CPU's
 * 0.03-0.34.  The GPU's own work is not counted on top, so the CPU is
 * picked only when it is done before the device would be.  */
#define CUDA_STARTUP_SECONDS   0.3

/* The settings the constants above were measured with.  */
#define COST_SIGMA             20.0f
#define COST_BM3D_SEARCH       39
#define COST_BM3D_STEP         3

static double
square (double v)
{
  return v * v;
}

/* How much more a BM3D job's matching costs than the default's: the
 * search window's area and the reference patches' density.  */
static double
bm3d_cost_scale (const bm3d_bm3d_options *o)
{
  int search = o->search > 0 ? o->search : COST_BM3D_SEARCH;
  int step = o->step > 0 ? o->step : COST_BM3D_STEP;

  return square ((double) search / COST_BM3D_SEARCH)
         * square ((double) COST_BM3D_STEP / step);
}

/* NL-means compares patches across its search window: its area against
 * the window sigma 20 gives (the table's windows grow with sigma).  */
static double
nlm_cost_scale (const bm3d_params *params, int channels)
{
  bm3d_nlm_profile measured, job;
  float sigma = params->noise == BM3D_NOISE_PROFILE ? PHOTO_SIGMA_MAX
                                                    : params->sigma;

  bm3d_nlm_profile_for_sigma (COST_SIGMA, channels, &measured);
  bm3d_nlm_profile_for_sigma (sigma, channels, &job);
  if (params->nlm.search > 0)
    job.search_radius = params->nlm.search / 2;
  return square ((2.0 * job.search_radius + 1.0)
                 / (2.0 * measured.search_radius + 1.0));
}

/* Seconds per pixel and channel on one thread for `params`.  */
static double
cpu_cost_per_value (const bm3d_params *params, int channels)
{
  double cost;

  switch (params->mode)
    {
    case BM3D_MODE_BM3D:
      cost = CPU_SECONDS_BM3D * bm3d_cost_scale (&params->bm3d);
      break;
    case BM3D_MODE_BM3D_FAST:
      cost = CPU_SECONDS_BM3D_FAST * bm3d_cost_scale (&params->bm3d);
      break;
    case BM3D_MODE_NLM:
      cost = CPU_SECONDS_NLM * nlm_cost_scale (params, channels);
      break;
    default:
      cost = CPU_SECONDS_ISOLINE;
      break;
    }
  if (params->noise == BM3D_NOISE_PROFILE && !params->profile)
    cost += CPU_SECONDS_PROFILE;
  return cost;
}

#ifdef HAVE_CUDA
/* The device's start-up estimate, or BM3D_CUDA_STARTUP_SECONDS.  */
static double
cuda_startup_seconds (void)
{
  const char *env = getenv ("BM3D_CUDA_STARTUP_SECONDS");
  char *end;
  double v;

  if (env && *env)
    {
      v = strtod (env, &end);
      if (*end == '\0' && v >= 0.0 && isfinite (v))
        return v;
    }
  return CUDA_STARTUP_SECONDS;
}
#endif

bm3d_backend
bm3d_backend_for_job (const bm3d_params *params, int width, int height,
                      int channels, int images, double *cpu_seconds,
                      double *startup_seconds)
{
  bm3d_params defaults;
  int threads;
  double cpu, startup = 0.0;

  if (!params)
    {
      bm3d_params_init (&defaults);
      params = &defaults;
    }
  threads = params->threads > 0 ? params->threads : bm3d_default_threads ();
  if (channels != 1)
    channels = 3;
  cpu = (unsigned) params->mode <= BM3D_MODE_ISOLINE
        && width > 0 && height > 0 && images > 0
        ? cpu_cost_per_value (params, channels) * width * height * channels
          * images / threads
        : HUGE_VAL;
#ifdef HAVE_CUDA
  startup = cuda_startup_seconds ();
#endif
  if (cpu_seconds)
    *cpu_seconds = cpu;
  if (startup_seconds)
    *startup_seconds = startup;
#ifdef HAVE_CUDA
  if (params->backend == BM3D_BACKEND_CUDA
      || (params->backend == BM3D_BACKEND_AUTO
          && (images != 1 || !(cpu < startup))))
    return BM3D_BACKEND_CUDA;
#endif
  return BM3D_BACKEND_CPU;
}

/* The device start-up a call waits for, counted apart from its work.  */
void
bm3d_job_wait_for_device (bm3d_job *job)
{
  if (job->params->backend != BM3D_BACKEND_CPU)
    job->report->seconds_startup += bm3d_cuda_wait_ready (job->params->device);
}

bm3d_status
bm3d_denoise (const bm3d_image *in, bm3d_image *out,
              const bm3d_params *params, bm3d_report *report)
{
  bm3d_report scratch;
  bm3d_job job;
  bm3d_status status;
  double start = bm3d_seconds ();

  if (!report)
    report = &scratch;
  memset (report, 0, sizeof *report);
  bm3d_job_init (&job, params, report);

  status = check_call (in, out, params, &job);
  if (status != BM3D_OK)
    return status;

  if (params->noise == BM3D_NOISE_PROFILE && params->profile)
    {
      /* Checked by check_call: the copy's derived values are filled.  */
      job.estimated = *params->profile;
      bm3d_noise_profile_update (&job.estimated, NULL, 0);
    }
  else if (params->noise == BM3D_NOISE_PROFILE)
    {
      /* Camera noise with no profile given: the input's own, estimated
       * on the device when it can (and so after its start).  */
      bm3d_job_wait_for_device (&job);
      status = bm3d_estimate_profile_job (in, &job, &job.estimated, 0.0);
      if (status != BM3D_OK)
        return status;
    }
  if (params->noise == BM3D_NOISE_PROFILE
      && (status = bm3d_photo_gain (in, &job)) != BM3D_OK)
    return status;
  job_prepare (&job, in);
  report->white_sigma = job.white_sigma;
  status = job.algorithm->setup (&job);
  /* As late as can be: the set-up above overlaps the device's start.  */
  if (status == BM3D_OK)
    {
      bm3d_job_wait_for_device (&job);
      status = run_with_fallback (in, out, &job, params->backend);
    }
  if (status == BM3D_OK && params->clipped && job.algorithm->unclips)
    bm3d_unclip (out, job.white_sigma, job.threads);
  report->seconds_total = bm3d_seconds () - start;
  return status;
}

/* Integer pixels on the device, converted there (job->pixels_in):
 * bm3d_denoise () without the float images.  */
bm3d_status
bm3d_denoise_on_device (const bm3d_pixels *in, bm3d_pixels *out,
                        const bm3d_params *params, bm3d_report *report)
{
  bm3d_image fin = { in->width, in->height, in->channels, in->has_alpha,
                     in->stride, (float *) in->data };
  bm3d_image fout = { out->width, out->height, out->channels,
                      out->has_alpha, out->stride, (float *) out->data };
  bm3d_params clipped = *params;
  bm3d_unclip_table *unclip = NULL;
  char why[200];
  bm3d_job job;
  bm3d_status status;
  double start = bm3d_seconds ();

  memset (report, 0, sizeof *report);
  /* Integer values are within 0..255 (bm3d_image_within_range).  */
  clipped.clipped = 1;
  bm3d_job_init (&job, &clipped, report);
  if ((status = check_call (&fin, &fout, &clipped, &job)) != BM3D_OK)
    return status;
  /* A profile is estimated, and a photograph's gain measured, from
   * floats on the host.  */
  if (params->backend == BM3D_BACKEND_CPU
      || params->noise == BM3D_NOISE_PROFILE)
    return BM3D_ERR_NOT_IMPLEMENTED;
  job_prepare (&job, &fin);
  if (!cuda_usable (&job, why, sizeof why))
    return BM3D_ERR_NOT_IMPLEMENTED;
  report->white_sigma = job.white_sigma;
  if ((status = job.algorithm->setup (&job)) != BM3D_OK)
    return status;
  if (job.algorithm->unclips)
    {
      if (!(unclip = (bm3d_unclip_table *) malloc (sizeof *unclip)))
        {
          bm3d_job_message (&job, "out of memory for the unclip table");
          return BM3D_ERR_OUT_OF_MEMORY;
        }
      bm3d_unclip_table_init (unclip, job.white_sigma);
      job.unclip = unclip;
    }
  job.pixels_in = in;
  job.pixels_out = out;
  bm3d_job_wait_for_device (&job);
  report->backend_used = BM3D_BACKEND_CUDA;
  status = job.algorithm->cuda_image (&fin, &fout, &job);
  free (unclip);
  report->seconds_total = bm3d_seconds () - start;
  return status;
}

bm3d_status
bm3d_context_margin (const bm3d_params *params, int colour_channels,
                     int *margin, int *align, bm3d_report *report)
{
  bm3d_report scratch;
  bm3d_job job;
  bm3d_status status;

  if (!report)
    report = &scratch;
  memset (report, 0, sizeof *report);
  bm3d_job_init (&job, params, report);
  if (!params || !margin || !align)
    {
      bm3d_job_message (&job, "parameters are missing");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if ((status = check_noise (params, colour_channels, &job)) != BM3D_OK)
    return status;
  if ((unsigned) params->mode > BM3D_MODE_ISOLINE)
    {
      bm3d_job_message (&job, "unknown mode %d", (int) params->mode);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (colour_channels != 1 && colour_channels != 3)
    {
      bm3d_job_message (&job, "colour channels must be 1 or 3 (got %d)",
                        colour_channels);
      return BM3D_ERR_INVALID_ARGUMENT;
    }

  /* What bm3d_denoise () would set up for such an image, without one.  */
  job.algorithm = &algorithms[params->mode];
  job.colour_space = job.algorithm->colour_space;
  job.channels = colour_channels;
  if (params->noise == BM3D_NOISE_PROFILE && params->profile)
    {
      job.estimated = *params->profile;
      bm3d_noise_profile_update (&job.estimated, NULL, 0);
    }
  else if (params->noise == BM3D_NOISE_PROFILE)
    /* Not estimated yet: the margins do not depend on the level below
     * sigma 40, and a photograph's noise is below it.  */
    bm3d_noise_profile_init_white (&job.estimated, colour_channels, 25.0f);
  job_noise (&job);
  for (int c = 0; c < colour_channels; c++)
    job.sigma[c] = job.white_sigma;
  status = job.algorithm->setup (&job);
  if (status != BM3D_OK)
    return status;
  *margin = job.margin;
  *align = job.align > 0 ? job.align : 1;
  return BM3D_OK;
}
