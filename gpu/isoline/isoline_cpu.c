/* The isoline filter (Perrot, Domas, Couturier & Bertaux, "Fast
 * GPU-based denoising filter using isoline levels") on the CPU: the
 * reference for isoline_cuda.cu, with the same steps in the same order
 * and the arithmetic of isoline_core.h.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Steps, per tile (plane 0 leads: luminance for colour):
 *   pad_tile        the planes with their borders mirrored at the tile's
 *                   edge, so that no read needs a bounds check;
 *   guide           the lead plane's 3x3 mean, on which directions and
 *                   edges are judged (a third of the noise);
 *   best_segment    for every pixel the direction I_Theta of the most
 *                   homogeneous segment of l pixels starting there (on
 *                   the guide: least sum of squared deviations, the
 *                   pixel included), and I_Sigma, that segment's sums
 *                   on the noisy planes;
 *   isoline_filter  each pixel's isoline: its best segment, lengthened
 *                   by the best segment found at its end while the
 *                   turn stays within turn_max and a GLRT accepts it,
 *                   up to n pixels (PI-PD: the isoline's mean is the
 *                   result).  The hybrid variant weighs the isoline
 *                   with two windows and the half windows on either
 *                   side of four lines through the pixel, each by how
 *                   well its mean on the guide matches the pixel's (the
 *                   edge test, scale T2_max);
 *   residual_filter hybrid only: the lead plane's residual, noisy minus
 *                   estimate, added back where its local power exceeds
 *                   the noise's (texture the regions flattened).
 * Every step works row by row and rows do not depend on each other: the
 * result is the same for any thread count.  */
#include "config.h"

#include "core/engine.h"
#include "isoline_core.h"

#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* The row loops are built twice, for AVX2 and for any x86-64.  Not
 * x86-64-v3: its FMA would fuse the products and sums that the GPU
 * rounds one by one.  */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 \
    && defined(__x86_64__) && defined(__linux__)
#define HOT_LOOP __attribute__ ((target_clones ("avx2", "default")))
#else
#define HOT_LOOP
#endif

/* Rows between two progress calls.  */
#define ROWS_PER_TICK 32

#define RES BM3D_ISOLINE_RESIDUAL
#define NREG BM3D_ISOLINE_REGIONS
#define PER_SEGMENT (BM3D_ISOLINE_SEGMENT_MAX * BM3D_ISOLINE_ACROSS)

/* Eight pixels of a row: one AVX register in the AVX2 build, two SSE
 * registers in the other (GCC vector extension).  Vectors stay inside
 * the HOT_LOOP functions: their by-value ABI differs between builds.
 * A row shorter than a vector never occurs (tiles are at least
 * BM3D_PATCH wide); its last vector overlaps the one before.  */
typedef float v8 __attribute__ ((vector_size (32)));
typedef int   v8i __attribute__ ((vector_size (32)));
#define LOAD(v, p)  memcpy (&(v), (p), sizeof (v8))
#define STORE(p, v) memcpy ((p), &(v), sizeof (v8))
#define SELECT(m, a, b) ((v8) (((v8i) (a) & (m)) | ((v8i) (b) & ~(m))))
#define CHUNK_AT(x0, w) ((x0) + 8 <= (w) ? (x0) : (w) - 8)

