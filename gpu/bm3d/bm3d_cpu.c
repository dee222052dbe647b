/* The CPU backend: BM3D and CBM3D on one tile, on OpenMP threads.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Each phase walks the reference grid in horizontal bands of reference
 * rows.  A band matches its references, filters their groups and adds
 * the estimates into the tile's numerator and denominator planes.  A
 * band's writes reach at most half a search window plus a patch beyond
 * its rows, and bands are taller than that reach twice over, so bands
 * two apart never touch the same pixel: the even bands run in parallel,
 * and an odd band adds its sums once the two even bands beside it are
 * done.  Every pixel then receives its sums in the same order whatever
 * the thread count, and the output is bit-identical for any number of
 * threads.  With many threads, the bands of several tiles share one
 * pool (bm3d_cpu_tiles).
 *
 * The steps are those the CUDA backend mirrors: block_match (exhaustive
 * search, groups = the reference, then the best candidates by distance
 * and raster index; bm3d_cpu_match.c), collaborative_filter_hard and _wiener (2D transform
 * of each patch, orthonormal Haar transform across the group as in
 * Dabov et al.; bm3d_haar in bm3d_tables.c) and aggregate (Kaiser-
 * weighted sums).  */
#include "config.h"

#include "bm3d_cpu.h"
#include "bm3d_cpu_band.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

int
bm3d_cpu_tile_side (const bm3d_job *job)
{
  /* A 1536 + 2 x 48 tile holds 12 float planes (noisy, output,
   * numerators and denominators of 3 channels): about 128 MB, while the
   * overlap costs only 13 % more work than an unbounded tile.  */
  (void) job;
  return 1536;
}

int
bm3d_cpu_reference_grid (int length, int step, int *pos)
{
  int n = 0, last = length - K;

  if (step < 1)
    step = 1;
  for (int x = 0; x <= last; x += step)
    pos[n++] = x;
  if (n == 0 || pos[n - 1] != last)
    pos[n++] = last;
  return n;
}

/* The group of reference `ref` of the band: the reference itself first,
 * then its kept candidates, cut to a power of two.  Returns m.  */
static INLINE int
group_members (const phase_ctx *ctx, const band_scratch *s, int ref,
               int32_t ref_pos, int32_t *members)
{
  int cap = ctx->phase->group_max - 1;
  int m = bm3d_pow2_floor (s->count[ref] + 1);

  members[0] = ref_pos;
  for (int i = 1; i < m; i++)
    members[i] = s->pos[(size_t) ref * cap + i - 1];
  return m;
}

/* ---- collaborative filtering ----------------------------------------- */

/* out = m * x * m^T for an 8x8 patch x read with row stride `stride`;
 * mt holds the rows of m^T and m_all each entry of m in all eight lanes.
 * Each product row is a sum of matrix rows scaled by broadcast scalars:
 * plain vector multiply-adds, those of the second product straight from
 * the table in memory.  */
static INLINE void
transform_2d (const row8 m_all[K][K], const row8 mt[K], const float *x,
              size_t stride, row8 out[K])
{
  row8 t[K];

  for (int r = 0; r < K; r++)
    {
      const float *xr = x + r * stride;
      row8 acc = xr[0] * mt[0];

      for (int j = 1; j < K; j++)
        acc += xr[j] * mt[j];
      t[r] = acc;
    }
  for (int i = 0; i < K; i++)
    {
      row8 acc = m_all[i][0] * t[0];

      for (int j = 1; j < K; j++)
        acc += m_all[i][j] * t[j];
      out[i] = acc;
    }
}

/* Orthonormal Haar transform across the m patches of a group, for all 64
 * coefficients at once (the arithmetic of bm3d_haar): pairwise sums and
 * differences, level after level.  The patches come in `approx`, whose
 * first half each level overwrites with the level's sums (pair i is read
 * before sum i is written, at or before it); each level's differences go
 * straight to their places in `out`, and the last sum to out[0].  */
static INLINE void
haar_group (row8 *approx, int m, row8 *out)
{
  const float r = 0.70710678118654752f;
  int len;

  for (len = m; len > 1; len /= 2)
    for (int i = 0; i < len / 2; i++)
      for (int k = 0; k < K; k++)
        {
          row8 a = approx[2 * i * K + k], b = approx[(2 * i + 1) * K + k];

          approx[i * K + k] = (a + b) * r;
          out[(len / 2 + i) * K + k] = (a - b) * r;
        }
  memcpy (out, approx, sizeof (row8) * K);
}

