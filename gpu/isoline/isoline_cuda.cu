/* The isoline filter (Perrot, Domas, Couturier & Bertaux, "Fast
 * GPU-based denoising filter using isoline levels") on CUDA, with the
 * steps of isoline_cpu.c, in the same order and with the arithmetic of
 * isoline_core.h, so that both backends give the same pixels.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * As in the paper, the segment patterns P_l and the other tables sit in
 * constant memory (every thread of a warp reads the same entry at the
 * same time), the planes are read through the read-only data cache,
 * and each pixel's best segment (I_Theta, I_Sigma) is found once by one
 * kernel and read by the next when isolines are lengthened.  The
 * hybrid's regions are summed from a tile of the planes in shared
 * memory.  Kernels, one thread per pixel:
 *   pad_tile, guide, best_segment, isoline_filter, residual_rows,
 *   residual_filter (the last two for the hybrid variant only).  */
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/cuda_device.cuh"
#include "isoline_core.h"

#define RES  BM3D_ISOLINE_RESIDUAL
#define NREG BM3D_ISOLINE_REGIONS
#define HALO BM3D_ISOLINE_WINDOW

/* Pixel blocks: 32 x 8 threads.  */
#define BLOCK_X 32
#define BLOCK_Y 8
/* The hybrid's shared tile of one plane: the block and its halo.  */
#define SHARED_W (BLOCK_X + 2 * HALO)
#define SHARED_H (BLOCK_Y + 2 * HALO)
/* isoline_filter's blocks per multiprocessor: caps its registers at 80,
 * which the unrolled region sums would otherwise raise to 112 (two
 * blocks, a quarter of the warps a multiprocessor can hold).  */
#ifndef FILTER_MIN_BLOCKS
#define FILTER_MIN_BLOCKS 3
#endif

__constant__ bm3d_isoline_tables c_iso;

/* c_iso's patterns as offsets.  Each byte pair of c_iso costs two
 * constant loads and a multiply-add per sample, and those loads kept
 * best_segment and isoline_filter waiting on the MIO queue (their top
 * stall in Nsight Compute) at three times the instructions they need.
 * As offsets, with counts known at compile time, a sample is one add
 * from the constant bank, one load and the sums.  */
#define HALF_MAX 21
typedef struct
{
  /* Direction d's segment in the padded planes: dy pw + dx, in the
   * order of c_iso.pattern[d][i][k] (i major).  */
  int   segment[BM3D_ISOLINE_DIRECTIONS][BM3D_ISOLINE_SEGMENT_MAX
                                         * BM3D_ISOLINE_ACROSS];
  /* The hybrid's regions in a shared tile: dy SHARED_W + dx.  */
  int   window[(2 * HALO + 1) * (2 * HALO + 1)];
  int   half[BM3D_ISOLINE_HALVES][HALF_MAX];
} iso_offsets;

__constant__ iso_offsets c_off;

/* The hybrid's region sizes the unrolled region sums are built for
 * (bm3d_tables.c: radius 3 and 5 windows, halves of radius 2 and 3);
 * other tables take the loop with counts read at run time.  */
#define WINDOW_SMALL  49
#define WINDOW_LARGE  121
#define HALF_SMALL    10
#define HALF_LARGE    21

/* Index into [0, n) mirrored at the edges (as isoline_cpu.c).  */
__device__ static inline int
mirror (int i, int n)
{
  int period = 2 * n;

  i %= period;
  if (i < 0)
    i += period;
  return i < n ? i : period - 1 - i;
}

/* A tile's geometry: see iso_ctx in isoline_cpu.c.  */
typedef struct
{
  int width, height;     /* the tile            */
  int planes;            /* 1 or 3              */
  int pad, pw, ph;       /* padded planes       */
  int border, gw, gh;    /* the I_Theta region  */
} iso_dims;

/* The device buffers of a tile.  */
typedef struct
{
  float         *tile[BM3D_MAX_CHANNELS];   /* input, then the output   */
  float         *padded[BM3D_MAX_CHANNELS];
  float         *guide;
  unsigned char *theta;
  float         *sum[BM3D_MAX_CHANNELS];
  float         *estimate[BM3D_MAX_CHANNELS];
  float         *rows[BM3D_MAX_CHANNELS];
} iso_buffers;