typedef struct
{
  const bm3d_isoline_tables *t;
  const bm3d_planes *in;
  bm3d_planes *out;
  int     width, height;        /* the tile                               */
  int     planes;               /* 1, or 3 led by plane 0                 */
  int     pad;                  /* R: border of the padded planes         */
  int     pw, ph;               /* padded size                            */
  int     border;               /* g: border of the I_Theta region        */
  int     gw, gh;               /* I_Theta region size                    */
  float  *padded[BM3D_MAX_CHANNELS];
  float  *guide;                /* pw x ph, valid one pixel inside        */
  unsigned char *theta;         /* I_Theta                                */
  float  *sum[BM3D_MAX_CHANNELS];  /* I_Sigma                             */
  /* Offsets in the padded planes of each direction's segment pixels,
   * and of the hybrid's window and half pixels.  */
  ptrdiff_t segment_off[BM3D_ISOLINE_DIRECTIONS][PER_SEGMENT];
  ptrdiff_t window_off[(2 * BM3D_ISOLINE_WINDOW + 1)
                       * (2 * BM3D_ISOLINE_WINDOW + 1)];
  ptrdiff_t half_off[BM3D_ISOLINE_HALVES][21];
  float  *estimate[BM3D_MAX_CHANNELS];  /* hybrid: before the residual  */
  float  *rows[BM3D_MAX_CHANNELS];      /* hybrid: residual power, row sums */
  size_t  scratch_each;         /* floats of row scratch per thread       */
  float  *scratch;
} iso_ctx;

typedef enum
{
  STEP_PAD,
  STEP_GUIDE,
  STEP_BEST_SEGMENT,
  STEP_ISOLINE,
  STEP_RESIDUAL_ROWS,
  STEP_RESIDUAL
} iso_step;

static int
current_thread (void)
{
#ifdef _OPENMP
  return omp_get_thread_num ();
#else
  return 0;
#endif
}

/* Index into [0, n) mirrored at the edges, as the tiler mirrors images
 * smaller than a patch (…1 0 | 0 1 … n-1 | n-1 n-2 …).  */
static inline int
mirror (int i, int n)
{
  int period = 2 * n;

  i %= period;
  if (i < 0)
    i += period;
  return i < n ? i : period - 1 - i;
}

/* ---- pad_tile ------------------------------------------------------------ */

static void
pad_row (const iso_ctx *k, int py)
{
  const int R = k->pad, W = k->width;
  const int sy = mirror (py - R, k->height);

  for (int c = 0; c < k->planes; c++)
    {
      const float *src = k->in->plane[c] + (size_t) sy * W;
      float *dst = k->padded[c] + (size_t) py * k->pw;

      for (int x = 0; x < R; x++)
        dst[x] = src[mirror (x - R, W)];
      memcpy (dst + R, src, sizeof (float) * W);
      for (int x = R + W; x < k->pw; x++)
        dst[x] = src[mirror (x - R, W)];
    }
}

/* ---- guide ---------------------------------------------------------------- */

/* Row py of the guide: sums of three along the row, then of the three
 * rows, then times 1/9.  The outermost ring of the padded area is never
 * read and stays zero.  */
HOT_LOOP static void
guide_row (const iso_ctx *k, int py)
{
  const int pw = k->pw;
  const float inv9 = k->t->inv_count[9];
  float *g = k->guide + (size_t) py * pw;

  if (py == 0 || py == k->ph - 1)
    {
      memset (g, 0, sizeof (float) * pw);
      return;
    }
  {
    const float *a = k->padded[0] + (size_t) (py - 1) * pw;
    const float *b = a + pw, *c = b + pw;

    g[0] = g[pw - 1] = 0.0f;
    for (int x = 1; x < pw - 1; x++)
      {
        float ha = (a[x - 1] + a[x]) + a[x + 1];
        float hb = (b[x - 1] + b[x]) + b[x + 1];
        float hc = (c[x - 1] + c[x]) + c[x + 1];

        g[x] = ((ha + hb) + hc) * inv9;
      }
  }
}

/* ---- best_segment ------------------------------------------------------------ */

/* Row gy of the I_Theta region, eight pixels at a time: each
 * direction's sums in the order k = 1..l and, for each k, across the
 * line, as the GPU sums them.  */
