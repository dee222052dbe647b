/* BM3D Denoise: the flattest blocks at two sizes, noise against texture.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Noise is the same at every scale of a block; texture grows with it.
 * The profile (noise_profile_estimate.c) is measured in the flattest
 * 32x32 blocks, each less its least-squares plane.  Here the same
 * measure is taken at 32x32 and at 16x16 on the luminance: the mean
 * plane-residual variance of the flattest twentieth of the blocks of
 * each size.  Stationary noise gives about the same at both; the ratio
 * is 1.1 for white noise (the smaller blocks' variances spread more, so
 * their flattest twentieth reads lower) and up to 1.5 for noise
 * correlated over a few pixels (a plane takes more of it from the
 * smaller block).  A flattest 32x32 block that holds a gradient's bend,
 * a fold or a pattern reads more than the flattest 16x16 ones, which
 * find the flat spots between: 3.3 to 111 on clean photographs whose
 * profile is texture (docs/camera-noise.md, "Weak grain").
 *
 * Where noise follows brightness, the flattest 16x16 blocks can lie
 * where there is next to none (a shadow the camera crushed) and the
 * flattest 32x32 ones where there is some: that ratio then reads high
 * on noise too (up to 32 on PolyU's noisy photographs).  The second
 * measure stays inside the blocks the profile reads: the flattest
 * twentieth of the 32x32 blocks against their own quarters, each less
 * its own plane.  Inside one block the noise is one level, so noise
 * reads 1.0 (white) to about 1.8 (noise correlated over a few pixels,
 * of which the quarters' planes take more), a block that holds a
 * bend of shading more: the planes of its quarters follow the bend.
 *
 * The third measure is of orientation.  Noise, white or correlated,
 * has no direction: in a window of the flattest blocks its gradients'
 * structure tensor has two eigenvalues of about one size, so the
 * smaller holds most of their mean (0.84 for white noise, 0.71 for
 * noise blurred by a Gaussian of deviation 1.5, with these windows).
 * The edge of a fold, a fibre, a gradient's bend or a pattern has one:
 * its energy lies along the larger.  The share the smaller eigenvalue
 * holds, over the flattest twentieth of the 32x32 blocks (3 x 3 windows
 * of 10 x 10 Sobel gradients each), is the unoriented share of what
 * those blocks hold (photo_noise.c).
 *
 * The flattest 16x16 blocks' variance is given as it is too: white
 * noise of the finest scale's level predicts it, coarser noise puts
 * several times that there, and the profile's excess over that scale
 * is texture when it does not (photo_noise.c, is_fine_white ()).
 *
 * At most BS_BLOCKS_MAX blocks of 32x32 (half a megapixel, a few
 * milliseconds), spread evenly over the image, and the four 16x16
 * quarters of each, all in one pass.  A clipped pixel (every channel
 * at 0 or 255) has lost its noise.  Where the noise is one level at
 * every brightness, a quarter with at most BS_CLIPPED_MAX of them (1 in
 * 64: what white noise clips where a block's mean lies 2.15 sigma from
 * a clipping level; the white estimator keeps its patches 2 sigma from
 * one) is read as it is: the few values clipping squeezed lower its
 * variance a little, where leaving it out leaves too few blocks to
 * read in a bright or dark photograph given strong noise (Set12's gray
 * photographs at sigma 25, Kodak24 at 50).  Where noise follows
 * brightness (`tolerate_clipping` 0: a level function) the quarters
 * near black would be read as the flattest, holding the least noise,
 * so a quarter with a clipped pixel is left out; a 32x32 block is read
 * when its four quarters are.  One thread, blocks in a fixed order:
 * the same result on every machine.  */
#include "config.h"

#include "noise/noise.h"
#include "bm3d/bm3d_tables.h"

#include <math.h>
#include <stdlib.h>

#define BS_LARGE        32
#define BS_SMALL        16
#define BS_BLOCKS_MAX   512       /* blocks of 32x32 read, at most     */
#define BS_BLOCKS_MIN   20        /* fewer blocks give no ratio          */
#define BS_FLATTEST     20        /* the flattest 1 / BS_FLATTEST         */
#define BS_CLIP_LOW     0.0f
#define BS_CLIP_HIGH    255.0f
#define BS_CLIPPED_MAX  (BS_SMALL * BS_SMALL / 64)  /* clipped pixels a
                                     quarter may hold, noise one level */
#define BS_WINDOW       10        /* a structure tensor's window, pixels:
                                     3 x 3 of them in a block's 30 x 30
                                     Sobel gradients                   */

/* Sums over a square block of side n, x and y from its centre: of the
 * values, their squares, and the values times x and times y.  */
typedef struct
{
  double sum, squares, sx, sy;
} block_sums;

/* The luminance the engine matches on, of the pixel `p` (`colour`
 * channels: 3, or 1 for gray).  */
