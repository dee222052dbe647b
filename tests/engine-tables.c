/* Unit tests of the tables both backends share: 2D transforms, the
 * Walsh-Hadamard transform, the Kaiser window, the colour transform and
 * the parameter profiles.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "bm3d/bm3d_tables.h"
#include "engine-tap.h"

#define N BM3D_PATCH

static double
identity_error (const float a[N][N], const float b[N][N])
{
  double worst = 0.0;

  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      {
        double s = 0.0;

        for (int k = 0; k < N; k++)
          s += (double) a[i][k] * b[k][j];
        s -= i == j;
        if (fabs (s) > worst)
          worst = fabs (s);
      }
  return worst;
}

static void
check_transform (bm3d_transform_kind kind, const char *name)
{
  bm3d_transform_2d t;
  double row_norm = 0.0, ortho = 0.0;
  float ft[N][N];

  bm3d_transform_2d_init (kind, &t);
  tap_ok (identity_error (t.fwd, t.inv) < 1e-5, "%s: fwd * inv = I", name);
  tap_ok (identity_error (t.inv, t.fwd) < 1e-5, "%s: inv * fwd = I", name);
  for (int i = 0; i < N; i++)
    {
      double s = 0.0;

      for (int j = 0; j < N; j++)
        s += (double) t.fwd[i][j] * t.fwd[i][j];
      if (fabs (s - 1.0) > row_norm)
        row_norm = fabs (s - 1.0);
    }
  tap_ok (row_norm < 1e-6, "%s: every forward row has unit norm", name);

  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      ft[i][j] = t.fwd[j][i];
  ortho = identity_error (t.fwd, ft);
  if (kind == BM3D_TRANSFORM_DCT)
    tap_ok (ortho < 1e-6, "%s: orthonormal (F F^T = I, error %.2g)", name,
            ortho);
  else
    tap_ok (ortho > 1e-3, "%s: biorthogonal, not orthonormal (F F^T - I "
            "= %.2g)", name, ortho);

  /* A constant patch has all its energy in coefficient (0, 0).  */
  {
    double dc = 0.0, rest = 0.0;

    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        {
          double c = 0.0;

          for (int a = 0; a < N; a++)
            for (int b = 0; b < N; b++)
              c += (double) t.fwd[i][a] * 10.0 * t.fwd[j][b];
          if (i == 0 && j == 0)
            dc = c;
          else
            rest += fabs (c);
        }
    tap_ok (fabs (dc - 80.0) < 1e-3 && rest < 1e-3,
            "%s: a constant patch of 10 gives DC 80 and nothing else "
            "(DC %.5f, rest %.2g)", name, dc, rest);
  }
}

/* A transform of n values is orthonormal when the transforms of the n
 * unit vectors have unit norm and are orthogonal to each other.  */
static int
is_orthonormal (void (*transform) (float *v, int n, int stride), int n)
{
  float m[BM3D_GROUP_MAX][BM3D_GROUP_MAX];

  for (int i = 0; i < n; i++)
    {
      for (int j = 0; j < n; j++)
        m[i][j] = i == j;
      transform (m[i], n, 1);
    }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      {
        double s = 0.0;

        for (int k = 0; k < n; k++)
          s += (double) m[i][k] * m[j][k];
        if (fabs (s - (i == j)) > 1e-6)
          return 0;
      }
  return 1;
}

static void
check_wht (void)
{
  int ok_ortho = 1, ok_self = 1, ok_stride = 1;
  uint64_t rng = 7;

  for (int n = 1; n <= BM3D_GROUP_MAX; n *= 2)
    {
      if (!is_orthonormal (bm3d_wht, n))
        ok_ortho = 0;

      /* Self-inverse, and the stride is honoured.  */
      {
        float v[BM3D_GROUP_MAX], w[BM3D_GROUP_MAX * 3];

        for (int i = 0; i < n; i++)
          {
            v[i] = (float) (rng_uniform (&rng) * 255.0);
            w[3 * i] = v[i];
            w[3 * i + 1] = -1.0f;
            w[3 * i + 2] = -2.0f;
          }
        bm3d_wht (w, n, 3);
        bm3d_wht (w, n, 3);
        for (int i = 0; i < n; i++)
          {
            if (fabsf (w[3 * i] - v[i]) > 1e-3f)
              ok_self = 0;
            if (w[3 * i + 1] != -1.0f || w[3 * i + 2] != -2.0f)
              ok_stride = 0;
          }
      }
    }
  tap_ok (ok_ortho, "WHT orthonormal for n = 1, 2, 4, ..., %d",
          BM3D_GROUP_MAX);
  tap_ok (ok_self, "WHT is its own inverse for n = 1 ... %d",
          BM3D_GROUP_MAX);
  tap_ok (ok_stride, "WHT touches only every stride-th value");
}