/* Its inverse (bm3d_haar_inverse): the coefficients in `g`, the patches
 * into `out`.  Each level rebuilds out's first len sums from its first
 * len / 2 and g's differences, pair by pair from the last, so that out[i]
 * is read before pair i overwrites out[2i] and out[2i + 1].  */
static INLINE void
haar_group_inverse (const row8 *g, int m, row8 *out)
{
  const float r = 0.70710678118654752f;

  memcpy (out, g, sizeof (row8) * K);
  for (int len = 2; len <= m; len *= 2)
    for (int i = len / 2 - 1; i >= 0; i--)
      for (int k = 0; k < K; k++)
        {
          row8 a = out[i * K + k], d = g[(len / 2 + i) * K + k];

          out[2 * i * K + k] = (a + d) * r;
          out[(2 * i + 1) * K + k] = (a - d) * r;
        }
}

/* Add one estimated patch, weighted by the group's weight times the
 * Kaiser window (`wk`), into the numerator and denominator of channel
 * c.  */
static INLINE void
aggregate (const phase_ctx *ctx, int c, int32_t pos, const row8 *patch,
           const row8 wk[K])
{
  float *num = ctx->num[c] + pos;
  float *den = ctx->den[c] + pos;

  for (int i = 0; i < K; i++)
    {
      size_t o = (size_t) i * ctx->width;
      row8 n, d;

      load_row (&n, num + o);
      load_row (&d, den + o);
      n += wk[i] * patch[i];
      d += wk[i];
      store_row (num + o, &n);
      store_row (den + o, &d);
    }
}

static INLINE void
window_times (const phase_ctx *ctx, float weight, row8 wk[K])
{
  for (int i = 0; i < K; i++)
    wk[i] = weight * ctx->kaiser_rows[i];
}

/* The group of `members` of `plane` in the 3D transform domain, into
 * `g`: each patch's 2D transform into `tmp`, then the Haar transform
 * across the group.  */
static INLINE void
group_forward (const phase_ctx *ctx, const float *plane,
               const int32_t *members, int m, row8 *g, row8 *tmp)
{
  for (int i = 0; i < m; i++)
    transform_2d (ctx->fwd, ctx->fwd_t, plane + members[i], ctx->width,
                  tmp + i * K);
  haar_group (tmp, m, g);
}

/* The filtered group back from the 3D transform domain, each patch
 * added to channel c's sums with the group's weight.  */
static INLINE void
group_aggregate (const phase_ctx *ctx, int c, const int32_t *members, int m,
                 row8 *g, row8 *tmp, float weight)
{
  row8 est[K], wk[K];

  haar_group_inverse (g, m, tmp);
  window_times (ctx, weight, wk);
  for (int i = 0; i < m; i++)
    {
      transform_2d (ctx->inv, ctx->inv_t, (const float *) (tmp + i * K), K,
                    est);
      aggregate (ctx, c, members[i], est, wk);
    }
}

/* Phase 1: hard thresholding of the group in the 3D transform domain.  */
static INLINE void
collaborative_filter_hard (const phase_ctx *ctx, band_scratch *s,
                           const int32_t *members, int m)
{
  row8 *g = s->group;
  row8 *tmp = s->group + BM3D_GROUP_MAX * K;

  for (int c = 0; c < ctx->channels; c++)
    {
      const float thr = ctx->phase->lambda_3d * ctx->sigma[c];
      row8i kept8 = { 0 };
      int kept = 0;

      group_forward (ctx, ctx->noisy[c], members, m, g, tmp);
      for (int k = 0; k < m * K; k++)
        {
          row8i keep = (g[k] > thr) | (g[k] < -thr);

          kept8 -= keep;
          g[k] = (row8) ((row8i) g[k] & keep);
        }
      for (int j = 0; j < K; j++)
        kept += kept8[j];
      group_aggregate (ctx, c, members, m, g, tmp,
                       1.0f / (ctx->sigma[c] * ctx->sigma[c]
                               * (kept > 1 ? kept : 1)));
    }
}

/* The least noise variance a group's weight is taken from: a group
 * whose kept coefficients carry less (a profile of almost no noise, a
 * group of zeroed gains) would weigh so much that its sums overflow.  */
#define PROFILE_NOISE_MIN 1e-3f

/* Phase 1 for camera noise: every 3D coefficient thresholded at
 * lambda_3d times its own deviation.  The orthonormal Haar transform
 * across the group keeps a 2D coefficient's variance, so the 2D tables
 * serve the 3D spectrum; the group's weight is the inverse of the
 * kept coefficients' summed noise variance.  */
