/* BM3D Denoise — has this image been saved as JPEG?  The trace JPEG's
 * quantisation leaves in the pixels.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * JPEG stores each 8x8 block's DCT of the luminance (Y = 0.299 R +
 * 0.587 G + 0.114 B) as integers times a quantiser step q per
 * frequency.  Decoded, rounded to 8-bit RGB and read back, a block's
 * coefficients sit within a few tenths of those multiples, on the grid
 * the encoder used (its offset moves with a crop).  No other image does
 * that: the coefficients of a photograph that was never a JPEG (a raw
 * development saved as PNG or TIFF, an image made smaller after its
 * JPEG) are spread smoothly over any q.
 *
 * The measure is the Rayleigh test of phases: for one frequency and a
 * step q, each coefficient c of at least LATTICE_MIN_STEPS * q gives
 * the phase 2 pi c / q, and z = n |mean e^(i phase)|^2 over the n of
 * them.  Phases spread evenly give z about 1 (exponentially
 * distributed); a lattice of step q gives z close to n.  Each frequency
 * takes its largest z over q = 2 .. LATTICE_Q_MAX; each of three bands
 * of ten frequencies (low, middle, high) the median of its frequencies',
 * and the image the largest of the three: about 4 for an image never
 * saved as JPEG, tens to hundreds for a JPEG (docs/camera-noise.md,
 * "Noise a JPEG cleaned").  The bands are for the qualities: at 92 the
 * low frequencies' steps are 2 and 3, at 95 to 98 they are 1 and only
 * the higher frequencies' steps (2 to 12) leave a trace, and those are
 * the frequencies where JPEG cleaned the noise.  */
#include "noise/noise.h"
#include "bm3d/bm3d_tables.h"

#include <math.h>
#include <stdlib.h>

/* Blocks read on the chosen grid; when the encoder's grid is not the
 * image's own (a cropped JPEG), each of the 64 grids is tried first on
 * fewer blocks and steps, enough for a lattice to stand out from the
 * other grids'.  */
#define LATTICE_BLOCKS        2048
#define SEARCH_BLOCKS         128
#define SEARCH_Q_MAX          16
/* Blocks read side by side.  */
#define LATTICE_RUN           64
/* The largest step tried (quality 35 and more: camera and web JPEGs),
 * and the smallest coefficient read for a step, in steps (a coefficient
 * near 0 sits near a multiple of every step).  */
#define LATTICE_Q_MAX     32
#define LATTICE_MIN_STEPS 1.5f
/* Fewer coefficients than this give no z for a step.  */
#define LATTICE_MIN_COEFS 20
/* The frequencies read, (v, u): three bands of BAND_FREQS, u + v of 1
 * to 3, 4 and 5, 7 to 10 (none above 5 in either direction, so that a
 * block's transform needs its rows' first six coefficients).  */
#define BANDS         3
#define BAND_FREQS    10
#define LATTICE_FREQS (BANDS * BAND_FREQS)
#define DCT_ROWS      6
static const int lattice_freq[LATTICE_FREQS][2] = {
  { 0, 1 }, { 1, 0 }, { 1, 1 }, { 0, 2 }, { 2, 0 },
  { 1, 2 }, { 2, 1 }, { 2, 2 }, { 0, 3 }, { 3, 0 },
  { 0, 4 }, { 4, 0 }, { 1, 3 }, { 3, 1 }, { 2, 3 },
  { 3, 2 }, { 1, 4 }, { 4, 1 }, { 0, 5 }, { 5, 0 },
  { 3, 4 }, { 4, 3 }, { 2, 5 }, { 5, 2 }, { 4, 4 },
  { 3, 5 }, { 5, 3 }, { 4, 5 }, { 5, 4 }, { 5, 5 }
};
/* The phase's cosine and sine, tabulated.  */
#define PHASE_STEPS 256

typedef struct
{
  float cos_of[PHASE_STEPS], sin_of[PHASE_STEPS];
  float per_step[LATTICE_Q_MAX + 1];  /* PHASE_STEPS / q             */
  bm3d_transform_2d dct;              /* JPEG's: orthonormal DCT-II    */
} lattice_tables;

static void
lattice_tables_init (lattice_tables *t)
{
  for (int i = 0; i < PHASE_STEPS; i++)
    {
      double a = 2.0 * M_PI * i / PHASE_STEPS;

      t->cos_of[i] = (float) cos (a);
      t->sin_of[i] = (float) sin (a);
    }
  for (int q = 1; q <= LATTICE_Q_MAX; q++)
    t->per_step[q] = PHASE_STEPS / (float) q;
  bm3d_transform_2d_init (BM3D_TRANSFORM_DCT, &t->dct);
}

/* The luminance JPEG codes, of pixel (x, y) of `in`.  */
static float
jpeg_luma (const bm3d_image *in, int colour, int x, int y)
{
  const float *p = in->data + (size_t) y * in->stride
                   + (size_t) x * in->channels;

  if (colour < 3)
    return p[0];
  return 0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2];
}

/* lattice_freq's coefficients of the block whose corner is (x0, y0)
 * into c.  */