HOT_LOOP static void
best_segment_row (const iso_ctx *k, int gy, float *scratch)
{
  const bm3d_isoline_tables *t = k->t;
  const int Wg = k->gw, m = t->segment * t->across;
  const float inv_m = t->inv_count[m + 1];
  const size_t origin = (size_t) (gy + k->pad - k->border) * k->pw
                        + (k->pad - k->border);
  const float *guide = k->guide + origin;
  int *bd_row = (int *) scratch;
  const size_t out = (size_t) gy * Wg;

  for (int x0 = 0; x0 < Wg; x0 += 8)
    {
      const int x = CHUNK_AT (x0, Wg);
      v8 g0, best = { 0 };
      v8i bd = { 0 };

      LOAD (g0, guide + x);
      for (int d = 0; d < BM3D_ISOLINE_DIRECTIONS; d++)
        {
          const ptrdiff_t *off = k->segment_off[d];
          v8 s = { 0 }, q = { 0 }, tt, score;

          for (int j = 0; j < m; j++)
            {
              v8 v;

              LOAD (v, guide + off[j] + x);
              s = s + v;
              q = q + v * v;
            }
          /* iso_segment_score, eight at once.  */
          tt = s + g0;
          score = (q + g0 * g0) - (tt * tt) * inv_m;
          if (d == 0)
            best = score;
          else
            {
              v8i better = score < best;
              v8i dv = { d, d, d, d, d, d, d, d };

              best = SELECT (better, score, best);
              bd = (better & dv) | (bd & ~better);
            }
        }
      memcpy (bd_row + x, &bd, sizeof bd);
    }

  /* I_Sigma: the chosen segment's sums on the noisy planes.  */
  for (int x = 0; x < Wg; x++)
    k->theta[out + x] = (unsigned char) bd_row[x];
  for (int c = 0; c < k->planes; c++)
    {
      const float *plane = k->padded[c] + origin;

      for (int x = 0; x < Wg; x++)
        {
          const ptrdiff_t *off = k->segment_off[bd_row[x]];
          float sum = 0.0f;

          for (int j = 0; j < m; j++)
            sum = sum + plane[x + off[j]];
          k->sum[c][out + x] = sum;
        }
    }
}

/* ---- isoline_filter ------------------------------------------------------------ */

/* The hybrid's estimate for row y, eight pixels at a time: the sums
 * of each region around them (on each noisy plane and on the guide),
 * then each region's mean weighed by how well it matches the pixel on
 * the guide, with the isoline (weight its pixel count), to
 * k->estimate.  */
HOT_LOOP static void
hybrid_row (const iso_ctx *k, int y, const float *iso, const float *count)
{
  const bm3d_isoline_tables *t = k->t;
  const int W = k->width, C = k->planes;
  const size_t origin = (size_t) (y + k->pad) * k->pw + k->pad;
  const size_t row = (size_t) y * W;

  for (int x0 = 0; x0 < W; x0 += 8)
    {
      const int x = CHUNK_AT (x0, W);
      v8 reg[BM3D_MAX_CHANNELS + 1][NREG];
      v8 g0;

      for (int q = 0; q <= C; q++)
        {
          const float *plane = (q < C ? k->padded[q] : k->guide) + origin + x;
          v8 acc = { 0 };

          /* The windows: radius 3, then on to radius 5.  */
          for (int j = 0; j < t->region_count[1]; j++)
            {
              v8 v;

              if (j == t->region_count[0])
                reg[q][0] = acc;
              LOAD (v, plane + k->window_off[j]);
              acc = acc + v;
            }
          reg[q][1] = acc;
          /* The halves: radius 2, then on to radius 3.  */
          for (int h = 0; h < BM3D_ISOLINE_HALVES; h++)
            {
              const int small = 2 + h, large = 2 + BM3D_ISOLINE_HALVES + h;

              acc = (v8) { 0 };
              for (int j = 0; j < t->region_count[large]; j++)
                {
                  v8 v;

                  if (j == t->region_count[small])
                    reg[q][small] = acc;
                  LOAD (v, plane + k->half_off[h][j]);
                  acc = acc + v;
                }
              reg[q][large] = acc;
            }
        }

      LOAD (g0, k->guide + origin + x);
      for (int c = 0; c < C; c++)
        {
          const float scale = c == 0 ? t->edge_scale : t->chroma_scale;
          float *dst = k->estimate[c] + row;
          v8 num = { 0 }, den = { 0 }, v;

          for (int i = 0; i < NREG; i++)
            {
              const int n = t->region_count[i];
              const float inv = t->inv_count[n], fn = (float) n;
              v8 b, b2, u, u2, w;
              v8 zero = { 0 };

              /* iso_region_weight, eight at once.  */
              b = reg[C][i] * inv - g0;
              b2 = b * b - t->guide_noise;
              b2 = SELECT (b2 > zero, b2, zero);
              u = 1.0f + (fn * b2) * scale;
              u2 = u * u;
              w = fn / (u2 * u2);
              num = num + w * (reg[c][i] * inv);
              den = den + w;
            }
          LOAD (v, iso + (size_t) c * W + x);
          num = num + v;
          LOAD (v, count + x);
          den = den + v;
          v = num / den;
          STORE (dst + x, v);
        }
    }
}