static INLINE void
collaborative_filter_hard_profile (const phase_ctx *ctx, band_scratch *s,
                                   const int32_t *members, int m)
{
  row8 *g = s->group;
  row8 *tmp = s->group + BM3D_GROUP_MAX * K;

  for (int c = 0; c < ctx->channels; c++)
    {
      const row8 *thr = ctx->thr_rows[c], *var = ctx->var_rows[c];
      row8 noise8 = { 0 };
      float noise = 0.0f;

      group_forward (ctx, ctx->noisy[c], members, m, g, tmp);
      for (int i = 0; i < m; i++)
        for (int u = 0; u < K; u++)
          {
            row8 v = g[i * K + u];
            row8i keep = (v > thr[u]) | (v < -thr[u]);

            noise8 += (row8) ((row8i) var[u] & keep);
            g[i * K + u] = (row8) ((row8i) v & keep);
          }
      for (int j = 0; j < K; j++)
        noise += noise8[j];
      /* Nothing kept: the group is its mean, as noisy as its DC.  */
      if (noise < var[0][0])
        noise = var[0][0];
      if (noise < PROFILE_NOISE_MIN)
        noise = PROFILE_NOISE_MIN;
      group_aggregate (ctx, c, members, m, g, tmp, 1.0f / noise);
    }
}

/* Phase 2 for camera noise: Wiener gains from each coefficient's own
 * noise variance.  */
static INLINE void
collaborative_filter_wiener_profile (const phase_ctx *ctx, band_scratch *s,
                                     const int32_t *members, int m)
{
  row8 *gz = s->group;
  row8 *gb = s->group + BM3D_GROUP_MAX * K;
  row8 *tmp = s->group + 2 * BM3D_GROUP_MAX * K;

  for (int c = 0; c < ctx->channels; c++)
    {
      const row8 *var = ctx->var_rows[c];
      row8 noise8 = { 0 };
      float noise = 0.0f;

      group_forward (ctx, ctx->noisy[c], members, m, gz, tmp);
      group_forward (ctx, ctx->basic[c], members, m, gb, tmp);
      for (int i = 0; i < m; i++)
        for (int u = 0; u < K; u++)
          {
            row8 b2 = gb[i * K + u] * gb[i * K + u];
            row8 gain = b2 / (b2 + var[u]);

            gz[i * K + u] *= gain;
            noise8 += gain * gain * var[u];
          }
      for (int j = 0; j < K; j++)
        noise += noise8[j];
      group_aggregate (ctx, c, members, m, gz, tmp,
                       1.0f / (noise > PROFILE_NOISE_MIN
                               ? noise : PROFILE_NOISE_MIN));
    }
}

/* The least summed squared gain a Wiener group's weight is taken from
 * (bm3d_cuda_filter.cu uses the same).  */
#define WIENER_ENERGY_MIN 1.0f

/* Phase 2: empirical Wiener shrinkage of the noisy group, its gains
 * taken from the basic estimate's group at the same positions.  */
static INLINE void
collaborative_filter_wiener (const phase_ctx *ctx, band_scratch *s,
                             const int32_t *members, int m)
{
  row8 *gz = s->group;
  row8 *gb = s->group + BM3D_GROUP_MAX * K;
  row8 *tmp = s->group + 2 * BM3D_GROUP_MAX * K;

  for (int c = 0; c < ctx->channels; c++)
    {
      const float s2 = ctx->sigma[c] * ctx->sigma[c];
      row8 energy8 = { 0 };
      float energy = 0.0f;

      group_forward (ctx, ctx->noisy[c], members, m, gz, tmp);
      group_forward (ctx, ctx->basic[c], members, m, gb, tmp);
      for (int k = 0; k < m * K; k++)
        {
          row8 b2 = gb[k] * gb[k];
          row8 gain = b2 / (b2 + s2);

          gz[k] *= gain;
          energy8 += gain * gain;
        }
      for (int j = 0; j < K; j++)
        energy += energy8[j];
      /* A group whose basic estimate is next to zero (black) has gains
       * next to zero: their energy floored at one coefficient's keeps
       * its weight finite at small sigma, where 1 / (s2 * energy) would
       * overflow the sums into inf / inf.  */
      group_aggregate (ctx, c, members, m, gz, tmp,
                       1.0f / (s2 * (energy > WIENER_ENERGY_MIN
                                     ? energy : WIENER_ENERGY_MIN)));
    }
}

/* Filter the groups of band `b`, reference after reference in raster
 * order.  */