typedef struct
{
  iso_dims     d;
  iso_buffers  b;
} iso_args;

/* ---- kernels ------------------------------------------------------------ */

__global__ void
pad_tile (iso_args a)
{
  const iso_dims &d = a.d;
  const size_t count = (size_t) d.pw * d.ph;

  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < count;
       i += (size_t) gridDim.x * blockDim.x)
    {
      const int py = (int) (i / d.pw), px = (int) (i - (size_t) py * d.pw);
      const size_t src = (size_t) mirror (py - d.pad, d.height) * d.width
                         + mirror (px - d.pad, d.width);

      for (int c = 0; c < d.planes; c++)
        a.b.padded[c][i] = __ldg (a.b.tile[c] + src);
    }
}

/* The lead plane's 3x3 mean, summed as guide_row sums it.  */
__global__ void
guide (iso_args a)
{
  const iso_dims &d = a.d;
  const int px = blockIdx.x * blockDim.x + threadIdx.x;
  const int py = blockIdx.y * blockDim.y + threadIdx.y;
  const float *p = a.b.padded[0];
  float g = 0.0f;

  if (px >= d.pw || py >= d.ph)
    return;
  if (px > 0 && px < d.pw - 1 && py > 0 && py < d.ph - 1)
    {
      const float *r0 = p + (size_t) (py - 1) * d.pw + px;
      const float *r1 = r0 + d.pw, *r2 = r1 + d.pw;
      float ha = ISO_ADD (ISO_ADD (__ldg (r0 - 1), __ldg (r0)), __ldg (r0 + 1));
      float hb = ISO_ADD (ISO_ADD (__ldg (r1 - 1), __ldg (r1)), __ldg (r1 + 1));
      float hc = ISO_ADD (ISO_ADD (__ldg (r2 - 1), __ldg (r2)), __ldg (r2 + 1));

      g = ISO_MUL (ISO_ADD (ISO_ADD (ha, hb), hc), c_iso.inv_count[9]);
    }
  a.b.guide[(size_t) py * d.pw + px] = g;
}

/* Sum and sum of squares of the M samples of a segment (m at run time
 * when M is 0), in c_iso.pattern's order.  */
template <int M>
__device__ __forceinline__ void
segment_moments (const float *g, const int *off, int m, float &s, float &q)
{
  s = q = 0.0f;
#pragma unroll
  for (int j = 0; j < (M ? M : m); j++)
    {
      const float v = __ldg (g + off[j]);

      s = ISO_ADD (s, v);
      q = ISO_ADD (q, ISO_MUL (v, v));
    }
}

/* I_Theta and I_Sigma of one pixel of the region: as best_segment_row.
 * M: samples of a segment (l x across) when the kernel is built for it,
 * else 0.  */
template <int M>
__global__ void __launch_bounds__ (BLOCK_X * BLOCK_Y)
best_segment (iso_args a)
{
  const iso_dims &d = a.d;
  const int gx = blockIdx.x * blockDim.x + threadIdx.x;
  const int gy = blockIdx.y * blockDim.y + threadIdx.y;
  const int m = M ? M : c_iso.segment * c_iso.across;
  const float inv_m = c_iso.inv_count[m + 1];

  if (gx >= d.gw || gy >= d.gh)
    return;

  const size_t origin = (size_t) (gy + d.pad - d.border) * d.pw
                        + (gx + d.pad - d.border);
  const float *guide = a.b.guide + origin;
  const float g0 = __ldg (guide);
  float best = 0.0f;
  int bd = 0;

#pragma unroll
  for (int dir = 0; dir < BM3D_ISOLINE_DIRECTIONS; dir++)
    {
      float s, q, score;

      segment_moments<M> (guide, c_off.segment[dir], m, s, q);
      score = iso_segment_score (s, q, g0, inv_m);
      if (dir == 0 || score < best)
        {
          best = score;
          bd = dir;
        }
    }

  const size_t out = (size_t) gy * d.gw + gx;

  a.b.theta[out] = (unsigned char) bd;
  for (int c = 0; c < d.planes; c++)
    {
      const float *plane = a.b.padded[c] + origin;
      float sum = 0.0f;

      for (int j = 0; j < m; j++)
        sum = ISO_ADD (sum, __ldg (plane + c_off.segment[bd][j]));
      a.b.sum[c][out] = sum;
    }
}