static inline float
pixel_luma (const float *p, int colour)
{
  float v = 0.0f;

  for (int ch = 0; ch < colour; ch++)
    v += colour == 3 ? bm3d_colour_fwd[0][ch] * p[ch] : p[ch];
  return v;
}

/* The sums of the BS_SMALL x BS_SMALL block of `in` at (x0, y0); 0 when
 * more than `clipped_max` of its pixels are clipped (every channel at 0
 * or 255).  */
static int
small_sums (const bm3d_image *in, int colour, int x0, int y0,
            int clipped_max, block_sums *b)
{
  const double c = (BS_SMALL - 1) / 2.0;
  int clipped_pixels = 0;

  b->sum = b->squares = b->sx = b->sy = 0.0;
  for (int y = 0; y < BS_SMALL; y++)
    {
      const float *p = in->data + (size_t) (y0 + y) * in->stride
                       + (size_t) x0 * in->channels;
      /* A row's 16 values summed in float: exact enough, and fast.  */
      float row = 0.0f, squares = 0.0f, sx = 0.0f;

      for (int x = 0; x < BS_SMALL; x++, p += in->channels)
        {
          float v = pixel_luma (p, colour);
          int clipped = 0;

          for (int ch = 0; ch < colour; ch++)
            clipped += p[ch] <= BS_CLIP_LOW || p[ch] >= BS_CLIP_HIGH;
          if (clipped == colour && ++clipped_pixels > clipped_max)
            return 0;
          row += v;
          squares += v * v;
          sx += (float) (x - c) * v;
        }
      b->sum += row;
      b->squares += squares;
      b->sx += sx;
      b->sy += (y - c) * row;
    }
  return 1;
}

/* The plane-residual variance of a block of side `side` from its sums:
 * the variance less its least-squares plane's share (the design is
 * orthogonal on a full square), over the n - 3 degrees of freedom the
 * fit leaves.  */
static double
residual_variance (const block_sums *b, int side)
{
  double n = (double) side * side;
  /* (x - c)^2 summed over the square: side^2 (side^2 - 1) / 12.  */
  double axis = n * (n - 1.0) / 12.0;

  return (b->squares - b->sum * b->sum / n
          - (b->sx * b->sx + b->sy * b->sy) / axis) / (n - 3.0);
}

/* The sums of a BS_LARGE block from those of its four quarters (`q`,
 * row by row): each quarter's centre lies (BS_SMALL / 2) away from the
 * large block's along each axis.  */
static void
large_sums (const block_sums q[4], block_sums *b)
{
  const double d = BS_SMALL / 2.0;

  b->sum = b->squares = b->sx = b->sy = 0.0;
  for (int i = 0; i < 4; i++)
    {
      double ox = (i & 1) ? d : -d, oy = (i >> 1) ? d : -d;

      b->sum += q[i].sum;
      b->squares += q[i].squares;
      b->sx += q[i].sx + ox * q[i].sum;
      b->sy += q[i].sy + oy * q[i].sum;
    }
}

/* The luminance of the BS_LARGE x BS_LARGE block of `in` at (x0, y0),
 * row by row, into `v`: for the structure tensors of the flattest
 * blocks alone, once they are known.  small_sums () reads the pixels
 * of every block on its own.  */
static void
block_luma (const bm3d_image *in, int colour, int x0, int y0, float *v)
{
  for (int y = 0; y < BS_LARGE; y++)
    {
      const float *p = in->data + (size_t) (y0 + y) * in->stride
                       + (size_t) x0 * in->channels;

      for (int x = 0; x < BS_LARGE; x++, p += in->channels)
        *v++ = pixel_luma (p, colour);
    }
}

/* The structure tensor of the Sobel gradients of the block `v` over
 * the window of side BS_WINDOW whose top-left gradient is at (x0, y0)
 * (1 to BS_LARGE - 2): its smaller eigenvalue added to `*minor`, the
 * mean of its two to `*mean`.  */
static void
window_structure (const float *v, int x0, int y0, double *minor,
                  double *mean)
{
  double xx = 0.0, yy = 0.0, xy = 0.0, half, apart;

  for (int y = y0; y < y0 + BS_WINDOW; y++)
    for (int x = x0; x < x0 + BS_WINDOW; x++)
      {
        const float *up = v + (y - 1) * BS_LARGE + x;
        const float *row = up + BS_LARGE, *down = row + BS_LARGE;
        double gx = (up[1] + 2.0 * row[1] + down[1])
                    - (up[-1] + 2.0 * row[-1] + down[-1]);
        double gy = (down[-1] + 2.0 * down[0] + down[1])
                    - (up[-1] + 2.0 * up[0] + up[1]);

        xx += gx * gx;
        yy += gy * gy;
        xy += gx * gy;
      }
  half = (xx + yy) / 2.0;
  apart = sqrt ((xx - yy) * (xx - yy) / 4.0 + xy * xy);
  *minor += half - apart;
  *mean += half;
}