HOT_LOOP static void
filter_band (const phase_ctx *ctx, band_scratch *s, int b)
{
  const int r0 = ctx->band_first[b], r1 = ctx->band_first[b + 1];
  int32_t members[BM3D_GROUP_MAX];

  for (int r = r0; r < r1; r++)
    for (int i = 0; i < ctx->nx; i++)
      {
        int ref = (r - r0) * ctx->nx + i;
        int m = group_members (ctx, s, ref,
                               ctx->ys[r] * ctx->width + ctx->xs[i],
                               members);

        if (ctx->profile)
          {
            if (ctx->wiener)
              collaborative_filter_wiener_profile (ctx, s, members, m);
            else
              collaborative_filter_hard_profile (ctx, s, members, m);
          }
        else if (ctx->wiener)
          collaborative_filter_wiener (ctx, s, members, m);
        else
          collaborative_filter_hard (ctx, s, members, m);
      }
}

/* ---- bands, scratch and threads -------------------------------------- */

/* Split the reference rows into bands taller than twice the reach of a
 * band's writes beyond its rows (search radius + patch), so that bands
 * two apart are independent.  The split depends on the geometry and the
 * phase alone, never on the thread count.  Returns the band count.  */
static int
split_bands (const int *ys, int ny, int radius, int *band_first)
{
  int height = 2 * radius + K;
  int bands = 0;

  height = (height + 7) / 8 * 8;
  for (int r = 0; r < ny; r++)
    {
      int b = ys[r] / height;

      while (bands <= b)
        band_first[bands++] = r;
    }
  band_first[bands] = ny;
  return bands;
}

typedef struct
{
  size_t dist, pos, count, limit, hsum, group;
} scratch_sizes;

static size_t
scratch_layout (const phase_ctx *ctx, scratch_sizes *z)
{
  size_t refs = (size_t) ctx->band_rows_max * ctx->nx;
  size_t cap = BM3D_GROUP_MAX;
  int rows = 0;

  for (int b = 0; b < ctx->bands; b++)
    {
      int r0 = ctx->band_first[b], r1 = ctx->band_first[b + 1];

      if (r1 > r0 && ctx->ys[r1 - 1] + K - ctx->ys[r0] > rows)
        rows = ctx->ys[r1 - 1] + K - ctx->ys[r0];
    }
  z->dist = refs * cap * sizeof (float);
  z->pos = refs * cap * sizeof (int32_t);
  z->count = refs * sizeof (int);
  z->limit = (size_t) ctx->band_rows_max * (ctx->width + 16) * sizeof (float);
  /* A band's rows and up to a search radius above them (block
   * matching's opposite displacements); padding: whole vectors run up
   * to 8 values past a row's end.  */
  z->hsum = ((size_t) (rows + ctx->phase->search / 2) * ctx->width + 16)
            * sizeof (float);
  z->group = 3 * BM3D_GROUP_MAX * BM3D_PATCH_AREA * sizeof (float);
  /* Each array starts on a cache line, and so does each worker's
   * block: the group's vectors are accessed aligned.  */
  return (z->dist + z->pos + z->count + z->limit + z->hsum + z->group
          + 7 * 64) & ~(size_t) 63;
}

/* One block per worker, carved into its arrays (64-byte aligned).  */
static void
scratch_carve (char *block, const scratch_sizes *z, band_scratch *s)
{
#define CARVE(field, type) \
  do { s->field = (type *) block; block += (z->field + 63) & ~(size_t) 63; } while (0)
  CARVE (dist, float);
  CARVE (pos, int32_t);
  CARVE (count, int);
  CARVE (limit, float);
  CARVE (hsum, float);
  CARVE (group, row8);
#undef CARVE
}

static int
current_thread (void)
{
#ifdef _OPENMP
  return omp_get_thread_num ();
#else
  return 0;
#endif
}

/* Report the groups of band `b` of a plane (tests only).  */
static void
report_groups (const phase_ctx *ctx, const band_scratch *s, int b,
               int *sizes, int32_t *members)
{
  int r0 = ctx->band_first[b], r1 = ctx->band_first[b + 1];
  int gmax = ctx->phase->group_max;

  for (int r = r0; r < r1; r++)
    for (int i = 0; i < ctx->nx; i++)
      {
        size_t ref = (size_t) r * ctx->nx + i;

        sizes[ref] = group_members (ctx, s, (r - r0) * ctx->nx + i,
                                    ctx->ys[r] * ctx->width + ctx->xs[i],
                                    members + ref * gmax);
      }
}

/* The band the k-th task of a phase handles: the even bands first, then
 * the odd ones.  */
static int
band_of_task (int k, int bands)
{
  int even = (bands + 1) / 2;

  return k < even ? 2 * k : 2 * (k - even) + 1;
}

/* Yields before a waiting thread sleeps between looks: a band takes
 * tens of milliseconds, and a sleeping thread leaves its core to the
 * bands it waits for when the machine has more threads than cores.  */