static void
isoline_row (const iso_ctx *k, int y, float *scratch)
{
  const int W = k->width, C = k->planes;
  float *iso = scratch;                       /* C x W isoline sums       */
  float *count = iso + (size_t) C * W;        /* W pixel counts           */
  const size_t row = (size_t) y * W;

  for (int x = 0; x < W; x++)
    {
      const size_t pc = (size_t) (y + k->pad) * k->pw + x + k->pad;
      float s[BM3D_MAX_CHANNELS], v0[BM3D_MAX_CHANNELS];
      int n;

      for (int c = 0; c < C; c++)
        v0[c] = k->padded[c][pc];
      n = iso_trace (k->t, k->theta, (const float *const *) k->sum, C,
                     k->gw, x + k->border, y + k->border, v0, s);

      count[x] = (float) n;
      for (int c = 0; c < C; c++)
        iso[(size_t) c * W + x] = s[c];
    }
  if (!k->t->hybrid)
    {
      /* PI-PD: the isoline's mean.  */
      for (int c = 0; c < C; c++)
        for (int x = 0; x < W; x++)
          k->out->plane[c][row + x]
            = ISO_MUL (iso[(size_t) c * W + x], k->t->inv_count[(int) count[x]]);
      return;
    }
  hybrid_row (k, y, iso, count);
}

/* ---- residual_filter ------------------------------------------------------------ */

/* Row sums (2 RES + 1 wide) of each plane's squared residual, for row
 * y - RES of the tile (mirrored at its edges).  */
HOT_LOOP static void
residual_rows_row (const iso_ctx *k, int ry, float *scratch)
{
  const int W = k->width, y = mirror (ry - RES, k->height);
  float *rr = scratch + RES;

  for (int c = 0; c < k->planes; c++)
    {
      const float *e = k->estimate[c] + (size_t) y * W;
      const float *v = k->padded[c] + (size_t) (y + k->pad) * k->pw + k->pad;
      float *dst = k->rows[c] + (size_t) ry * W;

      for (int x = 0; x < W; x++)
        {
          float r = ISO_SUB (v[x], e[x]);

          rr[x] = ISO_MUL (r, r);
        }
      for (int x = 1; x <= RES; x++)
        {
          rr[-x] = rr[mirror (-x, W)];
          rr[W - 1 + x] = rr[mirror (W - 1 + x, W)];
        }
      for (int x = 0; x < W; x++)
        {
          float acc = 0.0f;

          for (int dx = -RES; dx <= RES; dx++)
            acc = ISO_ADD (acc, rr[x + dx]);
          dst[x] = acc;
        }
    }
}

