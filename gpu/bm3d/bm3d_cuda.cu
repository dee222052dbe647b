/* BM3D Denoise — the CUDA backend's host side.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The same algorithm as the CPU backend (see the team's algorithm notes
 * in engine.h and bm3d_tables.h), its steps in one file each, as
 * bm3d_cpu.c names them (bm3d_cuda_kernels.cuh lists the files):
 *
 *   block_match      bm3d_cuda_match.cu, and block_match_rows
 *                    (bm3d_cuda_match_rows.cu), which takes its place on
 *                    large tiles at the reference step 3: a warp per row
 *                    of 30 references, whose distance products it shares
 *                    (24 multiply-adds a distance instead of 64)
 *   collaborative_filter_hard / _wiener
 *                    bm3d_cuda_filter.cu
 *   aggregate        bm3d_cuda_aggregate.cu
 *
 * This file holds what the host does: the tables in the kernels'
 * constant memory, the tile's buffers carved from the device's
 * workspace, the order of the launches of a phase (run_phase), both
 * phases on a tile, and the entry points for a tile and a whole image.
 * References are processed in batches of rows, so the match lists stay
 * small and progress can be reported between batches.  */
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/cuda_device.cuh"
#include "bm3d_cuda_kernels.cuh"

/* References per SM a batch needs before block_match_rows beats
 * block_match: 16 of its warps (four blocks) of 30 references.  */
#ifndef ROW_MATCH_REFS_PER_SM
#define ROW_MATCH_REFS_PER_SM (16 * 30)
#endif

/* Rows of patch norms defined above and below a tile (MATCH_NORM_NONE),
 * for a search window of up to 75 (bm3d.h): block_match_rows reads a
 * candidate's norm from the plane without a test.  */
#define NORM_PAD_ROWS 37

/* References per batch (about): bounds the match lists' memory.  */
#define BATCH_REFS   (1 << 17)

/* ---- host side: the matcher ------------------------------------------ */

/* ---- host side: sizes ------------------------------------------------ */

/* Planes of a tile on the device: noisy, basic, numerator and patch
 * weights per channel, and the patch norms.  */
static size_t
plane_bytes_per_pixel (int channels)
{
  return sizeof (float) * (4 * (size_t) channels + 1);
}

static size_t
batch_rows_for (const ref_axis *ax, int rect)
{
  size_t rows = BATCH_REFS / (size_t) ax->n;

  rows -= rows % rect;
  return rows < (size_t) rect ? (size_t) rect : rows;
}

/* Per batch reference: its count and list, and the row matcher's list
 * of 64-bit keys while it searches (block_match_rows).  */
#define REF_BYTES ((BM3D_GROUP_MAX + 1) * sizeof (int) \
                   + BM3D_GROUP_MAX * sizeof (uint64_t))

static size_t
list_bytes (int batch_rows, int nx)
{
  return (size_t) batch_rows * nx * REF_BYTES + 256;
}

/* Device bytes beside a tile's planes: the lists of a batch at the
 * largest tile, and the norms' padding rows.  */
static size_t
tile_fixed_bytes (void)
{
  return (size_t) (BATCH_REFS + 16 * 4096) * REF_BYTES
         + 2 * NORM_PAD_ROWS * 4096 * sizeof (float);
}

extern "C" int
bm3d_cuda_tile_side (const bm3d_job *job)
{
  size_t budget = bm3d_cuda_budget_for (job);
  size_t lists, pixels;
  int side;

  /* Lists: at most about BATCH_REFS references plus one block row.  */
  lists = tile_fixed_bytes ();
  if (budget < lists + ((size_t) 64 << 20))
    return 3 * BM3D_PATCH * 8;
  pixels = (budget - lists) / plane_bytes_per_pixel (job->channels);
  side = (int) sqrt ((double) pixels) - 2 * job->margin;
  if (side > 4096)
    side = 4096;
  if (side < 3 * BM3D_PATCH * 8)
    side = 3 * BM3D_PATCH * 8;
  return side;
}

/* ---- host side: one tile --------------------------------------------- */