static void
block_dct (const bm3d_image *in, int colour, int x0, int y0,
           const lattice_tables *t, float c[LATTICE_FREQS])
{
  float rows[8][DCT_ROWS];

  for (int y = 0; y < 8; y++)
    {
      float v[8];

      for (int x = 0; x < 8; x++)
        v[x] = jpeg_luma (in, colour, x0 + x, y0 + y);
      for (int u = 0; u < DCT_ROWS; u++)
        {
          float s = 0.0f;

          for (int x = 0; x < 8; x++)
            s += t->dct.fwd[u][x] * v[x];
          rows[y][u] = s;
        }
    }
  for (int f = 0; f < LATTICE_FREQS; f++)
    {
      int fy = lattice_freq[f][0], fx = lattice_freq[f][1];
      float s = 0.0f;

      for (int y = 0; y < 8; y++)
        s += t->dct.fwd[fy][y] * rows[y][fx];
      c[f] = s;
    }
}

/* The largest z over the steps 2 .. q_max of the n coefficients `c`.
 * A coefficient counts for the steps q with |c| >= LATTICE_MIN_STEPS q,
 * so each runs over its own steps once.  */
static float
best_step_z (const float *c, int n, int q_max, const lattice_tables *t)
{
  float sc[LATTICE_Q_MAX + 1] = { 0.0f }, ss[LATTICE_Q_MAX + 1] = { 0.0f };
  int m[LATTICE_Q_MAX + 1] = { 0 };
  float best = 0.0f;

  for (int i = 0; i < n; i++)
    {
      float reach = fabsf (c[i]) / LATTICE_MIN_STEPS;
      int top;

      /* Under two steps, or not a number (a float image's NaN, inf).  */
      if (!(reach >= 2.0f) || !isfinite (reach))
        continue;
      top = reach >= (float) q_max ? q_max : (int) reach;

      for (int q = 2; q <= top; q++)
        {
          /* c / q's fractional part as a table index (c may be < 0).  */
          int j = (int) (lrintf (c[i] * t->per_step[q]) & (PHASE_STEPS - 1));

          sc[q] += t->cos_of[j];
          ss[q] += t->sin_of[j];
          m[q]++;
        }
    }
  for (int q = 2; q <= q_max; q++)
    if (m[q] >= LATTICE_MIN_COEFS)
      {
        float z = (sc[q] * sc[q] + ss[q] * ss[q]) / (float) m[q];

        if (z > best)
          best = z;
      }
  return best;
}

static int
compare_float (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;

  return (x > y) - (x < y);
}

/* The largest over the bands of the median over a band's frequencies
 * of their best z (steps up to q_max), from up to `blocks` blocks spread
 * over the grid of offset (ox, oy); `c` holds LATTICE_FREQS *
 * LATTICE_BLOCKS floats.  */
static float
grid_lattice (const bm3d_image *in, int colour, int ox, int oy,
              int blocks, int q_max, const lattice_tables *t, float *c)
{
  int bx = (in->width - ox) / 8, by = (in->height - oy) / 8;
  long total = (long) bx * by;
  int n = total < blocks ? (int) total : blocks;
  int run = bx < LATTICE_RUN ? bx : LATTICE_RUN;
  int runs = (n + run - 1) / (run > 0 ? run : 1);
  float coef[LATTICE_FREQS], best = 0.0f;

  if (n < LATTICE_MIN_COEFS)
    return 0.0f;
  /* Runs of blocks side by side, the runs spread over the block rows
   * and along them: rows read whole, not a cache line here and there
   * (12 MP: 7 ms to 2).  */
  for (int r = 0, i = 0; r < runs; r++)
    {
      int row = (int) ((long) r * by / runs);
      int x0 = (int) (((unsigned long) r * 2654435761u)
                      % (unsigned long) (bx - run + 1));

      for (int k = 0; k < run && i < n; k++, i++)
        {
          block_dct (in, colour, ox + 8 * (x0 + k), oy + 8 * row, t, coef);
          for (int f = 0; f < LATTICE_FREQS; f++)
            c[f * LATTICE_BLOCKS + i] = coef[f];
        }
    }
  for (int b = 0; b < BANDS; b++)
    {
      float z[BAND_FREQS], median;

      for (int f = 0; f < BAND_FREQS; f++)
        z[f] = best_step_z (c + (b * BAND_FREQS + f) * LATTICE_BLOCKS, n,
                            q_max, t);
      qsort (z, BAND_FREQS, sizeof z[0], compare_float);
      median = 0.5f * (z[BAND_FREQS / 2 - 1] + z[BAND_FREQS / 2]);
      if (median > best)
        best = median;
    }
  return best;
}

float
bm3d_jpeg_lattice (const bm3d_image *in)
{
  float *c = malloc (LATTICE_FREQS * LATTICE_BLOCKS * sizeof *c);
  int colour = in->channels - (in->has_alpha ? 1 : 0);
  lattice_tables t;
  float z, best = -1.0f;
  int bx = 0, by = 0;

  if (!c)
    return 0.0f;
  lattice_tables_init (&t);
  /* The encoder's grid is the image's own unless it was cropped.  */
  z = grid_lattice (in, colour, 0, 0, LATTICE_BLOCKS, LATTICE_Q_MAX, &t, c);
  if (z < BM3D_JPEG_LATTICE_MIN)
    {
      for (int oy = 0; oy < 8; oy++)
        for (int ox = 0; ox < 8; ox++)
          {
            float s = grid_lattice (in, colour, ox, oy, SEARCH_BLOCKS,
                                    SEARCH_Q_MAX, &t, c);

            if (s > best)
              {
                best = s;
                bx = ox;
                by = oy;
              }
          }
      if (bx != 0 || by != 0)
        z = grid_lattice (in, colour, bx, by, LATTICE_BLOCKS, LATTICE_Q_MAX,
                          &t, c);
    }
  free (c);
  return z;
}