/* Over the 3 x 3 windows of a BS_LARGE block `v`: the structure
 * tensors' smaller eigenvalues and their means, summed.  */
static void
block_structure (const float *v, double *minor, double *mean)
{
  *minor = *mean = 0.0;
  for (int y = 1; y + BS_WINDOW <= BS_LARGE - 1; y += BS_WINDOW)
    for (int x = 1; x + BS_WINDOW <= BS_LARGE - 1; x += BS_WINDOW)
      window_structure (v, x, y, minor, mean);
}

/* A 32x32 block's plane-residual variance and its quarters' mean, and
 * where it is (in blocks).  */
typedef struct
{
  double whole, quarters;
  int    bx, by;
} block_pair;

static int
compare_whole (const void *a, const void *b)
{
  return bm3d_compare_double (&((const block_pair *) a)->whole,
                              &((const block_pair *) b)->whole);
}

/* The mean of the smallest 1 / BS_FLATTEST of `v` (`n` values, sorted
 * here), at least one.  */
static double
flattest_mean (double *v, size_t n)
{
  size_t k = n / BS_FLATTEST > 0 ? n / BS_FLATTEST : 1;
  double sum = 0.0;

  qsort (v, n, sizeof *v, bm3d_compare_double);
  for (size_t i = 0; i < k; i++)
    sum += v[i];
  return sum / k;
}

void
bm3d_flat_block_measures (const bm3d_image *in, int tolerate_clipping,
                          bm3d_flat_blocks *m)
{
  int colour = in->channels - (in->has_alpha ? 1 : 0);
  int clipped_max = tolerate_clipping ? BS_CLIPPED_MAX : 0;
  int nx = in->width / BS_LARGE, ny = in->height / BS_LARGE;
  int step_x = 1, step_y = 1;
  size_t large_n = 0, small_n = 0, k;
  double *small, flat_small, whole = 0.0, quarters = 0.0;
  double minor = 0.0, mean = 0.0;
  float luma[BS_LARGE * BS_LARGE];
  block_pair *large;

  m->across = m->within = m->isotropy = m->small = 0.0f;
  /* Every block, or an even grid of about BS_BLOCKS_MAX of them.  */
  while ((size_t) ((nx + step_x - 1) / step_x)
         * ((ny + step_y - 1) / step_y) > BS_BLOCKS_MAX)
    {
      if (nx / step_x >= ny / step_y)
        step_x++;
      else
        step_y++;
    }
  large = malloc (BS_BLOCKS_MAX * sizeof *large);
  small = malloc (4 * BS_BLOCKS_MAX * sizeof *small);
  if (!large || !small)
    goto done;
  for (int by = 0; by < ny; by += step_y)
    for (int bx = 0; bx < nx; bx += step_x)
      {
        block_sums q[4], sums;
        int all = 1;

        for (int i = 0; i < 4; i++)
          if (small_sums (in, colour, bx * BS_LARGE + (i & 1) * BS_SMALL,
                          by * BS_LARGE + (i >> 1) * BS_SMALL, clipped_max,
                          &q[i]))
            small[small_n++] = residual_variance (&q[i], BS_SMALL);
          else
            all = 0;
        if (all)
          {
            block_pair *p = &large[large_n++];

            large_sums (q, &sums);
            p->whole = residual_variance (&sums, BS_LARGE);
            p->quarters = 0.0;
            for (int i = 0; i < 4; i++)
              p->quarters += small[small_n - 4 + i] / 4.0;
            p->bx = bx;
            p->by = by;
          }
      }
  if (large_n < BS_BLOCKS_MIN)
    goto done;
  /* The flattest twentieth of the 32x32 blocks, for all three; the
   * structure tensors of those blocks alone.  */
  qsort (large, large_n, sizeof *large, compare_whole);
  k = large_n / BS_FLATTEST > 0 ? large_n / BS_FLATTEST : 1;
  for (size_t i = 0; i < k; i++)
    {
      double block_minor, block_mean;

      whole += large[i].whole;
      quarters += large[i].quarters;
      block_luma (in, colour, large[i].bx * BS_LARGE,
                  large[i].by * BS_LARGE, luma);
      block_structure (luma, &block_minor, &block_mean);
      minor += block_minor;
      mean += block_mean;
    }
  if (quarters > 0.0)
    m->within = (float) (whole / quarters);
  m->isotropy = mean > 0.0 ? (float) (minor / mean) : 1.0f;
  flat_small = flattest_mean (small, small_n);
  m->small = (float) flat_small;
  if (flat_small > 0.0)
    m->across = (float) (whole / k / flat_small);
done:
  free (large);
  free (small);
}