static bm3d_status
upload_tables (bm3d_job *job)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const bm3d_profile *pr = &job->bm3d_settings;
  int key = pr->hard.transform_2d * 4 + pr->wiener.transform_2d;
  bm3d_transform_2d t[2];
  float tf[4][BM3D_PATCH][BM3D_PATCH];
  float kaiser[2][BM3D_PATCH][BM3D_PATCH];
  float kaiser_1d[2][BM3D_PATCH];
  double k1[BM3D_PATCH];

  bm3d_transform_2d_init (pr->hard.transform_2d, &t[0]);
  bm3d_transform_2d_init (pr->wiener.transform_2d, &t[1]);
  memcpy (tf[0], t[0].fwd, sizeof tf[0]);
  memcpy (tf[1], t[0].inv, sizeof tf[1]);
  memcpy (tf[2], t[1].fwd, sizeof tf[2]);
  memcpy (tf[3], t[1].inv, sizeof tf[3]);
  bm3d_kaiser_window (pr->hard.kaiser_beta, kaiser[0]);
  bm3d_kaiser_window (pr->wiener.kaiser_beta, kaiser[1]);
  for (int ph = 0; ph < 2; ph++)
    {
      bm3d_kaiser_1d (ph == 0 ? pr->hard.kaiser_beta : pr->wiener.kaiser_beta,
                      k1);
      for (int i = 0; i < BM3D_PATCH; i++)
        kaiser_1d[ph][i] = (float) k1[i];
    }
  /* A camera-noise job's variances are its own: sent every job.  */
  if (job->per_coefficient_noise)
    BM3D_CUDA_CHECK (job, bm3d_cuda_filter_profile_tables
                            (job->var_hard, job->var_wiener,
                             pr->hard.lambda_3d, dev->stream));
  /* The betas are part of the key through their bits.  */
  key ^= (int) (pr->hard.kaiser_beta * 1000) * 16
         ^ (int) (pr->wiener.kaiser_beta * 1000) * 65536;
  if (key == dev->bm3d_tables_for)
    return BM3D_OK;
  BM3D_CUDA_CHECK (job, bm3d_cuda_filter_tables (tf, kaiser, dev->stream));
  BM3D_CUDA_CHECK (job, bm3d_cuda_aggregate_tables (kaiser_1d, dev->stream));
  BM3D_CUDA_CHECK (job, cudaStreamSynchronize (dev->stream));
  dev->bm3d_tables_for = key;
  return BM3D_OK;
}

typedef struct
{
  int           width, height, channels;
  size_t        count;
  float        *noisy[BM3D_MAX_CHANNELS];
  float        *basic[BM3D_MAX_CHANNELS];
  float        *num[BM3D_MAX_CHANNELS];
  float        *weights[BM3D_MAX_CHANNELS];
  float        *norm_rows;      /* norms, NORM_PAD_ROWS rows above row 0 */
  int          *lists;
  int          *counts;
  uint64_t     *keys;
  int           batch_rows;
  size_t        plane_floats;   /* floats a plane holds, padding included */
} tile_buffers;

/* One phase: block matching and collaborative filtering batch by batch,
 * then aggregation into `result`.  */