HOT_LOOP static void
residual_row (const iso_ctx *k, int y)
{
  const bm3d_isoline_tables *t = k->t;
  const int W = k->width;
  const float inv = t->inv_count[(2 * RES + 1) * (2 * RES + 1)];

  for (int c = 0; c < k->planes; c++)
    {
      const float *e = k->estimate[c] + (size_t) y * W;
      const float *v = k->padded[c] + (size_t) (y + k->pad) * k->pw + k->pad;
      const float *rows = k->rows[c];
      float *dst = k->out->plane[c] + (size_t) y * W;

      for (int x = 0; x < W; x++)
        {
          float acc = 0.0f;

          for (int dy = 0; dy <= 2 * RES; dy++)
            acc = ISO_ADD (acc, rows[(size_t) (y + dy) * W + x]);
          dst[x] = iso_residual (t->residual_floor[c], e[x], v[x],
                                 ISO_MUL (acc, inv));
        }
    }
}

/* ---- the tile ------------------------------------------------------------------ */

static void
run_row (iso_ctx *k, iso_step step, int r)
{
  float *mine = k->scratch + k->scratch_each * current_thread ();

  switch (step)
    {
    case STEP_PAD:            pad_row (k, r); break;
    case STEP_GUIDE:          guide_row (k, r); break;
    case STEP_BEST_SEGMENT:   best_segment_row (k, r, mine); break;
    case STEP_ISOLINE:        isoline_row (k, r, mine); break;
    case STEP_RESIDUAL_ROWS:  residual_rows_row (k, r, mine); break;
    case STEP_RESIDUAL:       residual_row (k, r); break;
    }
}

/* Run a step's `rows` rows over the worker threads.  Progress and
 * cancellation go through the calling thread alone (thread 0 of the
 * team), between its rows.  */
static bm3d_status
run_step (iso_ctx *k, iso_step step, int rows, bm3d_job *job, double *done,
          double share)
{
  int rows_done = 0, cancelled = 0;

#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 4) num_threads(job->threads)
#endif
  for (int r = 0; r < rows; r++)
    {
      int stop;

#ifdef _OPENMP
#pragma omp atomic read
#endif
      stop = cancelled;
      if (stop)
        continue;
      run_row (k, step, r);
#ifdef _OPENMP
#pragma omp atomic
#endif
      rows_done++;
      if (current_thread () == 0 && r % ROWS_PER_TICK == 0)
        {
          int n;

#ifdef _OPENMP
#pragma omp atomic read
#endif
          n = rows_done;
          if (job->tick (job, *done + share * n / rows))
            {
#ifdef _OPENMP
#pragma omp atomic write
#endif
              cancelled = 1;
            }
        }
    }
  if (!cancelled && job->tick (job, *done + share))
    cancelled = 1;
  if (cancelled)
    {
      bm3d_job_message (job, "cancelled");
      return BM3D_ERR_CANCELLED;
    }
  *done += share;
  return BM3D_OK;
}

int
bm3d_isoline_cpu_tile_side (const bm3d_job *job)
{
  (void) job;
  return 1024;
}