/* Sum of a plane's shared tile over the offsets `from` .. `to` - 1 of
 * a list, added to `acc`.  */
template <int FROM, int TO>
__device__ __forceinline__ float
sum_offsets (const float *tile, const int *off, int from, int to, float acc)
{
#pragma unroll
  for (int j = FROM; j < (TO ? TO : to); j++)
    if (TO || j >= from)
      acc = ISO_ADD (acc, tile[off[j]]);
  return acc;
}

/* A plane's sums over the hybrid's regions around the pixel at `tile`
 * (its place in the plane's shared tile), in region order, as
 * hybrid_row sums them.  FIXED: the regions have the sizes above.  */
template <bool FIXED>
__device__ __forceinline__ void
region_sums (const float *tile, float (&r)[NREG])
{
  const int *cnt = c_iso.region_count;
  float acc = sum_offsets<0, FIXED ? WINDOW_SMALL : 0> (tile, c_off.window, 0,
                                                        cnt[0], 0.0f);

  r[0] = acc;
  r[1] = sum_offsets<FIXED ? WINDOW_SMALL : 0, FIXED ? WINDOW_LARGE : 0>
           (tile, c_off.window, cnt[0], cnt[1], acc);
#pragma unroll
  for (int h = 0; h < BM3D_ISOLINE_HALVES; h++)
    {
      const int small = 2 + h, large = 2 + BM3D_ISOLINE_HALVES + h;

      acc = sum_offsets<0, FIXED ? HALF_SMALL : 0> (tile, c_off.half[h], 0,
                                                    cnt[small], 0.0f);
      r[small] = acc;
      r[large] = sum_offsets<FIXED ? HALF_SMALL : 0, FIXED ? HALF_LARGE : 0>
                   (tile, c_off.half[h], cnt[small], cnt[large], acc);
    }
}

/* Each pixel's isoline, and for the hybrid its weighed regions: as
 * isoline_row and hybrid_row.  PI-PD's results go to b.tile, the
 * hybrid's to b.estimate.  */
/* C: the tile's planes, known at compile time so that the per-plane
 * arrays (here and in iso_trace) stay in registers.  */