static bm3d_status
run_phase (const tile_buffers *tb, int phase, bm3d_job *job,
           int *batches_done, int batches_total, float *const *result,
           const float *sigma)
{
  const bm3d_phase_profile *pp = phase == 0 ? &job->bm3d_settings.hard
                                            : &job->bm3d_settings.wiener;
  const bool wiener = phase == 1;
  const ref_axis ax = ref_axis_for (tb->width, pp->step);
  const ref_axis ay = ref_axis_for (tb->height, pp->step);
  const int radius = pp->search / 2;
  float *const *match_plane = wiener ? tb->basic : tb->noisy;
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const int group_max = pp->group_max < BM3D_GROUP_MAX ? pp->group_max
                                                       : BM3D_GROUP_MAX;
  const filter_config fc = bm3d_cuda_filter_config (wiener, group_max,
                                                    dev->smem_optin);
  match_args ma;
  filter_args fa;

  float *norms = tb->norm_rows + (size_t) NORM_PAD_ROWS * tb->width;
  bm3d_cuda_patch_norms_launch (match_plane[0], tb->width, tb->height, radius,
                                norms, dev->stream);
  BM3D_CUDA_CHECK_LAUNCH (job, "patch_norms");

  const size_t match_smem = bm3d_cuda_block_match_smem (pp->step, radius);
  BM3D_CUDA_CHECK (job, bm3d_cuda_block_match_setup (match_smem));
  BM3D_CUDA_CHECK (job, bm3d_cuda_filter_setup
                          (wiener, pp->transform_2d,
                           job->per_coefficient_noise != 0, &fc));

  memset (&ma, 0, sizeof ma);
  ma.plane = match_plane[0];
  ma.norms = norms;
  ma.width = tb->width;
  ma.height = tb->height;
  ma.ax = ax;
  ma.ay = ay;
  ma.radius = radius;
  ma.group_max = pp->group_max < BM3D_GROUP_MAX ? pp->group_max : BM3D_GROUP_MAX;
  ma.tau = match_tau (pp->tau_match);
  ma.lists = tb->lists;
  ma.counts = tb->counts;
  ma.keys = tb->keys;

  memset (&fa, 0, sizeof fa);
  for (int c = 0; c < tb->channels; c++)
    {
      fa.noisy[c] = tb->noisy[c];
      fa.basic[c] = tb->basic[c];
      fa.num[c] = tb->num[c];
      fa.weights[c] = tb->weights[c];
      fa.sigma[c] = sigma[c];
    }
  fa.lambda = pp->lambda_3d;
  fa.profile = job->per_coefficient_noise;
  fa.width = tb->width;
  fa.height = tb->height;
  fa.ax = ax;
  fa.ay = ay;
  fa.radius = radius;
  fa.group_max = ma.group_max;
  fa.rect_x = fc.rect_x;
  fa.rect_y = fc.rect_y;
  fa.lists = tb->lists;
  fa.counts = tb->counts;

  const int rect = fc.rect_y;
  /* Matching goes along reference rows where that layout applies (the
   * reference step 3) and fits, and the batches fill the device: its
   * warps take 30 references each, so on a small tile too few of them
   * run at once to hide their latency (docs/cuda-experiments.md);
   * block_match takes the rest, and the last column where the grid adds
   * one.  */
  const size_t row_smem = bm3d_cuda_row_match_smem (pp->step, radius,
                                                    ma.group_max,
                                                    dev->smem_optin);
  const size_t batch_refs = (size_t) ax.n
                            * (ay.n < tb->batch_rows ? ay.n : tb->batch_rows);
  /* BM3D_CUDA_MATCH=rows|warp (job->env, a testing and benchmarking
   * switch) picks block_match_rows wherever it applies, or never.  */
  const bm3d_env_match rule = job->env.cuda_match;
  const bool row_match = row_smem > 0 && rule != BM3D_ENV_MATCH_WARP
                         && (rule == BM3D_ENV_MATCH_ROWS
                             || batch_refs >= (size_t) dev->sm_count
                                              * ROW_MATCH_REFS_PER_SM);

  /* Batches of whole filter blocks (batch_rows is a multiple of 8).  */
  int rows = tb->batch_rows - tb->batch_rows % rect;
  if (rows < rect)
    rows = rect;
  int b = 0;
  for (int ry = 0; ry < ay.n; ry += rows, b++)
    {
      int ry_end = ry + rows < ay.n ? ry + rows : ay.n;

      ma.ry_begin = fa.ry_begin = ry;
      ma.ry_end = fa.ry_end = ry_end;
      if (row_match)
        {
          BM3D_CUDA_CHECK (job, bm3d_cuda_row_match_launch (&ma, row_smem,
                                                            dev->stream));
          if (ax.n > ax.n_regular)
            {
              ma.rx_begin = ax.n_regular;
              bm3d_cuda_block_match_launch (&ma, match_smem, dev->stream);
              BM3D_CUDA_CHECK_LAUNCH (job, "block_match");
              ma.rx_begin = 0;
            }
        }
      else
        {
          bm3d_cuda_block_match_launch (&ma, match_smem, dev->stream);
          BM3D_CUDA_CHECK_LAUNCH (job, "block_match");
        }

      bm3d_cuda_filter_launch (wiener, pp->transform_2d, &fa, &fc,
                               tb->channels, dev->stream);
      BM3D_CUDA_CHECK_LAUNCH (job, "collaborative_filter");

      /* Keep one batch queued behind the one being waited for, so the
       * device never idles while the host reports progress.  */
      BM3D_CUDA_CHECK (job, cudaEventRecord (dev->batch_done[b & 1],
                                             dev->stream));
      if (b > 0)
        {
          BM3D_CUDA_CHECK (job, cudaEventSynchronize (dev->batch_done[(b - 1) & 1]));
          ++*batches_done;
          if (job->tick (job, (double) *batches_done / batches_total))
            {
              BM3D_CUDA_CHECK (job, cudaStreamSynchronize (dev->stream));
              bm3d_job_message (job, "cancelled");
              return BM3D_ERR_CANCELLED;
            }
        }
    }
  ++*batches_done;

  aggregate_args ag;
  memset (&ag, 0, sizeof ag);
  for (int c = 0; c < tb->channels; c++)
    {
      ag.num[c] = tb->num[c];
      ag.weights[c] = tb->weights[c];
      ag.out[c] = result[c];
      ag.fallback[c] = tb->noisy[c];
    }
  ag.channels = tb->channels;
  ag.width = tb->width;
  ag.height = tb->height;
  ag.phase = phase;
  bm3d_cuda_aggregate_launch (&ag, dev->stream);
  BM3D_CUDA_CHECK_LAUNCH (job, "aggregate");
  for (int c = 0; c < tb->channels; c++)
    BM3D_CUDA_CHECK (job, cudaMemsetAsync (tb->weights[c], 0,
                                           tb->count * sizeof (float),
                                           dev->stream));
  return BM3D_OK;
}

