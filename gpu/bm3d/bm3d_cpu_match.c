/* The CPU backend's block matching: every displacement of the search
 * window, its patch distances for a whole band of references at once.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "bm3d_cpu_band.h"

#include <stddef.h>
#include <string.h>

/* ---- block matching -------------------------------------------------- */

/* Lanes s .. s + 7 of the sixteen values a, b (0 < s < 8).  */
#define LANES_FROM(a, b, s) \
  __builtin_shuffle ((a), (b), (row8i) { (s), (s) + 1, (s) + 2, (s) + 3, \
                                         (s) + 4, (s) + 5, (s) + 6, (s) + 7 })

/* sq[j] = (a[at + j] - b[at + j])^2, where a and b hold `readable`
 * values: 0 stands for those past them.  */
static INLINE void
squared_differences (const float *a, const float *b, size_t at,
                     size_t readable, row8 *sq)
{
  row8 u, v;

  if (at + 8 <= readable)
    {
      load_row (&u, a + at);
      load_row (&v, b + at);
    }
  else
    for (size_t j = 0; j < 8; j++)
      {
        u[j] = at + j < readable ? a[at + j] : 0.0f;
        v[j] = at + j < readable ? b[at + j] : 0.0f;
      }
  u -= v;
  *sq = u * u;
}

/* The box sums' state: the newest two vectors of squares, the pair sums
 * one vector behind them and the quad sums two behind.  */
typedef struct
{
  row8 sq0, sq1, pair0, pair1, quad0;
} box_state;

/* Take the next vector of squares and give the sums of the vector the
 * quads have reached.  */
static INLINE void
box_step (box_state *t, const row8 *sq, float *out)
{
  row8 quad1, sum;

  t->sq0 = t->sq1;
  t->sq1 = *sq;
  t->pair0 = t->pair1;
  t->pair1 = t->sq0 + LANES_FROM (t->sq0, t->sq1, 1);
  quad1 = t->pair0 + LANES_FROM (t->pair0, t->pair1, 2);
  sum = t->quad0 + LANES_FROM (t->quad0, quad1, 4);
  store_row (out, &sum);
  t->quad0 = quad1;
}

/* out[x] = sum over j < 8 of (a[x + j] - b[x + j])^2 for x in [lo, hi],
 * summed as a tree, ((0 + 1) + (2 + 3)) + ((4 + 5) + (6 + 7)), so every x
 * rounds the same way.  The tree's levels stay in registers: vector k of
 * a level needs vector k + 1 of the one below, so the levels run two and
 * one vectors ahead of the output.  Whole vectors run past hi, reading
 * on into the next rows (`readable` values from a + lo and b + lo) and
 * writing into the padding of `out`: only sums past hi see those values,
 * and none of them is read back as a result.  */
static INLINE void
row_box_sums (const float *a, const float *b, int lo, int hi,
              size_t readable, float *out)
{
  const int vectors = (hi - lo) / 8 + 1;
  /* The vectors whose squares ahead are read whole: all but the
   * plane's last few.  */
  const int whole = readable >= 4 * 8
                    ? (int) ((readable - 4 * 8) / 8) + 1 : 0;
  box_state t;
  row8 sq;
  int k;

  a += lo;
  b += lo;
  out += lo;
  squared_differences (a, b, 0, readable, &t.sq0);
  squared_differences (a, b, 8, readable, &t.sq1);
  t.pair1 = t.sq0 + LANES_FROM (t.sq0, t.sq1, 1);
  t.sq0 = t.sq1;
  squared_differences (a, b, 16, readable, &t.sq1);
  t.pair0 = t.pair1;
  t.pair1 = t.sq0 + LANES_FROM (t.sq0, t.sq1, 1);
  t.quad0 = t.pair0 + LANES_FROM (t.pair0, t.pair1, 2);
  for (k = 0; k < vectors && k < whole; k++)
    {
      row8 u, v;

      load_row (&u, a + 8 * (size_t) (k + 3));
      load_row (&v, b + 8 * (size_t) (k + 3));
      u -= v;
      sq = u * u;
      box_step (&t, &sq, out + 8 * k);
    }
  for (; k < vectors; k++)
    {
      squared_differences (a, b, 8 * (size_t) (k + 3), readable, &sq);
      box_step (&t, &sq, out + 8 * k);
    }
}