template <bool FIXED, int C>
__global__ void __launch_bounds__ (BLOCK_X * BLOCK_Y, FILTER_MIN_BLOCKS)
isoline_filter (iso_args a)
{
  extern __shared__ float shared[];
  const iso_dims &d = a.d;
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  const int y = blockIdx.y * BLOCK_Y + threadIdx.y;
  const bool inside = x < d.width && y < d.height;

  if (c_iso.hybrid)
    {
      /* The planes and the guide around the block into shared memory;
       * places past the padded planes (blocks over the tile's edge)
       * are never read by a pixel of the tile, but get zeros.  */
      const int x0 = blockIdx.x * BLOCK_X - HALO + d.pad;
      const int y0 = blockIdx.y * BLOCK_Y - HALO + d.pad;
      const int tid = threadIdx.y * BLOCK_X + threadIdx.x;

      for (int q = 0; q <= C; q++)
        {
          const float *plane = q < C ? a.b.padded[q] : a.b.guide;
          float *tile = shared + q * SHARED_W * SHARED_H;

          for (int i = tid; i < SHARED_W * SHARED_H; i += BLOCK_X * BLOCK_Y)
            {
              int sy = i / SHARED_W, sx = i - sy * SHARED_W;
              int px = x0 + sx, py = y0 + sy;

              tile[i] = px < d.pw && py < d.ph
                        ? __ldg (plane + (size_t) py * d.pw + px) : 0.0f;
            }
        }
      __syncthreads ();
    }
  if (!inside)
    return;

  const size_t pc = (size_t) (y + d.pad) * d.pw + x + d.pad;
  const size_t o = (size_t) y * d.width + x;
  const float *sums[BM3D_MAX_CHANNELS];
  float s[BM3D_MAX_CHANNELS], v0[BM3D_MAX_CHANNELS];
  int n;

  for (int c = 0; c < C; c++)
    {
      v0[c] = __ldg (a.b.padded[c] + pc);
      sums[c] = a.b.sum[c];
    }
  n = iso_trace (&c_iso, a.b.theta, sums, C, d.gw, x + d.border,
                 y + d.border, v0, s);
  if (!c_iso.hybrid)
    {
      for (int c = 0; c < C; c++)
        a.b.tile[c][o] = ISO_MUL (s[c], c_iso.inv_count[n]);
      return;
    }

  /* Each region's weight from its sums on the guide (the last shared
   * plane), then each plane's weighed mean with the isoline.  */
  const int centre = (threadIdx.y + HALO) * SHARED_W + threadIdx.x + HALO;
  const float *guide_tile = shared + C * SHARED_W * SHARED_H;
  const float g0 = guide_tile[centre];
  float r[NREG], w[NREG], wc[NREG];

  region_sums<FIXED> (guide_tile + centre, r);
#pragma unroll
  for (int i = 0; i < NREG; i++)
    {
      const int cnt = c_iso.region_count[i];
      float b = ISO_SUB (ISO_MUL (r[i], c_iso.inv_count[cnt]), g0);

      w[i] = iso_region_weight (&c_iso, b, cnt, c_iso.edge_scale);
      wc[i] = iso_region_weight (&c_iso, b, cnt, c_iso.chroma_scale);
    }
  for (int c = 0; c < C; c++)
    {
      float num = 0.0f, den = 0.0f;

      region_sums<FIXED> (shared + c * SHARED_W * SHARED_H + centre, r);
#pragma unroll
      for (int i = 0; i < NREG; i++)
        {
          const float wi = c == 0 ? w[i] : wc[i];

          num = ISO_ADD (num, ISO_MUL (wi, ISO_MUL (r[i],
                                                   c_iso.inv_count[c_iso.region_count[i]])));
          den = ISO_ADD (den, wi);
        }
      num = ISO_ADD (num, s[c]);
      den = ISO_ADD (den, (float) n);
      a.b.estimate[c][o] = num / den;
    }
}

/* Row sums of each plane's squared residual: as residual_rows_row.  */
__global__ void
residual_rows (iso_args a)
{
  const iso_dims &d = a.d;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int ry = blockIdx.y * blockDim.y + threadIdx.y;

  if (x >= d.width || ry >= d.height + 2 * RES)
    return;

  const int y = mirror (ry - RES, d.height);

  for (int c = 0; c < d.planes; c++)
    {
      const float *e = a.b.estimate[c] + (size_t) y * d.width;
      const float *v = a.b.padded[c] + (size_t) (y + d.pad) * d.pw + d.pad;
      float acc = 0.0f;

      for (int dx = -RES; dx <= RES; dx++)
        {
          const int m = mirror (x + dx, d.width);
          const float r = ISO_SUB (__ldg (v + m), __ldg (e + m));

          acc = ISO_ADD (acc, ISO_MUL (r, r));
        }
      a.b.rows[c][(size_t) ry * d.width + x] = acc;
    }
}

/* The residual added back: as residual_row.  */
__global__ void
residual_filter (iso_args a)
{
  const iso_dims &d = a.d;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x >= d.width || y >= d.height)
    return;

  const float inv = c_iso.inv_count[(2 * RES + 1) * (2 * RES + 1)];
  const size_t o = (size_t) y * d.width + x;
  const size_t pc = (size_t) (y + d.pad) * d.pw + x + d.pad;

  for (int c = 0; c < d.planes; c++)
    {
      float acc = 0.0f;

      for (int dy = 0; dy <= 2 * RES; dy++)
        acc = ISO_ADD (acc, __ldg (a.b.rows[c] + (size_t) (y + dy) * d.width
                                   + x));
      a.b.tile[c][o] = iso_residual (c_iso.residual_floor[c],
                                     __ldg (a.b.estimate[c] + o),
                                     __ldg (a.b.padded[c] + pc),
                                     ISO_MUL (acc, inv));
    }
}

/* ---- host side ---------------------------------------------------------- */