/* aggregate_group adds to a plane at 32-bit offsets: every plane lies
 * within the workspace.  */
static_assert (BM3D_CUDA_DEVICE_BUDGET / sizeof (float) < ((size_t) 1 << 32),
               "aggregate_group's offsets into a plane fit 32 bits");

/* Carve the workspace into the buffers of tiles of at most `max_w` x
 * `max_h` pixels and `C` channels, with `extra` more bytes at the end
 * (256-byte aligned) for the caller.  */
static bm3d_status
tile_buffers_reserve (int max_w, int max_h, int C, size_t extra,
                      bm3d_job *job, tile_buffers *tb, void **extra_ptr)
{
  const ref_axis ax1 = ref_axis_for (max_w, job->bm3d_settings.hard.step);
  const ref_axis ax2 = ref_axis_for (max_w, job->bm3d_settings.wiener.step);
  const ref_axis *ax = ax1.n > ax2.n ? &ax1 : &ax2;
  /* Room for aggregate_group's last run of four past the last pixel.  */
  const size_t plane_floats = ((size_t) max_w * max_h + 4 + 63) & ~(size_t) 63;
  /* Batches of whole blocks of 8 reference rows, no more than a tile
   * holds.  */
  const ref_axis ay1 = ref_axis_for (max_h, job->bm3d_settings.hard.step);
  const ref_axis ay2 = ref_axis_for (max_h, job->bm3d_settings.wiener.step);
  const int tile_rows = ((ay1.n > ay2.n ? ay1.n : ay2.n) + 7) / 8 * 8;
  const int batch_rows = (int) batch_rows_for (ax, 8);
  const int rows = batch_rows < tile_rows ? batch_rows : tile_rows;
  const size_t norm_floats = (plane_floats + 2 * (size_t) NORM_PAD_ROWS * max_w
                              + 63) & ~(size_t) 63;
  size_t bytes, off = 0, list_off;
  bm3d_status status;

  bytes = (plane_floats * 4 * C + norm_floats) * sizeof (float)
          + list_bytes (rows, ax->n) + 256;
  list_off = bytes;
  bytes += (extra + 255) & ~(size_t) 255;
  if ((status = bm3d_cuda_reserve (job, bytes)) != BM3D_OK)
    return status;

  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  float *f = (float *) dev->workspace;
  memset (tb, 0, sizeof *tb);
  tb->channels = C;
  tb->batch_rows = rows;
  tb->plane_floats = plane_floats;
  for (int c = 0; c < C; c++)
    {
      tb->noisy[c] = f + off; off += plane_floats;
      tb->basic[c] = f + off; off += plane_floats;
      tb->num[c] = f + off; off += plane_floats;
      tb->weights[c] = f + off; off += plane_floats;
    }
  tb->norm_rows = f + off; off += norm_floats;
  tb->counts = (int *) (f + off);
  tb->lists = tb->counts + ((size_t) rows * ax->n + 63) / 64 * 64;
  tb->keys = (uint64_t *) (tb->lists
                           + ((size_t) rows * ax->n * BM3D_GROUP_MAX + 63)
                             / 64 * 64);
  if (extra_ptr)
    *extra_ptr = (char *) dev->workspace + list_off;
  return BM3D_OK;
}