/* Sum of the eight rows, `stride` apart, of a column of horizontal
 * sums, as a tree like row_box_sums.  */
static INLINE void
column_sums (const float *h, size_t stride, row8 *sum)
{
  row8 v0, v1, v2, v3, v4, v5, v6, v7;

  load_row (&v0, h);
  load_row (&v1, h + stride);
  load_row (&v2, h + 2 * stride);
  load_row (&v3, h + 3 * stride);
  load_row (&v4, h + 4 * stride);
  load_row (&v5, h + 5 * stride);
  load_row (&v6, h + 6 * stride);
  load_row (&v7, h + 7 * stride);
  *sum = ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7));
}

/* Keep candidate `p` at distance `d` in a reference's list, sorted by
 * distance and then raster index, if it belongs among the `cap` best.
 * Once the list is full, `limit` is its last distance: the vector screen
 * lets equal distances through and the raster index settles them.  */
static INLINE void
keep_candidate (float *dist, int32_t *pos, int *count, float *limit,
                int cap, float d, int32_t p)
{
  int n = *count;
  int i = n < cap ? n : cap - 1;

  if (n == cap && d == dist[cap - 1] && p > pos[cap - 1])
    return;
  while (i > 0 && (dist[i - 1] > d || (dist[i - 1] == d && pos[i - 1] > p)))
    {
      dist[i] = dist[i - 1];
      pos[i] = pos[i - 1];
      i--;
    }
  dist[i] = d;
  pos[i] = p;
  if (n < cap)
    *count = ++n;
  if (n == cap)
    *limit = dist[cap - 1];
}

/* Bit j set for each lane j of a comparison result that is set.  */
static INLINE unsigned
lane_bits (const row8i *hit)
{
  const row8i bit = { 1, 2, 4, 8, 16, 32, 64, 128 };
  row8i b = *hit & bit;

  return (unsigned) ((b[0] | b[1]) | (b[2] | b[3]))
         | (unsigned) ((b[4] | b[5]) | (b[6] | b[7]));
}

/* The t-th offset of a search from its centre outwards: 0, -1, 1, -2,
 * 2 ...  Good candidates lie mostly near the reference: found first,
 * they fill the lists early and turn the farther ones away at the
 * vector screen, where an insertion costs the most.  */
static INLINE int
near_first (int t)
{
  return t % 2 ? -(t + 1) / 2 : t / 2;
}

/* The band's reference rows [*ra, *rb) whose candidate row at vertical
 * displacement dy is inside the plane.  */
static INLINE void
rows_inside (const phase_ctx *ctx, int b, int dy, int *ra, int *rb)
{
  int a = ctx->band_first[b], z = ctx->band_first[b + 1];

  while (a < z && ctx->ys[a] + dy < 0)
    a++;
  while (z > a && ctx->ys[z - 1] + dy > ctx->height - K)
    z--;
  *ra = a;
  *rb = z;
}

/* Screen the candidates at displacement (dx, dy) of the references of
 * rows [ra, rb) and columns [lo, hi], and keep those that belong in
 * their lists.  The horizontal sums of the patch rows of reference row y
 * start at hsum + at + y * width.  */
static INLINE void
screen_candidates (const phase_ctx *ctx, band_scratch *s, int b, int ra,
                   int rb, int dx, int dy, int lo, int hi, const float *hsum,
                   ptrdiff_t at)
{
  const int w = ctx->width, nx = ctx->nx;
  const int r0 = ctx->band_first[b];
  const int cap = ctx->phase->group_max - 1;

  for (int r = ra; r < rb; r++)
    {
      const float *hr = hsum + (at + (ptrdiff_t) ctx->ys[r] * w);
      float *lr = s->limit + (size_t) (r - r0) * (w + 16);
      const int base = (r - r0) * nx;
      const int32_t row = (ctx->ys[r] + dy) * w + dx;

      for (int x = lo; x <= hi; x += 8)
        {
          row8 d, lim;
          row8i hit;
          float dl[8];
          unsigned mask;

          column_sums (hr + x, w, &d);
          load_row (&lim, lr + x);
          hit = d <= lim;
          if (!ANY_LANE (hit))
            continue;
          store_row (dl, &d);
          /* The lanes that passed, up to hi (lanes past it hold no
           * candidate); keeping one changes only its own limit.  */
          mask = lane_bits (&hit);
          if (hi - x < 7)
            mask &= (1u << (hi - x + 1)) - 1;
          while (mask)
            {
              const int j = __builtin_ctz (mask);
              const int ref = base + ctx->xcol[x + j];

              mask &= mask - 1;
              keep_candidate (s->dist + (size_t) ref * cap,
                              s->pos + (size_t) ref * cap,
                              s->count + ref, lr + x + j, cap,
                              dl[j], row + x + j);
            }
        }
    }
}