static void
dims_for (const bm3d_job *job, int width, int height, int planes,
          iso_dims *d)
{
  const bm3d_isoline_profile *p = &job->isoline;

  d->width = width;
  d->height = height;
  d->planes = planes;
  d->pad = bm3d_isoline_reach (p);
  d->pw = width + 2 * d->pad;
  d->ph = height + 2 * d->pad;
  d->border = (p->length_max / p->segment - 1) * p->segment;
  d->gw = width + 2 * d->border;
  d->gh = height + 2 * d->border;
}

static size_t
align256 (size_t bytes)
{
  return (bytes + 255) & ~(size_t) 255;
}

/* Device bytes of a tile's buffers.  */
static size_t
tile_bytes (const iso_dims *d)
{
  const size_t tile = align256 (sizeof (float) * d->width * d->height);
  const size_t padded = align256 (sizeof (float) * d->pw * d->ph);
  const size_t region = (size_t) d->gw * d->gh;

  const size_t rows = align256 (sizeof (float) * d->width
                                * (d->height + 2 * RES));

  return d->planes * (2 * tile + rows) + (d->planes + 1) * padded
         + d->planes * align256 (sizeof (float) * region) + align256 (region);
}

/* Carve a tile's buffers from `base` (tile_bytes (d) long).  */
static void
carve (const iso_dims *d, char *base, iso_buffers *b)
{
  const size_t tile = align256 (sizeof (float) * d->width * d->height);
  const size_t padded = align256 (sizeof (float) * d->pw * d->ph);
  const size_t region = (size_t) d->gw * d->gh;

  memset (b, 0, sizeof *b);
  for (int c = 0; c < d->planes; c++, base += tile)
    b->tile[c] = (float *) base;
  for (int c = 0; c < d->planes; c++, base += padded)
    b->padded[c] = (float *) base;
  b->guide = (float *) base;
  base += padded;
  for (int c = 0; c < d->planes; c++)
    {
      b->sum[c] = (float *) base;
      base += align256 (sizeof (float) * region);
    }
  b->theta = (unsigned char *) base;
  base += align256 (region);
  for (int c = 0; c < d->planes; c++)
    {
      b->estimate[c] = (float *) base;
      base += tile;
      b->rows[c] = (float *) base;
      base += align256 (sizeof (float) * d->width * (d->height + 2 * RES));
    }
}

static bm3d_status
upload_tables (bm3d_job *job, const float *sigma, int planes,
               bm3d_isoline_tables *t)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);

  bm3d_isoline_tables_init (&job->isoline, sigma, planes, t);
  BM3D_CUDA_CHECK (job, cudaMemcpyToSymbolAsync (c_iso, t, sizeof *t, 0,
                                                 cudaMemcpyHostToDevice,
                                                 dev->stream));
  /* The caller's `t` may live on its stack frame.  */
  BM3D_CUDA_CHECK (job, cudaStreamSynchronize (dev->stream));
  return BM3D_OK;
}

static dim3
grid_for (int w, int h)
{
  return dim3 ((unsigned) ((w + BLOCK_X - 1) / BLOCK_X),
               (unsigned) ((h + BLOCK_Y - 1) / BLOCK_Y));
}

/* c_iso's patterns as c_off's offsets, for planes `pw` floats wide.  */
static void
offsets_for (const bm3d_isoline_tables *t, int pw, iso_offsets *o)
{
  memset (o, 0, sizeof *o);
  for (int d = 0; d < BM3D_ISOLINE_DIRECTIONS; d++)
    for (int i = 0; i < t->segment; i++)
      for (int k = 0; k < t->across; k++)
        {
          const signed char *p = t->pattern[d][i][k];

          o->segment[d][i * t->across + k] = p[1] * pw + p[0];
        }
  for (int j = 0; j < t->region_count[1]; j++)
    o->window[j] = (t->window_px[j][1] * SHARED_W
                            + t->window_px[j][0]);
  for (int h = 0; h < BM3D_ISOLINE_HALVES; h++)
    for (int j = 0; j < t->region_count[2 + BM3D_ISOLINE_HALVES + h]; j++)
      o->half[h][j] = (t->half_px[h][j][1] * SHARED_W
                               + t->half_px[h][j][0]);
}

/* Whether the hybrid's regions have the sizes the unrolled sums are
 * built for.  */