/* Both phases on a tile whose noisy planes are (being) uploaded into
 * `tb`; `result` gets the planes holding the output.  Waits for the
 * device and adds the phases' times to the report.  */
static bm3d_status
tile_denoise (tile_buffers *tb, int width, int height, const float *sigma,
              bm3d_job *job, float *const **result)
{
  const ref_axis ay1 = ref_axis_for (height, job->bm3d_settings.hard.step);
  const ref_axis ay2 = ref_axis_for (height, job->bm3d_settings.wiener.step);
  const int rows = tb->batch_rows;
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  bm3d_status status;
  int batches, done = 0;
  float ms;

  tb->width = width;
  tb->height = height;
  tb->count = (size_t) width * height;
  for (int c = 0; c < tb->channels; c++)
    {
      /* The whole plane, padding included: the vector reductions of
       * aggregation read (and add zeros to) the floats past the last
       * pixel.  */
      BM3D_CUDA_CHECK (job, cudaMemsetAsync (tb->num[c], 0,
                                             tb->plane_floats * sizeof (float),
                                             dev->stream));
      BM3D_CUDA_CHECK (job, cudaMemsetAsync (tb->weights[c], 0,
                                             tb->plane_floats * sizeof (float),
                                             dev->stream));
    }

  batches = (ay1.n + rows - 1) / rows;
  if (job->phases > 1)
    batches += (ay2.n + rows - 1) / rows;

  BM3D_CUDA_CHECK (job, cudaEventRecord (dev->ev[0], dev->stream));
  status = run_phase (tb, 0, job, &done, batches, tb->basic, sigma);
  if (status != BM3D_OK)
    return status;
  BM3D_CUDA_CHECK (job, cudaEventRecord (dev->ev[1], dev->stream));
  if (job->phases > 1)
    {
      /* The noisy planes are no longer needed once phase 2's groups are
       * filtered: the result goes there.  */
      status = run_phase (tb, 1, job, &done, batches, tb->noisy, sigma);
      if (status != BM3D_OK)
        return status;
    }
  BM3D_CUDA_CHECK (job, cudaEventRecord (dev->ev[2], dev->stream));
  BM3D_CUDA_CHECK (job, cudaEventSynchronize (dev->ev[2]));

  BM3D_CUDA_CHECK (job, cudaEventElapsedTime (&ms, dev->ev[0], dev->ev[1]));
  job->report->seconds_phase[0] += ms * 1e-3;
  if (job->phases > 1)
    {
      BM3D_CUDA_CHECK (job, cudaEventElapsedTime (&ms, dev->ev[1],
                                                  dev->ev[2]));
      job->report->seconds_phase[1] += ms * 1e-3;
    }
  *result = job->phases > 1 ? tb->noisy : tb->basic;
  return BM3D_OK;
}