bm3d_status
bm3d_isoline_cpu_tile (const bm3d_planes *noisy, bm3d_planes *out,
                       bm3d_job *job)
{
  const bm3d_isoline_profile *p = &job->isoline;
  const int workers = job->threads > 0 ? job->threads : 1;
  const double t0 = bm3d_seconds ();
  bm3d_isoline_tables *t;
  iso_ctx k;
  size_t padded_n, region_n, tile_n, bytes;
  char *block;
  double done = 0.0;
  bm3d_status status;

  memset (&k, 0, sizeof k);
  k.in = noisy;
  k.out = out;
  k.width = noisy->width;
  k.height = noisy->height;
  k.planes = noisy->channels;
  k.pad = bm3d_isoline_reach (p);
  k.pw = k.width + 2 * k.pad;
  k.ph = k.height + 2 * k.pad;
  k.border = (p->length_max / p->segment - 1) * p->segment;
  k.gw = k.width + 2 * k.border;
  k.gh = k.height + 2 * k.border;
  padded_n = (size_t) k.pw * k.ph;
  region_n = (size_t) k.gw * k.gh;
  tile_n = (size_t) k.width * k.height;
  /* Row scratch: best_segment's 3 rows of the region (and its
   * directions), or the isoline step's sums, or a residual row.  */
  k.scratch_each = (size_t) k.gw * 4;
  {
    size_t iso = (size_t) k.width * (k.planes + 1);

    if (iso > k.scratch_each)
      k.scratch_each = iso;
  }
  k.scratch_each = (k.scratch_each + 2 * RES + 15) / 16 * 16;

  bytes = sizeof *t + 64
          + sizeof (float) * ((k.planes + 1) * padded_n + k.planes * region_n
                              + k.planes * (tile_n + (size_t) k.width
                                                     * (k.height + 2 * RES))
                              + k.scratch_each * workers)
          + region_n + 64 * 16;
  block = bm3d_alloc (job, bytes);
  if (!block)
    {
      bm3d_job_message (job, "out of memory for a %dx%d isoline tile",
                        k.width, k.height);
      return BM3D_ERR_OUT_OF_MEMORY;
    }
  {
    char *at = block;

#define CARVE(ptr, n) ((ptr) = (void *) at, at += ((n) + 63) / 64 * 64)
    CARVE (t, sizeof *t);
    for (int c = 0; c < k.planes; c++)
      CARVE (k.padded[c], sizeof (float) * padded_n);
    CARVE (k.guide, sizeof (float) * padded_n);
    for (int c = 0; c < k.planes; c++)
      CARVE (k.sum[c], sizeof (float) * region_n);
    for (int c = 0; c < k.planes; c++)
      {
        CARVE (k.estimate[c], sizeof (float) * tile_n);
        CARVE (k.rows[c], sizeof (float) * k.width * (k.height + 2 * RES));
      }
    CARVE (k.scratch, sizeof (float) * k.scratch_each * workers);
    CARVE (k.theta, region_n);
#undef CARVE
  }
  bm3d_isoline_tables_init (p, noisy->sigma, k.planes, t);
  k.t = t;
  for (int d = 0; d < BM3D_ISOLINE_DIRECTIONS; d++)
    for (int i = 0; i < t->segment; i++)
      for (int a = 0; a < t->across; a++)
        k.segment_off[d][i * t->across + a]
          = t->pattern[d][i][a][1] * (ptrdiff_t) k.pw + t->pattern[d][i][a][0];
  for (int j = 0; j < t->region_count[1]; j++)
    k.window_off[j] = t->window_px[j][1] * (ptrdiff_t) k.pw + t->window_px[j][0];
  for (int h = 0; h < BM3D_ISOLINE_HALVES; h++)
    for (int j = 0; j < t->region_count[2 + BM3D_ISOLINE_HALVES + h]; j++)
      k.half_off[h][j] = t->half_px[h][j][1] * (ptrdiff_t) k.pw
                         + t->half_px[h][j][0];

  status = run_step (&k, STEP_PAD, k.ph, job, &done, 0.05);
  if (status == BM3D_OK)
    status = run_step (&k, STEP_GUIDE, k.ph, job, &done, 0.05);
  if (status == BM3D_OK)
    status = run_step (&k, STEP_BEST_SEGMENT, k.gh, job, &done, 0.4);
  if (status == BM3D_OK)
    status = run_step (&k, STEP_ISOLINE, k.height, job, &done,
                       t->hybrid ? 0.4 : 0.5);
  if (status == BM3D_OK && t->hybrid)
    status = run_step (&k, STEP_RESIDUAL_ROWS, k.height + 2 * RES, job,
                       &done, 0.05);
  if (status == BM3D_OK && t->hybrid)
    status = run_step (&k, STEP_RESIDUAL, k.height, job, &done, 0.05);
  bm3d_free (job, block, bytes);
  job->report->seconds_phase[0] += bm3d_seconds () - t0;
  return status;
}