static bool
regions_fixed (const bm3d_isoline_tables *t)
{
  bool fixed = t->region_count[0] == WINDOW_SMALL
               && t->region_count[1] == WINDOW_LARGE;

  for (int h = 0; h < BM3D_ISOLINE_HALVES; h++)
    fixed = fixed && t->region_count[2 + h] == HALF_SMALL
            && t->region_count[2 + BM3D_ISOLINE_HALVES + h] == HALF_LARGE;
  return fixed;
}

/* The kernels over one tile whose planes are (being) written to
 * b->tile; the result is in b->tile when the stream gets there.  The
 * kernels' time goes to the report's first phase.  */
static bm3d_status
filter_tile (const iso_dims *d, const iso_buffers *b,
             const bm3d_isoline_tables *t, bm3d_job *job)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const dim3 block (BLOCK_X, BLOCK_Y);
  const int hybrid = job->isoline.variant == BM3D_ISOLINE_HYBRID;
  const size_t shared = hybrid ? sizeof (float) * (d->planes + 1)
                                 * SHARED_W * SHARED_H : 0;
  const int m = t->segment * t->across;
  iso_offsets off;
  iso_args a;
  float ms;

  a.d = *d;
  a.b = *b;
  offsets_for (t, d->pw, &off);
  /* From this stack frame: the event synchronisation below outlives
   * the copy.  */
  BM3D_CUDA_CHECK (job, cudaMemcpyToSymbolAsync (c_off, &off, sizeof off, 0,
                                                 cudaMemcpyHostToDevice,
                                                 dev->stream));
  BM3D_CUDA_CHECK (job, cudaEventRecord (dev->ev[0], dev->stream));
  pad_tile<<<dev->sm_count * 8, 256, 0, dev->stream>>> (a);
  BM3D_CUDA_CHECK_LAUNCH (job, "pad_tile");
  guide<<<grid_for (d->pw, d->ph), block, 0, dev->stream>>> (a);
  BM3D_CUDA_CHECK_LAUNCH (job, "guide");
  switch (m)
    {
    case 5:
      best_segment<5><<<grid_for (d->gw, d->gh), block, 0, dev->stream>>> (a);
      break;
    case 15:
      best_segment<15><<<grid_for (d->gw, d->gh), block, 0, dev->stream>>> (a);
      break;
    default:
      best_segment<0><<<grid_for (d->gw, d->gh), block, 0, dev->stream>>> (a);
      break;
    }
  BM3D_CUDA_CHECK_LAUNCH (job, "best_segment");
  {
    const dim3 grid = grid_for (d->width, d->height);
    const bool fixed = regions_fixed (t);

    /* One plane takes the loop: unrolled, ptxas hoists the loads of
     * both planes' sums and spills (nearly 1 KB a thread).  */
    if (d->planes == 1)
      isoline_filter<false, 1><<<grid, block, shared, dev->stream>>> (a);
    else
      (fixed ? isoline_filter<true, 3> : isoline_filter<false, 3>)
        <<<grid, block, shared, dev->stream>>> (a);
  }
  BM3D_CUDA_CHECK_LAUNCH (job, "isoline_filter");
  if (hybrid)
    {
      residual_rows<<<grid_for (d->width, d->height + 2 * RES), block, 0,
                      dev->stream>>> (a);
      BM3D_CUDA_CHECK_LAUNCH (job, "residual_rows");
      residual_filter<<<grid_for (d->width, d->height), block, 0,
                        dev->stream>>> (a);
      BM3D_CUDA_CHECK_LAUNCH (job, "residual_filter");
    }
  BM3D_CUDA_CHECK (job, cudaEventRecord (dev->ev[1], dev->stream));
  BM3D_CUDA_CHECK (job, cudaEventSynchronize (dev->ev[1]));
  BM3D_CUDA_CHECK (job, cudaEventElapsedTime (&ms, dev->ev[0], dev->ev[1]));
  job->report->seconds_phase[0] += ms * 1e-3;
  return BM3D_OK;
}

/* Largest tile side (core) whose buffers, with `fixed` bytes more, fit
 * `budget`; 0 when not even a small one does.  */