#define WAIT_YIELDS 64
#define WAIT_SLEEP_NS 100000

/* Wait until the even bands beside odd band `b` have added their sums
 * (or the phase was cancelled).  Block matching only reads, so an odd
 * band matches before it waits; only its sums must come after theirs.  */
static void
wait_for_neighbours (const phase_ctx *ctx, const int *band_done, int b,
                     const int *cancelled)
{
  const struct timespec pause = { 0, WAIT_SLEEP_NS };

  for (int looks = 0;; looks++)
    {
      int left = __atomic_load_n (&band_done[b - 1], __ATOMIC_ACQUIRE);
      int right = b + 1 >= ctx->bands
                  || __atomic_load_n (&band_done[b + 1], __ATOMIC_ACQUIRE);

      if ((left && right) || __atomic_load_n (cancelled, __ATOMIC_RELAXED))
        return;
      if (looks < WAIT_YIELDS)
        sched_yield ();
      else
        nanosleep (&pause, NULL);
    }
}

/* Per band of a traced phase: seconds matching, filtering, and waiting
 * for the neighbours.  */
typedef struct
{
  double match, filter, wait;
} band_times;

static void
trace_bands (const phase_ctx *ctx, const bm3d_job *job,
             const band_times *bt, double wall)
{
  bm3d_job_trace (job, "phase %dx%d %s bands %d threads %d wall %.3f ms",
                  ctx->width, ctx->height, ctx->wiener ? "wiener" : "hard",
                  ctx->bands, job->threads, 1e3 * wall);
  for (int b = 0; b < ctx->bands; b++)
    bm3d_job_trace (job, "band %d rows %d match %.3f filter %.3f wait %.3f ms",
                    b, ctx->band_first[b + 1] - ctx->band_first[b],
                    1e3 * bt[b].match, 1e3 * bt[b].filter,
                    1e3 * bt[b].wait);
}

/* Run block matching and, unless `filter` is 0, filtering over every
 * band of the `n` tiles' phases `ctx` in one pool of threads, tile
 * after tile.  Bands two apart never touch the same pixel, so every
 * pixel receives an even band's sums, then an odd band's, whatever the
 * thread count: a tile's even bands are handed out before its odd ones,
 * and an odd band adds its sums once the even bands beside it are done.
 * Unlike a barrier between the parities, this lets the odd bands match
 * while the last even ones filter, and the next tile's bands keep the
 * threads busy that a tile's last bands leave idle.  `done` and `share`
 * place the phase in the tiles' progress.  */