static void
check_haar (void)
{
  int ok_ortho = 1, ok_inverse = 1, ok_stride = 1, ok_pairs = 1;
  uint64_t rng = 9;

  for (int n = 1; n <= BM3D_GROUP_MAX; n *= 2)
    {
      float v[BM3D_GROUP_MAX], w[BM3D_GROUP_MAX * 2];

      if (!is_orthonormal (bm3d_haar, n))
        ok_ortho = 0;
      for (int i = 0; i < n; i++)
        {
          v[i] = (float) (rng_uniform (&rng) * 255.0);
          w[2 * i] = v[i];
          w[2 * i + 1] = -3.0f;
        }
      bm3d_haar (w, n, 2);
      bm3d_haar_inverse (w, n, 2);
      for (int i = 0; i < n; i++)
        {
          if (fabsf (w[2 * i] - v[i]) > 1e-3f)
            ok_inverse = 0;
          if (w[2 * i + 1] != -3.0f)
            ok_stride = 0;
        }
      /* Finest level: the last n/2 values are the pairwise differences.  */
      for (int i = 0; i < n; i++)
        v[i] = (float) i * i;
      bm3d_haar (v, n, 1);
      for (int i = 0; n > 1 && i < n / 2; i++)
        if (fabsf (v[n / 2 + i] - (float) ((4 * i * i) - (2 * i + 1)
                                            * (2 * i + 1)) * 0.70710678f)
            > 1e-3f)
          ok_pairs = 0;
    }
  tap_ok (ok_ortho, "Haar orthonormal for n = 1, 2, 4, ..., %d",
          BM3D_GROUP_MAX);
  tap_ok (ok_inverse, "bm3d_haar_inverse undoes bm3d_haar for n = 1 ... %d",
          BM3D_GROUP_MAX);
  tap_ok (ok_stride, "Haar touches only every stride-th value");
  tap_ok (ok_pairs, "Haar: finest differences in the second half, in "
          "pair order");
}

static void
check_kaiser (void)
{
  float w[N][N];
  int symmetric = 1, positive = 1;

  bm3d_kaiser_window (2.0f, w);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      {
        if (w[i][j] != w[N - 1 - i][j] || w[i][j] != w[i][N - 1 - j]
            || w[i][j] != w[j][i])
          symmetric = 0;
        if (!(w[i][j] > 0.0f) || w[i][j] > 1.0f)
          positive = 0;
      }
  tap_ok (symmetric, "Kaiser window symmetric (both axes, transpose)");
  tap_ok (positive, "Kaiser window values in (0, 1]");
  tap_ok (w[3][3] > w[0][0] && w[3][3] > w[0][3],
          "Kaiser window larger in the centre than at the edges");
  bm3d_kaiser_window (0.0f, w);
  tap_ok (fabsf (w[0][0] - 1.0f) < 1e-6f && fabsf (w[3][5] - 1.0f) < 1e-6f,
          "Kaiser window with beta 0 is flat");
}

static void
check_colour (void)
{
  double worst = 0.0, gain = 0.0;

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      {
        double s = 0.0;

        for (int k = 0; k < 3; k++)
          s += (double) bm3d_colour_inv[i][k] * bm3d_colour_fwd[k][j];
        if (fabs (s - (i == j)) > worst)
          worst = fabs (s - (i == j));
      }
  tap_ok (worst < 1e-6, "colour inv * fwd = I (error %.2g)", worst);
  for (int c = 0; c < 3; c++)
    {
      double s = 0.0;

      for (int j = 0; j < 3; j++)
        s += (double) bm3d_colour_fwd[c][j] * bm3d_colour_fwd[c][j];
      if (fabs (sqrt (s) - bm3d_colour_noise_gain[c]) > gain)
        gain = fabs (sqrt (s) - bm3d_colour_noise_gain[c]);
    }
  tap_ok (gain < 1e-6, "colour noise gains are the norms of the rows");
  tap_ok (fabsf (bm3d_colour_fwd[1][0] + bm3d_colour_fwd[1][1]
                 + bm3d_colour_fwd[1][2]) < 1e-7f
          && fabsf (bm3d_colour_fwd[2][0] + bm3d_colour_fwd[2][1]
                    + bm3d_colour_fwd[2][2]) < 1e-7f,
          "gray pixels have zero chrominance");
}

static void
check_profiles (void)
{
  static const float sigmas[] = { 0.1f, 5.0f, 25.0f, 40.0f, 40.5f, 100.0f,
                                  255.0f };
  int ok = 1;

  for (size_t i = 0; i < sizeof sigmas / sizeof sigmas[0]; i++)
    {
      bm3d_profile p;
      const bm3d_phase_profile *ph[2] = { &p.hard, &p.wiener };

      bm3d_profile_for_sigma (sigmas[i], &p);
      for (int k = 0; k < 2; k++)
        if (ph[k]->step < 1 || ph[k]->step > BM3D_PATCH
            || ph[k]->search < 1 || ph[k]->search % 2 != 1
            || ph[k]->group_max < 1 || ph[k]->group_max > BM3D_GROUP_MAX
            || bm3d_pow2_floor (ph[k]->group_max) != ph[k]->group_max
            || !(ph[k]->tau_match > 0.0f) || ph[k]->lambda_3d < 0.0f
            || ph[k]->kaiser_beta < 0.0f)
          ok = 0;
    }
  tap_ok (ok, "profiles valid (odd search, power-of-two groups, step <= "
          "patch) for sigma 0.1 ... 255");
  tap_ok (bm3d_pow2_floor (1) == 1 && bm3d_pow2_floor (2) == 2
          && bm3d_pow2_floor (3) == 2 && bm3d_pow2_floor (31) == 16
          && bm3d_pow2_floor (32) == 32, "bm3d_pow2_floor");
}

int
main (void)
{
  check_transform (BM3D_TRANSFORM_DCT, "DCT");
  check_transform (BM3D_TRANSFORM_BIOR15, "bior1.5");
  check_wht ();
  check_haar ();
  check_kaiser ();
  check_colour ();
  check_profiles ();
  return tap_done ();
}
