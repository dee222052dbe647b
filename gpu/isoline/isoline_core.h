/* The isoline filter's per-pixel arithmetic, shared by isoline_cpu.c and
 * isoline_cuda.cu so that both backends round alike: every sum is taken
 * in the same order, and on the GPU the operations are the IEEE ones
 * the host does (no fused multiply-add), so the two results agree bit
 * for bit wherever the logarithm-free tests below decide alike.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef BM3D_ISOLINE_CORE_H
#define BM3D_ISOLINE_CORE_H

#include "bm3d/bm3d_tables.h"

#if defined(__CUDACC__)
#define ISO_FN __host__ __device__ static inline
#else
#define ISO_FN static inline
#endif

#if defined(__CUDA_ARCH__)
#define ISO_ADD(a, b) __fadd_rn ((a), (b))
#define ISO_SUB(a, b) __fsub_rn ((a), (b))
#define ISO_MUL(a, b) __fmul_rn ((a), (b))
#else
#define ISO_ADD(a, b) ((a) + (b))
#define ISO_SUB(a, b) ((a) - (b))
#define ISO_MUL(a, b) ((a) * (b))
#endif

/* How well a segment fits its origin: the sum of squared deviations
 * from their mean of the origin's value v0 and the segment's m - 1
 * pixels (sum s, sum of squares q).  The smallest over the D
 * directions picks I_Theta.  */
ISO_FN float
iso_segment_score (float s, float q, float v0, float inv_m)
{
  float t = ISO_ADD (s, v0);

  return ISO_SUB (ISO_ADD (q, ISO_MUL (v0, v0)),
                  ISO_MUL (ISO_MUL (t, t), inv_m));
}

/* n a n b / (n a + n b) times the squared difference of the means of
 * two sets of pixels (sums sa, sb; 1 / counts inv_a, inv_b; the counts'
 * product and the reciprocal of their sum): the part of their joint
 * sum of squared deviations that the difference of the means explains,
 * which is sigma^2 chi-square(1) when both share one mean.  */
ISO_FN float
iso_between_k (float sa, float inv_a, float sb, float inv_b, float product,
               float inv_sum)
{
  float dm = ISO_SUB (ISO_MUL (sa, inv_a), ISO_MUL (sb, inv_b));

  return ISO_MUL (ISO_MUL (ISO_MUL (dm, dm), product), inv_sum);
}

ISO_FN float
iso_between (const bm3d_isoline_tables *t, float sa, int na, float sb,
             int nb)
{
  return iso_between_k (sa, t->inv_count[na], sb, t->inv_count[nb],
                        (float) (na * nb), t->inv_count[na + nb]);
}

/* The GLRT for lengthening an isoline (n pixels, sum s) by a segment
 * (p pixels, sum sp): one mean for both against one mean each.  With
 * the noise variance known, the log-likelihood ratio is the explained
 * part above divided by sigma^2; the segment is accepted below T_max.  */
ISO_FN int
iso_glrt_accept (const bm3d_isoline_tables *t, float s, int n, float sp,
                 int p)
{
  return iso_between (t, s, n, sp, p) < t->glrt_limit;
}

/* The hybrid's weight of a region of n pixels whose mean on the guide
 * differs by b from the guide at the pixel: n, shrunk as the edge
 * statistic T2 = n b^2 / sigma^2 (less the guide's own noise) grows
 * past T2_max, as (1 + T2 / (4 T2_max))^-4, a rational stand-in for
 * exp (-T2 / T2_max) that both backends round alike.  `scale` is
 * 1 / (4 T2_max sigma^2).  */
ISO_FN float
iso_region_weight (const bm3d_isoline_tables *t, float b, int n,
                   float scale)
{
  float b2 = ISO_SUB (ISO_MUL (b, b), t->guide_noise);
  float u, u2;

  b2 = b2 > 0.0f ? b2 : 0.0f;
  u = ISO_ADD (1.0f, ISO_MUL (ISO_MUL ((float) n, b2), scale));
  u2 = ISO_MUL (u, u);
  return (float) n / ISO_MUL (u2, u2);
}

/* The residual step: back from the estimate e toward the noisy value
 * y by the share of the local residual power v above the noise's, as
 * a local Wiener filter would (structure the regions flattened comes
 * back, noise does not); `floor` is the noise power.  */
ISO_FN float
iso_residual (float floor, float e, float y, float v)
{
  float a = v > floor ? ISO_SUB (v, floor) / v : 0.0f;

  return ISO_ADD (e, ISO_MUL (a, ISO_SUB (y, e)));
}

/* Circular distance between two direction indices.  */
ISO_FN int
iso_turn (int a, int b)
{
  int d = a > b ? a - b : b - a;

  return d < BM3D_ISOLINE_DIRECTIONS - d ? d : BM3D_ISOLINE_DIRECTIONS - d;
}

/* The isoline of the pixel at (gx, gy) of the I_Theta region (gw
 * wide), whose value on each plane is v0[c]: its best segment (unless
 * the pixel clearly differs from it), then the
 * best segment at the end of the isoline so far while the turn is at
 * most turn_max and the GLRT accepts it, up to segments_max segments.
 * Its sums on each plane go to s[], its pixel count is returned.  The
 * caller's region must hold every origin the isoline can reach.  */
ISO_FN int
iso_trace (const bm3d_isoline_tables *t, const unsigned char *theta,
           const float *const *sum, int planes, int gw, int gx, int gy,
           const float *v0, float *s)
{
  const int l = t->segment, p = l * t->across;
  size_t gi = (size_t) gy * gw + gx;
  int d = theta[gi], n = p + 1;

  /* The pixel alone when its best segment is clearly another level.  */
  if (!(iso_between (t, v0[0], 1, sum[0][gi], p) < t->first_limit))
    {
      for (int c = 0; c < planes; c++)
        s[c] = v0[c];
      return 1;
    }
  for (int c = 0; c < planes; c++)
    s[c] = ISO_ADD (sum[c][gi], v0[c]);
  for (int seg = 1; seg < t->segments_max; seg++)
    {
      int d2;

      gx += t->pattern[d][l - 1][0][0];
      gy += t->pattern[d][l - 1][0][1];
      gi = (size_t) gy * gw + gx;
      d2 = theta[gi];
      if (iso_turn (d, d2) > t->turn_max
          || !iso_glrt_accept (t, s[0], n, sum[0][gi], p))
        break;
      for (int c = 0; c < planes; c++)
        s[c] = ISO_ADD (s[c], sum[c][gi]);
      n += p;
      d = d2;
    }
  return n;
}

#endif /* BM3D_ISOLINE_CORE_H */