static bm3d_status
run_bands (phase_ctx *const *ctx, int n, bm3d_job *job, int filter,
           double done, double share, int *sizes, int32_t *members)
{
  scratch_sizes z[BM3D_TILES_IN_FLIGHT_MAX];
  int first[BM3D_TILES_IN_FLIGHT_MAX + 1];
  size_t each = 0, flags_bytes;
  int workers = job->threads, total;
  char *block;
  int *band_done;
  band_times *bt = NULL;
  int next = 0, bands_done = 0, cancelled = 0;
  double t0 = bm3d_seconds ();

  first[0] = 0;
  for (int i = 0; i < n; i++)
    {
      size_t e = scratch_layout (ctx[i], &z[i]);

      if (e > each)
        each = e;
      first[i + 1] = first[i] + ctx[i]->bands;
    }
  total = first[n];
  flags_bytes = sizeof (int) * (size_t) (total > 0 ? total : 1);
  if (workers > total)
    workers = total;
  if (workers < 1)
    workers = 1;
  block = bm3d_alloc (job, each * workers);
  band_done = bm3d_alloc (job, flags_bytes);
  if (job->env.cpu_trace)
    bt = calloc (total > 0 ? total : 1, sizeof *bt);
  if (!block || !band_done)
    {
      bm3d_free (job, block, each * workers);
      bm3d_free (job, band_done, flags_bytes);
      free (bt);
      bm3d_job_message (job, "out of memory for the CPU backend's "
                        "%zu-byte work space", each * workers);
      return BM3D_ERR_OUT_OF_MEMORY;
    }
  memset (band_done, 0, flags_bytes);

#ifdef _OPENMP
#pragma omp parallel num_threads(workers)
#endif
  {
    int tid = current_thread (), carved = -1;
    band_scratch s;

    for (;;)
      {
        int k = __atomic_fetch_add (&next, 1, __ATOMIC_RELAXED);
        int i = 0, b, *tile_done;
        double t1, t2, t3;

        if (k >= total)
          break;
        while (k >= first[i + 1])
          i++;
        b = band_of_task (k - first[i], ctx[i]->bands);
        tile_done = band_done + first[i];
        if (__atomic_load_n (&cancelled, __ATOMIC_RELAXED))
          {
            __atomic_store_n (&tile_done[b], 1, __ATOMIC_RELEASE);
            continue;
          }
        if (carved != i)
          {
            /* Defined values in the padding that vectors run over,
             * written by the thread that uses them.  */
            memset (block + each * tid, 0, each);
            scratch_carve (block + each * tid, &z[i], &s);
            carved = i;
          }
        t1 = bm3d_seconds ();
        bm3d_cpu_block_match (ctx[i], &s, b);
        t2 = bm3d_seconds ();
        if (b % 2)
          wait_for_neighbours (ctx[i], tile_done, b, &cancelled);
        t3 = bm3d_seconds ();
        if (filter)
          filter_band (ctx[i], &s, b);
        else
          report_groups (ctx[i], &s, b, sizes, members);
        if (bt)
          {
            bt[first[i] + b].match = t2 - t1;
            bt[first[i] + b].wait = t3 - t2;
            bt[first[i] + b].filter = bm3d_seconds () - t3;
          }
        __atomic_store_n (&tile_done[b], 1, __ATOMIC_RELEASE);
        __atomic_add_fetch (&bands_done, 1, __ATOMIC_RELAXED);

        /* Progress and cancellation from the calling thread alone.  */
        if (tid == 0 && job->tick
            && job->tick (job, done + share
                               * __atomic_load_n (&bands_done,
                                                  __ATOMIC_RELAXED)
                               / total))
          __atomic_store_n (&cancelled, 1, __ATOMIC_RELAXED);
      }
  }
  for (int i = 0; bt && i < n; i++)
    trace_bands (ctx[i], job, bt + first[i], bm3d_seconds () - t0);
  free (bt);
  bm3d_free (job, band_done, flags_bytes);
  bm3d_free (job, block, each * workers);
  if (!cancelled && job->tick && job->tick (job, done + share))
    cancelled = 1;
  if (cancelled)
    {
      bm3d_job_message (job, "cancelled");
      return BM3D_ERR_CANCELLED;
    }
  return BM3D_OK;
}

/* Reference grid and bands of a plane.  Returns 0 when out of memory.  */
static int
grid_alloc (phase_ctx *ctx, bm3d_job *job, int **buffer, size_t *bytes)
{
  int *xs, *ys, *bf, *xcol;

  *bytes = sizeof (int) * (2 * (size_t) ctx->width + 16 + 2 * ctx->height
                           + 2);
  *buffer = bm3d_alloc (job, *bytes);
  if (!*buffer)
    {
      bm3d_job_message (job, "out of memory for the reference grid");
      return 0;
    }
  xs = *buffer;
  ys = xs + ctx->width;
  bf = ys + ctx->height;
  xcol = bf + ctx->height + 2;
  ctx->nx = bm3d_cpu_reference_grid (ctx->width, ctx->phase->step, xs);
  for (int x = 0; x < ctx->width + 16; x++)
    xcol[x] = -1;
  for (int i = 0; i < ctx->nx; i++)
    xcol[xs[i]] = i;
  ctx->xcol = xcol;
  ctx->ny = bm3d_cpu_reference_grid (ctx->height, ctx->phase->step, ys);
  ctx->bands = split_bands (ys, ctx->ny, ctx->phase->search / 2, bf);
  ctx->xs = xs;
  ctx->ys = ys;
  ctx->band_first = bf;
  ctx->band_rows_max = 0;
  for (int b = 0; b < ctx->bands; b++)
    if (bf[b + 1] - bf[b] > ctx->band_rows_max)
      ctx->band_rows_max = bf[b + 1] - bf[b];
  return 1;
}

/* The camera-noise tables of a phase, from the job's per-plane
 * coefficient variances.  */
static void
profile_setup (phase_ctx *ctx, const bm3d_job *job)
{
  ctx->profile = job->per_coefficient_noise;
  if (!ctx->profile)
    return;
  for (int c = 0; c < ctx->channels; c++)
    {
      const float *var = ctx->wiener ? job->var_wiener[c] : job->var_hard[c];

      for (int u = 0; u < K; u++)
        for (int v = 0; v < K; v++)
          {
            ctx->var_rows[c][u][v] = var[u * K + v];
            ctx->thr_rows[c][u][v] = ctx->phase->lambda_3d
                                     * sqrtf (var[u * K + v]);
          }
    }
}

