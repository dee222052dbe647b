/* Block matching of the CPU backend against a brute-force search: the
 * same groups, in the same order, on random and on highly repetitive
 * images (where ties decide), with any thread count.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "bm3d/bm3d_cpu.h"
#include "engine-tap.h"

#define K BM3D_PATCH

typedef struct
{
  double  d;
  int32_t pos;
} candidate;

static int
by_distance_then_index (const void *a, const void *b)
{
  const candidate *x = a, *y = b;

  if (x->d != y->d)
    return x->d < y->d ? -1 : 1;
  return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The groups as the team's algorithm defines them, the slow way.
 * Integer-valued images keep every sum exact in float and double.  */
static void
brute_force (const float *img, int w, int h, const bm3d_phase_profile *ph,
             int *sizes, int32_t *members)
{
  int *xs = malloc (sizeof (int) * w), *ys = malloc (sizeof (int) * h);
  int nx = bm3d_cpu_reference_grid (w, ph->step, xs);
  int ny = bm3d_cpu_reference_grid (h, ph->step, ys);
  int r = ph->search / 2;
  candidate *c = malloc (sizeof (candidate) * (2 * r + 1) * (2 * r + 1));

  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++)
      {
        int xr = xs[i], yr = ys[j], n = 0, m;
        size_t ref = (size_t) j * nx + i;

        for (int y = yr - r; y <= yr + r; y++)
          for (int x = xr - r; x <= xr + r; x++)
            {
              double d = 0.0;

              if (x < 0 || y < 0 || x > w - K || y > h - K
                  || (x == xr && y == yr))
                continue;
              for (int a = 0; a < K; a++)
                for (int b = 0; b < K; b++)
                  {
                    double t = img[(yr + a) * w + xr + b]
                               - img[(y + a) * w + x + b];
                    d += t * t;
                  }
              if (d / (K * K) <= ph->tau_match)
                {
                  c[n].d = d;
                  c[n].pos = y * w + x;
                  n++;
                }
            }
        qsort (c, n, sizeof *c, by_distance_then_index);
        if (n > ph->group_max - 1)
          n = ph->group_max - 1;
        m = bm3d_pow2_floor (n + 1);
        sizes[ref] = m;
        members[ref * ph->group_max] = yr * w + xr;
        for (int k = 1; k < m; k++)
          members[ref * ph->group_max + k] = c[k - 1].pos;
      }
  free (xs);
  free (ys);
  free (c);
}

static int
compare_groups (const float *img, int w, int h, const bm3d_phase_profile *ph,
                int threads, int *mismatches)
{
  size_t refs = (size_t) w * h;   /* more than the grid can have */
  int *s1 = calloc (refs, sizeof (int)), *s2 = calloc (refs, sizeof (int));
  int32_t *m1 = calloc (refs * ph->group_max, sizeof (int32_t));
  int32_t *m2 = calloc (refs * ph->group_max, sizeof (int32_t));
  int *xs = malloc (sizeof (int) * w), *ys = malloc (sizeof (int) * h);
  size_t n = (size_t) bm3d_cpu_reference_grid (w, ph->step, xs)
             * bm3d_cpu_reference_grid (h, ph->step, ys);
  bm3d_status status;
  int bad = 0;

  status = bm3d_cpu_match_plane (img, w, h, ph, threads, s1, m1);
  brute_force (img, w, h, ph, s2, m2);
  for (size_t r = 0; r < n; r++)
    {
      int same = s1[r] == s2[r];

      for (int k = 0; same && k < s1[r]; k++)
        same = m1[r * ph->group_max + k] == m2[r * ph->group_max + k];
      if (!same)
        {
          if (bad < 3)
            tap_diag ("reference %zu: size %d vs %d, first members %d %d "
                      "vs %d %d", r, s1[r], s2[r], m1[r * ph->group_max],
                      m1[r * ph->group_max + 1], m2[r * ph->group_max],
                      m2[r * ph->group_max + 1]);
          bad++;
        }
    }
  *mismatches = bad;
  free (s1);
  free (s2);
  free (m1);
  free (m2);
  free (xs);
  free (ys);
  return status == BM3D_OK && bad == 0;
}

/* Integer-valued test images of a few kinds.  */
static void
make_image (float *img, int w, int h, int kind, uint64_t seed)
{
  uint64_t rng = seed;

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        float v;

        switch (kind)
          {
          case 0:   /* white noise */
            v = (float) (rng_next (&rng) % 256);
            break;
          case 1:   /* stripes: whole rows of exact ties */
            v = (float) ((x / 3) % 2 ? 200 : 40);
            break;
          case 2:   /* constant: every distance is zero */
            v = 128.0f;
            break;
          default:  /* smooth ramp plus a little noise */
            v = (float) ((x + 2 * y) % 256 / 2 + rng_next (&rng) % 8);
            break;
          }
        img[y * w + x] = v;
      }
}

int
main (void)
{
  static const char *const kinds[] = { "random", "stripes", "constant",
                                       "ramp" };
  static const int sizes[][2] = { { 37, 29 }, { 64, 64 }, { 8, 8 },
                                  { 9, 50 }, { 120, 41 },
                                  { 50, 160 } };
  bm3d_profile p;
  bm3d_phase_profile small;

  bm3d_profile_for_sigma (25.0f, &p);
  small = p.hard;
  small.search = 7;
  small.step = 2;
  small.group_max = 8;
  small.tau_match = 3000.0f;

  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int kind = 0; kind < 4; kind++)
      {
        int w = sizes[s][0], h = sizes[s][1], bad;
        float *img = malloc (sizeof (float) * w * h);

        make_image (img, w, h, kind, 11 + s);
        int ok;

        make_image (img, w, h, kind, 11 + s);
        ok = compare_groups (img, w, h, &p.hard, 2, &bad);
        tap_ok (ok, "%dx%d %s, phase-1 profile, 2 threads: groups match "
                "brute force (%d differ)", w, h, kinds[kind], bad);
        ok = compare_groups (img, w, h, &p.wiener, 3, &bad);
        tap_ok (ok, "%dx%d %s, phase-2 profile, 3 threads: groups match "
                "brute force (%d differ)", w, h, kinds[kind], bad);
        ok = compare_groups (img, w, h, &small, 1, &bad);
        tap_ok (ok, "%dx%d %s, search 7 step 2 N 8, 1 thread: groups "
                "match brute force (%d differ)", w, h, kinds[kind], bad);
        free (img);
      }
  return tap_done ();
}