static int
side_for_budget (const bm3d_job *job, int planes, size_t budget,
                 size_t fixed, size_t per_px_extra)
{
  const int margin = job->margin;

  for (int side = 4096; side >= 256; side -= side / 8)
    {
      iso_dims d;

      dims_for (job, side + 2 * margin, side + 2 * margin, planes, &d);
      if (fixed + tile_bytes (&d)
          + per_px_extra * (size_t) d.width * d.height + 4096 <= budget)
        return side;
    }
  return 0;
}

extern "C" int
bm3d_isoline_cuda_tile_side (const bm3d_job *job)
{
  int side = side_for_budget (job, job->channels, bm3d_cuda_budget_for (job),
                              0, 0);

  return side > 0 ? side : 256;
}

static bm3d_status
denoise_tile (const bm3d_planes *noisy, bm3d_planes *out, bm3d_job *job)
{
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  const int C = noisy->channels;
  const size_t count = (size_t) noisy->width * noisy->height;
  bm3d_isoline_tables tables;
  iso_dims d;
  iso_buffers b;
  bm3d_status status;

  if (C != 1 && C != 3)
    {
      bm3d_job_message (job, "CUDA backend: %d channels in a tile", C);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  dims_for (job, noisy->width, noisy->height, C, &d);
  if ((status = upload_tables (job, noisy->sigma, C, &tables)) != BM3D_OK
      || (status = bm3d_cuda_reserve (job, tile_bytes (&d))) != BM3D_OK)
    return status;
  carve (&d, (char *) dev->workspace, &b);
  for (int c = 0; c < C; c++)
    BM3D_CUDA_CHECK (job, cudaMemcpyAsync (b.tile[c], noisy->plane[c],
                                           count * sizeof (float),
                                           cudaMemcpyHostToDevice,
                                           dev->stream));
  if ((status = filter_tile (&d, &b, &tables, job)) != BM3D_OK)
    return status;
  for (int c = 0; c < C; c++)
    BM3D_CUDA_CHECK (job, cudaMemcpyAsync (out->plane[c], b.tile[c],
                                           count * sizeof (float),
                                           cudaMemcpyDeviceToHost,
                                           dev->stream));
  BM3D_CUDA_CHECK (job, cudaStreamSynchronize (dev->stream));
  return BM3D_OK;
}

extern "C" bm3d_status
bm3d_isoline_cuda_tile (const bm3d_planes *noisy, bm3d_planes *out,
                        bm3d_job *job)
{
  bm3d_cuda_device *dev;
  bm3d_status status = bm3d_cuda_enter (job, &dev);

  if (status != BM3D_OK)
    return status;
  return bm3d_cuda_leave (job, denoise_tile (noisy, out, job));
}

/* ---- whole images --------------------------------------------------------- */

/* denoise_image's steps for bm3d_cuda_tiled_image: each tile's buffers
 * carved from `tile_base` for its size.  */
typedef struct
{
  const bm3d_isoline_tables *tables;
  char                      *tile_base;
  int                        planes;
  iso_dims                   d;
  iso_buffers                b;
} iso_image_ctx;

static float *const *
image_tile_input (void *ctx, const bm3d_cuda_core *core, bm3d_job *job)
{
  iso_image_ctx *c = (iso_image_ctx *) ctx;

  dims_for (job, core->tile_width, core->tile_height, c->planes, &c->d);
  carve (&c->d, c->tile_base, &c->b);
  return c->b.tile;
}

static bm3d_status
image_tile_denoise (void *ctx, const bm3d_cuda_core *,
                    const float *const **result, bm3d_job *job)
{
  iso_image_ctx *c = (iso_image_ctx *) ctx;

  *result = c->b.tile;
  return filter_tile (&c->d, &c->b, c->tables, job);
}

/* The smallest side that cuts a W x H image into as many tiles a row
 * and a column as `side` does: tiles of even size.  A streamed result's
 * first upload and last download, the copies nothing hides, are then
 * one tile of the average size, not a thin strip's neighbour of the
 * largest: 12 MP RGB 8-bit on the H100 machine, 6.5-6.7 ms against
 * 7.2-7.3 for tiles of 1839 (docs/user-wait.md).  */
static int
even_side (int W, int H, int side)
{
  const int nx = (W + side - 1) / side, ny = (H + side - 1) / side;
  const int sx = (W + nx - 1) / nx, sy = (H + ny - 1) / ny;

  return sx > sy ? sx : sy;
}

/* Upload, colour transform, tiles and inverse transform all on the
 * device; `out` is written only when every tile is done, unless the
 * output does not fit the device budget: it is then streamed tile by
 * tile (cuda_device.cuh).  Images too small for a tile plan of their
 * own go through the host's tiler.  */
static bm3d_status
denoise_image (const bm3d_image *in, bm3d_image *out, bm3d_job *job)
{
  const int W = in->width, H = in->height, ch = in->channels;
  const int colour = ch - (in->has_alpha ? 1 : 0);
  size_t out_bytes = align256 ((size_t) W * H * ch * sizeof (float));
  const int margin = job->margin;
  bm3d_cuda_device *dev = bm3d_cuda_device_of (job);
  bm3d_isoline_tables tables;
  iso_dims dmax;
  size_t budget, work;
  int side, max_w, max_h, streamed = 0;
  bm3d_status status;

  if (W < BM3D_PATCH || H < BM3D_PATCH || (colour != 1 && colour != 3))
    return BM3D_ERR_NOT_IMPLEMENTED;
  budget = bm3d_cuda_budget (dev);
  /* The two staging copies of a tile's interleaved input: ch floats a
   * pixel each.  */
  side = side_for_budget (job, colour, budget, out_bytes,
                          2 * ch * sizeof (float));
  if (side == 0)
    {
      /* The result streamed tile by tile: two cores of ch floats a
       * pixel beside the staging.  */
      streamed = 1;
      side = side_for_budget (job, colour, budget, 0,
                              4 * ch * sizeof (float));
      if (side == 0)
        return BM3D_ERR_NOT_IMPLEMENTED;
      out_bytes = 2 * align256 ((size_t) side * side * ch * sizeof (float));
    }
  else if (bm3d_cuda_stream_by_choice (job, W, H, even_side (W, H, side),
                                       ch))
    {
      streamed = 1;
      side = even_side (W, H, side);
      out_bytes = 2 * align256 ((size_t) side * side * ch * sizeof (float));
    }
  max_w = side + 2 * margin < W ? side + 2 * margin : W;
  max_h = side + 2 * margin < H ? side + 2 * margin : H;
  dims_for (job, max_w, max_h, colour, &dmax);

  const size_t staging_bytes = align256 ((size_t) max_w * max_h * ch
                                         * sizeof (float));
  work = tile_bytes (&dmax);
  if ((status = upload_tables (job, job->sigma, colour, &tables)) != BM3D_OK
      || (status = bm3d_cuda_reserve (job, out_bytes + 2 * staging_bytes
                                      + work)) != BM3D_OK)
    return status;
  float *dev_out = (float *) dev->workspace;
  char *base = (char *) dev->workspace + out_bytes;
  float *const staging[2] = { (float *) base,
                              (float *) (base + staging_bytes) };

  iso_image_ctx ctx;
  ctx.tables = &tables;
  ctx.planes = colour;
  ctx.tile_base = (char *) dev->workspace + out_bytes + 2 * staging_bytes;
  const bm3d_cuda_tile_steps steps = { &ctx, image_tile_input,
                                       image_tile_denoise };

  float *const core[2] = { dev_out,
                           (float *) ((char *) dev_out + out_bytes / 2) };

  /* Filtering a tile takes far less than its pageable copies: pinned.  */
  return bm3d_cuda_tiled_image (in, out, side, colour, staging, dev_out,
                                streamed ? core : NULL,
                                BM3D_CUDA_PIN_IN | BM3D_CUDA_PIN_OUT, &steps,
                                job);
}

extern "C" bm3d_status
bm3d_isoline_cuda_image (const bm3d_image *in, bm3d_image *out,
                         bm3d_job *job)
{
  bm3d_cuda_device *dev;
  bm3d_status status = bm3d_cuda_enter (job, &dev);

  if (status != BM3D_OK)
    return status;
  return bm3d_cuda_leave (job, denoise_image (in, out, job));
}