static void
phase_setup (phase_ctx *ctx, const bm3d_phase_profile *phase, int wiener)
{
  bm3d_transform_2d t;
  float kaiser[K][K];

  ctx->phase = phase;
  ctx->wiener = wiener;
  bm3d_transform_2d_init (phase->transform_2d, &t);
  for (int i = 0; i < K; i++)
    for (int j = 0; j < K; j++)
      {
        for (int l = 0; l < 8; l++)
          {
            ctx->fwd[i][j][l] = t.fwd[i][j];
            ctx->inv[i][j][l] = t.inv[i][j];
          }
        ctx->fwd_t[j][i] = t.fwd[i][j];
        ctx->inv_t[j][i] = t.inv[i][j];
      }
  bm3d_kaiser_window (phase->kaiser_beta, kaiser);
  for (int i = 0; i < K; i++)
    load_row (&ctx->kaiser_rows[i], kaiser[i]);
}

/* Zero a tile's numerators and denominators, rows split among the
 * threads (on one, the whole-tile loops would cost a 16-thread run
 * several percent of its time).  */
static void
zero_sums (const phase_ctx *ctx, int threads)
{
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads)
#endif
  for (int k = 0; k < ctx->channels * ctx->height; k++)
    {
      int c = k / ctx->height;
      size_t o = (size_t) (k % ctx->height) * ctx->width;

      memset (ctx->num[c] + o, 0, ctx->width * sizeof (float));
      memset (ctx->den[c] + o, 0, ctx->width * sizeof (float));
    }
  (void) threads;
}

/* The estimate, numerator over denominator, into `result`.  */
static void
sums_ratio (const phase_ctx *ctx, float *const *result, int threads)
{
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads)
#endif
  for (int k = 0; k < ctx->channels * ctx->height; k++)
    {
      int c = k / ctx->height;
      size_t o = (size_t) (k % ctx->height) * ctx->width;
      const float *num = ctx->num[c] + o, *den = ctx->den[c] + o;
      const float *noisy = ctx->noisy[c] + o;
      float *out = result[c] + o;

      for (int x = 0; x < ctx->width; x++)
        out[x] = den[x] > 0.0f ? num[x] / den[x] : noisy[x];
    }
  (void) threads;
}

/* One phase over `n` tiles: numerators and denominators from zero, the
 * bands of all of them in one pool, then each one's ratio into its
 * `out` planes.  */
static bm3d_status
run_phase (phase_ctx *const *ctx, int n, bm3d_job *job, bm3d_planes *out,
           double done, double share)
{
  int *grid[BM3D_TILES_IN_FLIGHT_MAX] = { NULL };
  size_t grid_bytes[BM3D_TILES_IN_FLIGHT_MAX] = { 0 };
  bm3d_status status = BM3D_OK;
  double t0;

  for (int i = 0; i < n && status == BM3D_OK; i++)
    if (!grid_alloc (ctx[i], job, &grid[i], &grid_bytes[i]))
      status = BM3D_ERR_OUT_OF_MEMORY;
  if (status == BM3D_OK)
    {
      t0 = bm3d_seconds ();
      for (int i = 0; i < n; i++)
        zero_sums (ctx[i], job->threads);
      bm3d_job_trace (job, "stage zero_sums %.3f ms",
                      1e3 * (bm3d_seconds () - t0));
      status = run_bands (ctx, n, job, 1, done, share, NULL, NULL);
    }
  for (int i = 0; i < n; i++)
    bm3d_free (job, grid[i], grid_bytes[i]);
  if (status != BM3D_OK)
    return status;

  t0 = bm3d_seconds ();
  for (int i = 0; i < n; i++)
    sums_ratio (ctx[i], out[i].plane, job->threads);
  bm3d_job_trace (job, "stage ratio %.3f ms", 1e3 * (bm3d_seconds () - t0));
  return BM3D_OK;
}

int
bm3d_cpu_tiles_in_flight (const bm3d_job *job)
{
  /* A tile of 1536 + 2 x 48 has about 33 bands a phase: 16 threads get
   * two each, and half of them a third that the other half waits for.
   * The next tiles' bands fill those waits, at 128 MB a tile; below 8
   * threads the waits are short and the memory is worth more.  */
  int n = 1 + job->threads / 8;

  return n < BM3D_TILES_IN_FLIGHT_MAX ? n : BM3D_TILES_IN_FLIGHT_MAX;
}

/* Each tile's phase context, its planes and sums tied in.  */
static void
tile_ctx (phase_ctx *ctx, const bm3d_planes *noisy, float *sums)
{
  size_t n = (size_t) noisy->width * noisy->height;

  memset (ctx, 0, sizeof *ctx);
  ctx->width = noisy->width;
  ctx->height = noisy->height;
  ctx->channels = noisy->channels;
  for (int c = 0; c < noisy->channels; c++)
    {
      ctx->noisy[c] = noisy->plane[c];
      ctx->sigma[c] = noisy->sigma[c];
      ctx->num[c] = sums + 2 * c * n;
      ctx->den[c] = sums + (2 * c + 1) * n;
    }
}