static bm3d_status
denoise_tile (const bm3d_planes *noisy, bm3d_planes *out, bm3d_job *job)
{
  tile_buffers tb;
  const int C = noisy->channels;
  const size_t count = (size_t) noisy->width * noisy->height;
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  float *const *result;
  bm3d_status status;

  if (C != 1 && C != 3)
    {
      bm3d_job_message (job, "CUDA backend: %d channels in a tile", C);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if ((status = upload_tables (job)) != BM3D_OK
      || (status = tile_buffers_reserve (noisy->width, noisy->height, C, 0,
                                         job, &tb, NULL)) != BM3D_OK)
    return status;
  for (int c = 0; c < C; c++)
    BM3D_CUDA_CHECK (job, cudaMemcpyAsync (tb.noisy[c], noisy->plane[c],
                                           count * sizeof (float),
                                           cudaMemcpyHostToDevice,
                                           dev->stream));
  status = tile_denoise (&tb, noisy->width, noisy->height, noisy->sigma, job,
                         &result);
  if (status != BM3D_OK)
    return status;
  for (int c = 0; c < C; c++)
    BM3D_CUDA_CHECK (job, cudaMemcpyAsync (out->plane[c], result[c],
                                           count * sizeof (float),
                                           cudaMemcpyDeviceToHost,
                                           dev->stream));
  BM3D_CUDA_CHECK (job, cudaStreamSynchronize (dev->stream));
  return BM3D_OK;
}

/* Every entry point holds its device for the whole call (one stream,
 * one workspace).  */
extern "C" bm3d_status
bm3d_cuda_tile (const bm3d_planes *noisy, bm3d_planes *out, bm3d_job *job)
{
  bm3d_cuda_device *dev;
  bm3d_status status = bm3d_cuda_enter (job, &dev);

  if (status != BM3D_OK)
    return status;
  return bm3d_cuda_leave (job, denoise_tile (noisy, out, job));
}

/* ---- whole images ---------------------------------------------------- */

/* denoise_image's steps for bm3d_cuda_tiled_image; ctx: tile_buffers.  */
static float *const *
image_tile_input (void *ctx, const bm3d_cuda_core *, bm3d_job *)
{
  return ((tile_buffers *) ctx)->noisy;
}

static bm3d_status
image_tile_denoise (void *ctx, const bm3d_cuda_core *core,
                    const float *const **result, bm3d_job *job)
{
  float *const *planes;
  bm3d_status status = tile_denoise ((tile_buffers *) ctx, core->tile_width,
                                     core->tile_height, job->sigma, job,
                                     &planes);

  *result = planes;
  return status;
}

static bm3d_status
denoise_image (const bm3d_image *in, bm3d_image *out, bm3d_job *job)
{
  const int W = in->width, H = in->height, ch = in->channels;
  const int colour = ch - (in->has_alpha ? 1 : 0);
  const size_t lists = tile_fixed_bytes ();
  const int margin = job->margin;
  size_t result_bytes, staging_bytes;
  tile_buffers tb;
  void *extra;
  bm3d_status status;
  int side, max_w, max_h, streamed;

  if (W < BM3D_PATCH || H < BM3D_PATCH || (colour != 1 && colour != 3))
    return BM3D_ERR_NOT_IMPLEMENTED;
  side = bm3d_cuda_image_side (job, in, plane_bytes_per_pixel (colour),
                               lists, 1, &result_bytes, &streamed);
  if (side == 0)
    return BM3D_ERR_NOT_IMPLEMENTED;
  max_w = side + 2 * margin < W ? side + 2 * margin : W;
  max_h = side + 2 * margin < H ? side + 2 * margin : H;

  staging_bytes = ((size_t) max_w * max_h * ch * sizeof (float) + 255)
                  & ~(size_t) 255;
  if ((status = upload_tables (job)) != BM3D_OK
      || (status = tile_buffers_reserve (max_w, max_h, colour,
                                         result_bytes + 2 * staging_bytes,
                                         job, &tb, &extra)) != BM3D_OK)
    return status;
  char *base = (char *) extra;
  float *const staging[2] = { (float *) (base + result_bytes),
                              (float *) (base + result_bytes
                                         + staging_bytes) };
  float *const core[2] = { (float *) base,
                           (float *) (base + result_bytes / 2) };

  const bm3d_cuda_tile_steps steps = { &tb, image_tile_input,
                                       image_tile_denoise };

  /* The filters take longer than the pageable uploads (about 30 ms a
   * 12 MP tile against 8): only a result kept on the device, which
   * comes back in one download, is worth pinning the output for.  */
  return bm3d_cuda_tiled_image (in, out, side, colour, staging,
                                (float *) base, streamed ? core : NULL,
                                streamed ? 0 : BM3D_CUDA_PIN_OUT, &steps,
                                job);
}

extern "C" bm3d_status
bm3d_cuda_image (const bm3d_image *in, bm3d_image *out, bm3d_job *job)
{
  bm3d_cuda_device *dev;
  bm3d_status status = bm3d_cuda_enter (job, &dev);

  if (status != BM3D_OK)
    return status;
  return bm3d_cuda_leave (job, denoise_image (in, out, job));
}