/* Find the group candidates of every reference of band `b`: all
 * displacements of the search window, each one's patch distances
 * computed for the whole band at once.
 *
 * A displacement d = (dx, dy) and its opposite share their horizontal
 * sums: the sum at row y, column x for -d is the one at row y - dy,
 * column x - dx for d, the same squares in the same order.  So the
 * window's lower half (dy > 0, and dy = 0, dx > 0) is walked, each
 * displacement's sums taken over the rows both it and its opposite
 * read, and both screened from them.  */
HOT_LOOP void
bm3d_cpu_block_match (const phase_ctx *ctx, band_scratch *s, int b)
{
  const float *img = ctx->match;
  const int w = ctx->width;
  const size_t plane = (size_t) w * ctx->height;
  const int r0 = ctx->band_first[b], r1 = ctx->band_first[b + 1];
  const int nx = ctx->nx;
  const int cap = ctx->phase->group_max - 1;
  const int radius = ctx->phase->search / 2;
  const float tau = ctx->phase->tau_match * (float) BM3D_PATCH_AREA;

  /* Limits are kept per reference row and pixel column, so that a row
   * of distances is compared with its limits vector by vector; columns
   * that are no reference never accept anything.  */
  for (int r = 0; r < r1 - r0; r++)
    {
      float *lr = s->limit + (size_t) r * (w + 16);

      for (int x = 0; x < w + 16; x++)
        lr[x] = -1.0f;
      for (int i = 0; i < nx; i++)
        {
          s->count[r * nx + i] = 0;
          lr[ctx->xs[i]] = cap > 0 ? tau : -1.0f;
        }
    }
  if (cap == 0)
    return;

  for (int dy = 0; dy <= radius; dy++)
    {
      int ra, rb, sa, sb, y_low, y_end;

      /* Rows of references with a candidate at +dy, and at -dy.  */
      rows_inside (ctx, b, dy, &ra, &rb);
      rows_inside (ctx, b, -dy, &sa, &sb);
      if (ra == rb && sa == sb)
        continue;
      /* The sums' rows: those +dy reads, and those -dy reads moved up
       * by dy (the hsum array holds rows from the band's top - radius).  */
      y_low = ra < rb ? ctx->ys[ra] : ctx->ys[sa] - dy;
      y_end = ra < rb ? ctx->ys[rb - 1] + K : 0;
      if (sa < sb && ctx->ys[sa] - dy < y_low)
        y_low = ctx->ys[sa] - dy;
      if (sa < sb && ctx->ys[sb - 1] + K - dy > y_end)
        y_end = ctx->ys[sb - 1] + K - dy;

      for (int tx = 0; tx <= 2 * radius; tx++)
        {
          const int dx = near_first (tx);
          /* References whose candidate column is inside the plane, at
           * +dx; those at -dx are the same columns moved by dx.  */
          const int lo = dx < 0 ? -dx : 0;
          const int hi = dx > 0 ? w - K - dx : w - K;
          const ptrdiff_t top = (ptrdiff_t) y_low * w;

          if (dy == 0 && dx <= 0)
            continue;
          if (lo > hi)
            continue;

          for (int y = y_low; y < y_end; y++)
            row_box_sums (img + (size_t) y * w,
                          img + (size_t) (y + dy) * w + dx, lo, hi,
                          plane - ((size_t) (y + dy) * w
                                   + lo + (dx > 0 ? dx : 0)),
                          s->hsum + (size_t) (y - y_low) * w);

          if (ra < rb)
            screen_candidates (ctx, s, b, ra, rb, dx, dy, lo, hi, s->hsum,
                               -top);
          if (sa < sb)
            screen_candidates (ctx, s, b, sa, sb, -dx, -dy, lo + dx, hi + dx,
                               s->hsum, -top - (ptrdiff_t) dy * w - dx);
        }
    }
}