bm3d_status
bm3d_cpu_tiles (const bm3d_planes *noisy, bm3d_planes *out, int n,
                bm3d_job *job)
{
  phase_ctx ctx[BM3D_TILES_IN_FLIGHT_MAX], *ctxp[BM3D_TILES_IN_FLIGHT_MAX];
  float *sums[BM3D_TILES_IN_FLIGHT_MAX] = { NULL };
  size_t sums_bytes[BM3D_TILES_IN_FLIGHT_MAX] = { 0 };
  bm3d_status status = BM3D_OK;
  double t0, weight1 = job->phases == 2 ? 0.4 : 1.0;

  if (n < 1 || n > BM3D_TILES_IN_FLIGHT_MAX)
    {
      bm3d_job_message (job, "%d tiles at once (1 to %d)", n,
                        BM3D_TILES_IN_FLIGHT_MAX);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  for (int i = 0; i < n && status == BM3D_OK; i++)
    {
      sums_bytes[i] = 2 * (size_t) noisy[i].channels * noisy[i].width
                      * noisy[i].height * sizeof (float);
      sums[i] = bm3d_alloc (job, sums_bytes[i]);
      if (!sums[i])
        {
          bm3d_job_message (job, "out of memory for a %dx%d tile's sums",
                            noisy[i].width, noisy[i].height);
          status = BM3D_ERR_OUT_OF_MEMORY;
          break;
        }
      tile_ctx (&ctx[i], &noisy[i], sums[i]);
      ctxp[i] = &ctx[i];
    }

  /* Phase 1: the basic estimate, straight into `out`.  */
  if (status == BM3D_OK)
    {
      t0 = bm3d_seconds ();
      for (int i = 0; i < n; i++)
        {
          phase_setup (&ctx[i], &job->bm3d_settings.hard, 0);
          profile_setup (&ctx[i], job);
          ctx[i].match = noisy[i].plane[0];
        }
      status = run_phase (ctxp, n, job, out, 0.0, weight1);
      job->report->seconds_phase[0] += bm3d_seconds () - t0;
    }

  /* Phase 2: Wiener filtering guided by the basic estimate.  The
   * result overwrites the basic estimate only once every band is done
   * with it.  */
  if (status == BM3D_OK && job->phases == 2)
    {
      t0 = bm3d_seconds ();
      for (int i = 0; i < n; i++)
        {
          phase_setup (&ctx[i], &job->bm3d_settings.wiener, 1);
          profile_setup (&ctx[i], job);
          for (int c = 0; c < noisy[i].channels; c++)
            ctx[i].basic[c] = out[i].plane[c];
          ctx[i].match = out[i].plane[0];
        }
      status = run_phase (ctxp, n, job, out, weight1, 1.0 - weight1);
      job->report->seconds_phase[1] += bm3d_seconds () - t0;
    }

  for (int i = 0; i < n; i++)
    bm3d_free (job, sums[i], sums_bytes[i]);
  return status;
}

bm3d_status
bm3d_cpu_tile (const bm3d_planes *noisy, bm3d_planes *out, bm3d_job *job)
{
  return bm3d_cpu_tiles (noisy, out, 1, job);
}

bm3d_status
bm3d_cpu_match_plane (const float *plane, int width, int height,
                      const bm3d_phase_profile *phase, int threads,
                      int *sizes, int32_t *members)
{
  bm3d_report report;
  bm3d_job job;
  phase_ctx ctx, *ctxp;
  int *grid;
  size_t grid_bytes;
  bm3d_status status;

  memset (&report, 0, sizeof report);
  memset (&job, 0, sizeof job);
  memset (&ctx, 0, sizeof ctx);
  job.report = &report;
  job.threads = threads > 0 ? threads : 1;
  ctx.phase = phase;
  ctx.width = width;
  ctx.height = height;
  ctx.channels = 1;
  ctx.match = plane;
  if (width < K || height < K || phase->group_max > BM3D_GROUP_MAX)
    return BM3D_ERR_INVALID_SIZE;
  if (!grid_alloc (&ctx, &job, &grid, &grid_bytes))
    return BM3D_ERR_OUT_OF_MEMORY;
  ctxp = &ctx;
  status = run_bands (&ctxp, 1, &job, 0, 0.0, 1.0, sizes, members);
  bm3d_free (&job, grid, grid_bytes);
  return status;
}
