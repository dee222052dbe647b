/* Estimating the level of additive white Gaussian noise from the image
 * itself, on the luminance the engine matches on.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The method is the weak-texture patch selection of Liu, Tanaka &
 * Okutomi (IEEE TIP 2013), measured in a way that keeps the selection
 * from biasing the measurement:
 *
 *  - Every 8x8 patch (on a grid of step 2) goes through the orthonormal
 *    2D DCT, so white noise of deviation sigma gives every coefficient
 *    deviation sigma, independently of the others.
 *  - The low and middle frequencies (2 <= u + v <= 7, 33 coefficients)
 *    tell texture: for a patch of pure noise their energy is sigma^2
 *    times a chi-square variable with 33 degrees of freedom.  The DC and
 *    the two first harmonics are left out, so smooth ramps (sky, walls)
 *    count as flat.
 *  - The high frequencies (u + v >= 8, 28 coefficients) measure the
 *    noise.  Because they are independent of the selecting ones under
 *    noise, choosing flat patches does not choose low-noise draws, the
 *    bias that makes Liu et al.'s smallest eigenvalue drift low.
 *  - Starting from the flattest patches, the estimate is iterated as in
 *    Liu et al.: keep the patches whose texture energy is below the
 *    median that pure noise at the current sigma would give, measure
 *    again, until the selection stops changing.  At least 1 % of the
 *    patches (and 256) are always kept, so textured images still get
 *    enough samples.
 *  - The measurement is the mean square of each high-frequency
 *    coefficient over the kept patches, and sigma^2 is the fifth
 *    smallest of those 28 values (about their 15th percentile).  Noise
 *    is white, so all 28 have the same expectation; what the image adds
 *    (fine texture, a scanner's stripes at one frequency) only raises
 *    some of them, and the lower ones are those least touched.  This
 *    order statistic plays the part of Chen, Zhu & Heng's (ICCV 2015)
 *    eigenvalue statistics, in a fixed basis.  (A small image, under
 *    EST_KEEP_MIN patches, takes the plain mean of the 28 instead.)
 *
 * Clipped values: where the noisy image was clipped to 0..255 (8-bit
 * files), the noise in black or white areas is squeezed, and those
 * areas are also the flattest.  When the sample holds values of exactly
 * 0 or 255 (float noise never lands there), the level is read again,
 * and where that reading may be low, once more; the higher is kept:
 *
 *  - apart: patches whose mean (of the darkest, and of the brightest,
 *    channel of each pixel) lies within 2 sigma of 0 or 255 are left
 *    out, sigma coming from the previous round, until the pool of
 *    patches stops changing.  A patch's mean is (nearly) independent of
 *    its noise band, so leaving patches out by it hardly biases the
 *    measurement; but where most of the picture lies near 0 or 255 (a
 *    dark photograph under strong noise) few patches are left, and the
 *    order statistic over a small sample reads low (23.6 for sigma 25
 *    from 4 % of the patches, 24.8 unclipped), or too few to keep the
 *    margin, and the clipped patches let in read low.
 *  - squeezed, only then (under EST_APART_SHARE of the patches left,
 *    or the margin loosened: elsewhere the two read about 1 % apart,
 *    and the rounds would only add to the time): every patch, its noise band
 *    and texture energy divided by the share of its variance clipping
 *    left, read from each channel's clipped mean at the previous
 *    round's sigma (Foi's model, clipped_noise.c), until sigma settles
 *    (EST_CLIP_SETTLED).  A patch where a channel keeps under half its
 *    variance, or holds more values at 0 or 255 than noise at its mean
 *    clips, is left out: the picture's own black or white.  Where noise
 *    follows brightness, the dark patches it keeps hold less noise than
 *    the rest, and it reads low, so the apart reading is kept where it
 *    is higher.
 *
 * The result estimates the image's whole white-noise level: a "clean"
 * photograph with grain of its own adds it (see BENCHMARKS.md).
 *
 * Beside the level, the call can give how sparse the noise band is in
 * the kept patches (band_kurtosis ()): each patch's kurtosis over its
 * 28 coefficients, sum c^4 / 28 over (sum c^2 / 28)^2, averaged.  It
 * needs no noise level and no brightness model: each patch is its own
 * scale.  Gaussian noise, white or grain, gives 2.8 (28 times the mean
 * square of a Beta(1/2, 27/2) variable); what a camera's noise
 * reduction and JPEG leave at the finest scale is sparse, most
 * coefficients rounded to 0 and a few kept, and reads higher
 * (photo_noise.c, is_processed ()).
 *
 * Images up to EST_SAMPLE_PIXELS pixels (512x512) are read whole; bigger
 * ones are sampled: as many pixels, in tiles spread over the image on a
 * regular grid, so time and memory are
 * bounded whatever the size.  The steps are deterministic and every
 * patch is computed alone, so the result is bit-identical for any
 * thread count.  */
#include "config.h"

#include "noise/noise.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The transform is built twice, for AVX2 with FMA and for any x86-64,
 * and the loader picks the one the processor runs (core/hot_loop.h).  */
#include "core/hot_loop.h"

#define EST_PATCH         BM3D_PATCH   /* 8                                */
#define EST_STEP          2            /* patch grid spacing               */
#define EST_SAMPLE_PIXELS (1 << 18)    /* images above are sampled...      */
#define EST_TILE          64           /* ... in tiles of this side        */
#define EST_TEXTURE_MIN   2            /* texture band: u + v in 2..7      */
#define EST_HIGH_MIN      8            /* noise band: u + v >= 8           */
#define EST_HIGH_COUNT    28           /* coefficients in the noise band   */
#define EST_ORDER         4            /* sigma^2: the 5th smallest of 28  */
#define EST_KEEP_MIN      256          /* patches always kept ...          */
#define EST_KEEP_DIVISOR  100          /* ... or 1 % of them               */
#define EST_ITERATIONS    32
#define EST_BLOCK         256          /* prefix sums every EST_BLOCK      */
#define EST_CLIP_HIGH     255.0f       /* clipping levels of the 0..255    */
#define EST_CLIP_LOW      0.0f         /* scale                            */
#define EST_CLIP_MARGIN   2.0          /* patches this many sigmas away    */
#define EST_CLIP_ROUNDS   8
#define EST_APART_SHARE   0.5          /* apart, fewer patches: squeezed too */
#define EST_SQUEEZE_MIN   0.5          /* clipping left this share at least */
#define EST_CLIP_SETTLED  5e-3         /* sigma moved less: settled        */
#define EST_PATCHES_PER_THREAD 8192

/* A rectangle of the image whose luminance is read, and where its
 * patches go in the patch arrays.  */
typedef struct
{
  int     x0, y0, width, height;
  int     patches_x, patches_y;
  size_t  luma_offset;
  size_t  patch_offset;
} est_region;

/* ---- plan_regions ---------------------------------------------------- */

/* The whole image when it is small enough, else tiles at the centres of
 * a grid of cells as close to square as the image allows.  Returns the
 * number of regions written to `regions` (NULL: only count them).  */
static int
plan_regions (int width, int height, est_region *regions)
{
  int tw, th, cells_x, cells_y, gx, gy, wanted;
  int n = 0;

  if ((size_t) width * height <= EST_SAMPLE_PIXELS)
    {
      if (regions)
        {
          regions[0].x0 = regions[0].y0 = 0;
          regions[0].width = width;
          regions[0].height = height;
        }
      return 1;
    }

  tw = width < EST_TILE ? width : EST_TILE;
  th = height < EST_TILE ? height : EST_TILE;
  cells_x = width / tw;
  cells_y = height / th;
  wanted = EST_SAMPLE_PIXELS / (tw * th);
  gx = (int) lround (sqrt ((double) wanted * cells_x / cells_y));
  gx = gx < 1 ? 1 : gx > cells_x ? cells_x : gx;
  gy = (wanted + gx - 1) / gx;
  gy = gy > cells_y ? cells_y : gy;
  if ((long) gx * gy < wanted)
    {
      gx = (wanted + gy - 1) / gy;
      gx = gx > cells_x ? cells_x : gx;
    }

  for (int j = 0; j < gy; j++)
    for (int i = 0; i < gx; i++, n++)
      if (regions)
        {
          long cx = ((2L * i + 1) * width) / (2L * gx);
          long cy = ((2L * j + 1) * height) / (2L * gy);
          long x0 = cx - tw / 2, y0 = cy - th / 2;

          x0 = x0 < 0 ? 0 : x0 > width - tw ? width - tw : x0;
          y0 = y0 < 0 ? 0 : y0 > height - th ? height - th : y0;
          regions[n].x0 = (int) x0;
          regions[n].y0 = (int) y0;
          regions[n].width = tw;
          regions[n].height = th;
        }
  return n;
}

/* ---- extract_luminance ----------------------------------------------- */

/* Row `y` of region `r`: into `luma` the luminance plane's row of the
 * opponent transform for colour (as the engine computes it), the gray
 * value otherwise; for colour, into `darkest` and `brightest` the least
 * and the greatest channel value of each pixel.  Alpha is not read.
 * Returns how many channel values are exactly at a clipping level.  */
static size_t
extract_luminance (const bm3d_image *in, const bm3d_vst_table *through,
                   const est_region *r, int y, float *luma, float *darkest,
                   float *brightest)
{
  const float *row = in->data + (size_t) (r->y0 + y) * in->stride
                     + (size_t) r->x0 * in->channels;
  int colour = in->channels - (in->has_alpha ? 1 : 0) == 3;
  size_t clipped = 0;

  for (int x = 0; x < r->width; x++, row += in->channels)
    {
      float v[3], lo, hi;

      for (int c = 0; c < (colour ? 3 : 1); c++)
        {
          v[c] = through ? bm3d_vst_lookup (through[c], row[c]) : row[c];
          clipped += v[c] == EST_CLIP_LOW || v[c] == EST_CLIP_HIGH;
        }
      if (!colour)
        {
          luma[x] = v[0];
          continue;
        }
      luma[x] = bm3d_colour_fwd[0][0] * v[0] + bm3d_colour_fwd[0][1] * v[1]
                + bm3d_colour_fwd[0][2] * v[2];
      lo = v[0] < v[1] ? v[0] : v[1];
      hi = v[0] < v[1] ? v[1] : v[0];
      darkest[x] = lo < v[2] ? lo : v[2];
      brightest[x] = hi > v[2] ? hi : v[2];
    }
  return clipped;
}

/* Row `y` of region `r` of a colour image: each channel's values (as
 * extract_luminance () reads them) into `channel` [c].  */
static void
extract_channels (const bm3d_image *in, const bm3d_vst_table *through,
                  const est_region *r, int y, float *const channel[3])
{
  const float *row = in->data + (size_t) (r->y0 + y) * in->stride
                     + (size_t) r->x0 * in->channels;

  for (int x = 0; x < r->width; x++, row += in->channels)
    for (int c = 0; c < 3; c++)
      channel[c][x] = through ? bm3d_vst_lookup (through[c], row[c]) : row[c];
}

/* ---- transform_patch ------------------------------------------------- */

/* One patch row: eight floats (one AVX register, or two SSE ones), and
 * the same read straight from an image row: unaligned, and as one load,
 * since a copy through memory would stall on store forwarding.  A macro,
 * as vectors passed by value differ between the two builds' ABIs.  */
typedef float row8 __attribute__ ((vector_size (32)));
typedef float row8_unaligned
  __attribute__ ((vector_size (32), aligned (4), may_alias));
#define load_row(p) (*(const row8_unaligned *) (p))

/* The 2D DCT as the patch transform wants it: rows of F for the first
 * pass, rows of F^T for the second, and per vertical frequency u a mask
 * of the horizontal frequencies v in the texture band.  */
typedef struct
{
  float  fwd[EST_PATCH][EST_PATCH];
  row8   fwd_t[EST_PATCH];
  row8   texture_mask[EST_PATCH];
} est_dct;

static void
est_dct_init (est_dct *t)
{
  bm3d_transform_2d dct;

  bm3d_transform_2d_init (BM3D_TRANSFORM_DCT, &dct);
  for (int u = 0; u < EST_PATCH; u++)
    for (int v = 0; v < EST_PATCH; v++)
      {
        t->fwd[u][v] = dct.fwd[u][v];
        t->fwd_t[v][u] = dct.fwd[u][v];
        t->texture_mask[u][v] = u + v >= EST_TEXTURE_MIN
                                && u + v < EST_HIGH_MIN ? 1.0f : 0.0f;
      }
}

/* The mean of the patch at `src` (rows `pitch` floats apart), summed
 * pairwise: exact when the values are equal (each step doubles), so a
 * constant patch gives its value back exactly.  */
static inline __attribute__ ((always_inline)) float
patch_mean (const float *src, size_t pitch)
{
  row8 d[EST_PATCH], r;

  for (int y = 0; y < EST_PATCH; y++)
    d[y] = load_row (src + y * pitch);
  r = ((d[0] + d[1]) + (d[2] + d[3])) + ((d[4] + d[5]) + (d[6] + d[7]));
  return (((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7])))
         / (EST_PATCH * EST_PATCH);
}

/* How many values of the patch at `src` (rows `pitch` floats apart)
 * are at a clipping level.  */
static inline __attribute__ ((always_inline)) float
patch_clipped (const float *src, size_t pitch)
{
  typedef int row8i __attribute__ ((vector_size (32)));
  row8i n = { 0 };

  for (int y = 0; y < EST_PATCH; y++)
    {
      row8 d = load_row (src + y * pitch);

      /* A comparison gives -1 where it holds.  */
      n -= (d == EST_CLIP_LOW) | (d == EST_CLIP_HIGH);
    }
  return (float) (((n[0] + n[1]) + (n[2] + n[3]))
                  + ((n[4] + n[5]) + (n[6] + n[7])));
}

/* The patch at `src` (rows `pitch` floats apart): its texture energy
 * (returned) and the squares of its noise-band coefficients, u by u and
 * v rising within u, into `band`.  Its first value is taken out first:
 * large values keep their precision, and a constant patch gives exact
 * zeros.  */
static inline __attribute__ ((always_inline)) float
transform_patch (const float *src, size_t pitch, const est_dct *dct,
                 float *band)
{
  row8 d[EST_PATCH], t[EST_PATCH], texture = { 0 };
  float reference = src[0], total = 0.0f;
  int h = 0;

  for (int y = 0; y < EST_PATCH; y++)
    d[y] = load_row (src + y * pitch) - reference;

  /* Columns: t[u] = sum_y F[u][y] d[y].  */
  for (int u = 0; u < EST_PATCH; u++)
    {
      row8 acc = { 0 };
      for (int y = 0; y < EST_PATCH; y++)
        acc += dct->fwd[u][y] * d[y];
      t[u] = acc;
    }
  /* Rows: c[u][v] = sum_x t[u][x] F[v][x], lanes v.  */
  for (int u = 0; u < EST_PATCH; u++)
    {
      row8 c = { 0 };
      for (int x = 0; x < EST_PATCH; x++)
        c += t[u][x] * dct->fwd_t[x];
      c *= c;
      texture += c * dct->texture_mask[u];
      for (int v = EST_HIGH_MIN - u; v < EST_PATCH; v++)
        if (v >= 0)
          band[h++] = c[v];
    }
  for (int v = 0; v < EST_PATCH; v++)
    total += texture[v];
  return total;
}

/* The per-pixel planes of all regions, and the per-patch results.  */
typedef struct
{
  const float *luma;
  const float *darkest;      /* = luma for gray images; NULL: margins  */
  const float *brightest;    /* are not needed (nothing clipped)       */
  float       *texture;      /* texture energy per patch               */
  float       *band;         /* EST_HIGH_COUNT squares per patch       */
  float       *margin;       /* distance of the patch's mean to 0..255 */
  const float *channel[3];   /* the values (gray: the luma), and per   */
  int          planes;       /* patch and plane, into `clip`, their    */
  float       *clip;         /* mean and how many are at 0 or 255      */
} est_planes;

/* Patch row `py` of region `g`.  Patches with non-finite values (NaN,
 * inf, overflow) get an infinite texture energy: they sort last and are
 * never used.  */
static HOT_LOOP void
transform_patch_row (const est_region *g, int py, const est_dct *dct,
                     const est_planes *pl)
{
  int margins = pl->darkest != NULL;
  size_t offset = g->luma_offset + (size_t) py * EST_STEP * g->width;
  size_t p = g->patch_offset + (size_t) py * g->patches_x;

  for (int px = 0; px < g->patches_x; px++, p++)
    {
      size_t o = offset + (size_t) px * EST_STEP;
      float *band = pl->band + p * EST_HIGH_COUNT;
      float e = transform_patch (pl->luma + o, g->width, dct, band);
      int finite = isfinite (e);

      for (int j = 0; j < EST_HIGH_COUNT; j++)
        finite &= isfinite (band[j]);
      pl->texture[p] = finite ? e : INFINITY;
      if (margins)
        {
          float lo = patch_mean (pl->darkest + o, g->width) - EST_CLIP_LOW;
          float hi = EST_CLIP_HIGH - patch_mean (pl->brightest + o, g->width);

          pl->margin[p] = lo < hi ? lo : hi;
        }
      else
        pl->margin[p] = INFINITY;
    }
}

/* The region of patch row `k` counted over all the regions' rows, and
 * into `*py` its row there: the loops over every patch row run one
 * index across the regions, so that their threads share the rows.  */
static const est_region *
patch_row_region (const est_region *regions, int k, int *py)
{
  int r = 0;

  while (k >= regions[r].patches_y)
    k -= regions[r++].patches_y;
  *py = k;
  return &regions[r];
}

/* Patch row `py` of region `g`: each patch's mean and count of values
 * at 0 or 255 in each plane, into pl->clip, for weigh_clipped ().  */
static void
clip_stats_row (const est_region *g, int py, const est_planes *pl)
{
  size_t offset = g->luma_offset + (size_t) py * EST_STEP * g->width;
  size_t p = g->patch_offset + (size_t) py * g->patches_x;

  for (int px = 0; px < g->patches_x; px++, p++)
    {
      size_t o = offset + (size_t) px * EST_STEP;

      for (int c = 0; c < pl->planes; c++)
        {
          float *m = pl->clip + 2 * (p * pl->planes + c);

          m[0] = patch_mean (pl->channel[c] + o, g->width);
          m[1] = patch_clipped (pl->channel[c] + o, g->width);
        }
    }
}

/* Every patch's clip statistics (clip_stats_row ()), for the squeezed
 * reading alone: a colour image's channels are read into `channel`
 * (pl->channel) first, every row of the `n_regions` regions, whose
 * patch rows are `rows` in all.  Taken only where that reading runs,
 * not beside every patch's transform.  */
static void
clip_stats (const bm3d_image *in, const bm3d_vst_table *through,
            const est_region *regions, int n_regions, int rows,
            float *const channel[3], const est_planes *pl, int threads)
{
  if (pl->planes == 3)
    {
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads)
#endif
      for (int r = 0; r < n_regions; r++)
        for (int y = 0; y < regions[r].height; y++)
          {
            size_t o = regions[r].luma_offset + (size_t) y * regions[r].width;
            float *row[3] = { channel[0] + o, channel[1] + o, channel[2] + o };

            extract_channels (in, through, &regions[r], y, row);
          }
    }
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads)
#endif
  for (int k = 0; k < rows; k++)
    {
      int py;
      const est_region *g = patch_row_region (regions, k, &py);

      clip_stats_row (g, py, pl);
    }
  (void) threads;
}

/* ---- sort_by_texture ------------------------------------------------- */

/* A patch as the sort sees it: its texture energy's bits above, its index
 * below.  Non-negative floats, +inf and NaN order as their bits do as
 * unsigned integers, so sorting these numbers orders the patches by
 * texture energy, ties by index.  */
static uint64_t
sort_key (float texture, uint32_t index)
{
  uint32_t bits;

  memcpy (&bits, &texture, sizeof bits);
  return (uint64_t) bits << 32 | index;
}

static float
key_texture (uint64_t key)
{
  uint32_t bits = (uint32_t) (key >> 32);
  float t;

  memcpy (&t, &bits, sizeof t);
  return t;
}

/* LSD radix sort of `n` keys on their upper 32 bits (their lower bits,
 * the indices, are already in order and the sort is stable).  */
static void
sort_by_texture (uint64_t *keys, uint64_t *scratch, uint32_t n)
{
  uint64_t *from = keys, *to = scratch;

  for (int shift = 32; shift < 64; shift += 8)
    {
      uint32_t count[257];

      memset (count, 0, sizeof count);
      for (uint32_t i = 0; i < n; i++)
        count[((from[i] >> shift) & 0xff) + 1]++;
      /* Every key with the same byte here (the exponent's, for
       * textures of one order of magnitude): the pass would move
       * nothing.  */
      if (n == 0 || count[((from[0] >> shift) & 0xff) + 1] == n)
        continue;
      for (int b = 0; b < 256; b++)
        count[b + 1] += count[b];
      for (uint32_t i = 0; i < n; i++)
        to[count[(from[i] >> shift) & 0xff]++] = from[i];

      uint64_t *swap = from;
      from = to;
      to = swap;
    }
  if (from != keys)
    memcpy (keys, from, (size_t) n * sizeof *keys);
}

/* ---- measure ---------------------------------------------------------- */

typedef struct
{
  const float    *band;       /* EST_HIGH_COUNT squares per patch        */
  const float    *weight;     /* per patch, its band's; NULL: all 1      */
  const uint64_t *sorted;     /* sort keys, flattest first               */
  uint32_t        count;      /* patches with finite values, sorted first */
  /* Sums of the noise bands over the first b * EST_BLOCK sorted
   * patches, for b < blocks_ready; filled as far as measure () needs.  */
  double         *prefix;
  uint32_t        blocks_ready;
  uint32_t        kept;       /* patches the last measure () read        */
} est_pool;

static const float *
band_of (const est_pool *pool, uint32_t rank)
{
  return pool->band + (size_t) (uint32_t) pool->sorted[rank] * EST_HIGH_COUNT;
}

static double
weight_of (const est_pool *pool, uint32_t rank)
{
  return pool->weight ? pool->weight[(uint32_t) pool->sorted[rank]] : 1.0;
}

/* sigma^2 from the `m` flattest patches: the (EST_ORDER + 1)-th smallest
 * mean square of the noise-band coefficients; below EST_KEEP_MIN patches (a
 * small image, all of it kept) their mean instead, since the order
 * statistic of a few patches' values falls far below sigma^2 (a single
 * patch: to a twentieth) while the mean is unbiased for noise.  */
static double
measure (est_pool *pool, uint32_t m)
{
  double v[EST_HIGH_COUNT];
  uint32_t b = m / EST_BLOCK;

  pool->kept = m;
  while (pool->blocks_ready <= b)
    {
      uint32_t next = pool->blocks_ready;
      double *dst = pool->prefix + (size_t) next * EST_HIGH_COUNT;

      if (next == 0)
        memset (dst, 0, EST_HIGH_COUNT * sizeof (double));
      else
        {
          const double *src = dst - EST_HIGH_COUNT;

          memcpy (dst, src, EST_HIGH_COUNT * sizeof (double));
          for (uint32_t i = (next - 1) * EST_BLOCK; i < next * EST_BLOCK; i++)
            {
              const float *h = band_of (pool, i);
              double w = weight_of (pool, i);
              for (int j = 0; j < EST_HIGH_COUNT; j++)
                dst[j] += w * h[j];
            }
        }
      pool->blocks_ready++;
    }

  memcpy (v, pool->prefix + (size_t) b * EST_HIGH_COUNT, sizeof v);
  for (uint32_t i = b * EST_BLOCK; i < m; i++)
    {
      const float *h = band_of (pool, i);
      double w = weight_of (pool, i);
      for (int j = 0; j < EST_HIGH_COUNT; j++)
        v[j] += w * h[j];
    }
  for (int j = 0; j < EST_HIGH_COUNT; j++)
    v[j] /= m;
  if (m < EST_KEEP_MIN)
    {
      double mean = 0.0;

      for (int j = 0; j < EST_HIGH_COUNT; j++)
        mean += v[j];
      return mean / EST_HIGH_COUNT;
    }
  /* Insertion sort: 28 values.  */
  for (int j = 1; j < EST_HIGH_COUNT; j++)
    {
      double x = v[j];
      int i = j;
      for (; i > 0 && v[i - 1] > x; i--)
        v[i] = v[i - 1];
      v[i] = x;
    }
  return v[EST_ORDER];
}

/* The noise band's kurtosis per patch, averaged over the patches the
 * last measure () kept (see the top of this file).  A patch whose band
 * is all 0 has none; when they are half of the kept patches or more,
 * the band is as sparse as it can be: EST_HIGH_COUNT, all of a
 * patch's energy in one coefficient.  */
static double
band_kurtosis (const est_pool *pool)
{
  double k = 0.0;
  uint32_t used = 0;

  for (uint32_t i = 0; i < pool->kept; i++)
    {
      const float *h = band_of (pool, i);
      double sum = 0.0, squares = 0.0;

      for (int j = 0; j < EST_HIGH_COUNT; j++)
        {
          sum += h[j];
          squares += (double) h[j] * h[j];
        }
      if (sum > 0.0)
        {
          k += squares / (sum * sum);
          used++;
        }
    }
  if (2 * used <= pool->kept)
    return EST_HIGH_COUNT;
  return EST_HIGH_COUNT * k / used;
}

/* Sorted patches, of the first `n`, whose texture energy is below
 * `limit`.  */
static uint32_t
count_below (const uint64_t *sorted, uint32_t n, double limit)
{
  uint32_t lo = 0, hi = n;

  while (lo < hi)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      if (key_texture (sorted[mid]) < limit)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* ---- select_and_measure ---------------------------------------------- */

/* The median of a chi-square variable with `dof` degrees of freedom
 * (Wilson & Hilferty's approximation; within 0.01 % here).  */
static double
chi_square_median (int dof)
{
  double a = 2.0 / (9.0 * dof);

  return dof * (1.0 - a) * (1.0 - a) * (1.0 - a);
}

static double
select_and_measure (est_pool *pool)
{
  /* Texture coefficients: (u, v) with 2 <= u + v <= 7.  */
  int texture_dof = 0;
  double limit_factor, s2;
  uint32_t keep, m;

  for (int u = 0; u < EST_PATCH; u++)
    for (int v = 0; v < EST_PATCH; v++)
      texture_dof += u + v >= EST_TEXTURE_MIN && u + v < EST_HIGH_MIN;
  limit_factor = chi_square_median (texture_dof);

  keep = pool->count / EST_KEEP_DIVISOR;
  if (keep < EST_KEEP_MIN)
    keep = pool->count < EST_KEEP_MIN ? pool->count : EST_KEEP_MIN;

  m = keep;
  s2 = measure (pool, m);
  for (int i = 0; i < EST_ITERATIONS; i++)
    {
      uint32_t next = count_below (pool->sorted, pool->count,
                                   limit_factor * s2);

      if (next < keep)
        next = keep;
      if (next == m)
        break;
      m = next;
      s2 = measure (pool, m);
    }
  return s2;
}

/* ---- weigh_clipped --------------------------------------------------- */

/* Each patch's weight under clipped noise of deviation `sigma` in every
 * channel: 1 over the share of its luminance's noise variance that
 * clipping left, each channel's share read from its clipped mean with
 * the patch taken as flat; the noise band and the texture band are
 * squeezed alike.  0 (left out) for a patch where a channel keeps less
 * than `least` of its variance, or holds more values at 0 or 255 than
 * noise at its mean clips (beyond three deviations of that count): a
 * black or white part of the picture, or an edge into one, is not
 * clipped noise.  */
static void
weigh_clipped (const est_planes *pl, uint32_t patches, double sigma,
               double least, int threads, float *weight)
{
  const double n = EST_PATCH * EST_PATCH;
  bm3d_clip_squeeze_table table;
  double w[3] = { 1.0, 0.0, 0.0 }, total = 0.0;

  for (int c = 0; c < 3 && pl->planes == 3; c++)
    w[c] = (double) bm3d_colour_fwd[0][c] * bm3d_colour_fwd[0][c];
  for (int c = 0; c < pl->planes; c++)
    total += w[c];
  bm3d_clip_squeeze_init (&table, (float) sigma);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads)
#endif
  for (uint32_t i = 0; i < patches; i++)
    {
      double share = 0.0;
      int out = 0;

      for (int c = 0; c < pl->planes; c++)
        {
          const float *m = pl->clip + 2 * (i * pl->planes + c);
          float p;
          double r = bm3d_clip_squeeze (&table, m[0], &p);

          share += w[c] * r;
          out |= r < least
                 || m[1] > n * p + 3.0 * sqrt (n * p * (1.0 - p)) + 1.0;
        }
      share /= total;
      weight[i] = out || !(share > 0.0) ? 0.0f : (float) (1.0 / share);
    }
  (void) threads;
}

/* ---- build_pool ------------------------------------------------------ */

/* The patches whose margin to the clipping levels is at least `limit`
 * and whose `weight` is not 0 (NULL: all, of weight 1), sorted by their
 * texture energy times their weight, into pool->sorted (`keys`); the
 * finite ones come first and are pool->count.  */
static void
build_pool (est_pool *pool, const est_planes *pl, uint32_t patches,
            double limit, const float *weight, uint64_t *keys,
            uint64_t *scratch)
{
  uint32_t n = 0;

  for (uint32_t i = 0; i < patches; i++)
    if (pl->margin[i] >= limit && (!weight || weight[i] > 0.0f))
      keys[n++] = sort_key (weight ? pl->texture[i] * weight[i]
                                   : pl->texture[i], i);
  sort_by_texture (keys, scratch, n);
  pool->band = pl->band;
  pool->weight = weight;
  pool->sorted = keys;
  pool->count = count_below (keys, n, INFINITY);
  pool->blocks_ready = 0;
}

/* ---- read_apart, read_squeezed --------------------------------------- */

/* The patches of `all` (the first `n_all` of every patch sorted by
 * build_pool () without weights) whose margin to the clipping levels is
 * at least `limit`, in their order, into pool->sorted (`keys`): what
 * build_pool () would give for that limit, since its keys are unique
 * and the sort only orders them, without sorting again.  */
static void
filter_pool (est_pool *pool, const est_planes *pl, const uint64_t *all,
             uint32_t n_all, double limit, uint64_t *keys)
{
  uint32_t n = 0;

  for (uint32_t i = 0; i < n_all; i++)
    if (pl->margin[(uint32_t) all[i]] >= limit)
      keys[n++] = all[i];
  pool->band = pl->band;
  pool->weight = NULL;
  pool->sorted = keys;
  pool->count = n;
  pool->blocks_ready = 0;
}

/* The level read without the patches within EST_CLIP_MARGIN times the
 * level of 0 or 255, again until the pool stops changing, from `s` and
 * the pool of every patch (`all`, its `n_all` finite ones); at least
 * `least` patches, the margin loosened if need be (`loosened` then
 * set).  */
static double
read_apart (est_pool *pool, const est_planes *pl, const uint64_t *all,
            uint32_t n_all, uint32_t least, double s, double gain,
            uint64_t *keys, double *k, int *loosened)
{
  uint32_t previous = pool->count;

  for (int round = 0; round < EST_CLIP_ROUNDS; round++)
    {
      double limit = EST_CLIP_MARGIN * s;

      filter_pool (pool, pl, all, n_all, limit, keys);
      *loosened = 0;
      while (pool->count < least && limit > 0.0)
        {
          limit = limit > 1.0 ? limit / 2.0 : 0.0;
          filter_pool (pool, pl, all, n_all, limit, keys);
          *loosened = 1;
        }
      if (pool->count == 0 || pool->count == previous)
        break;
      previous = pool->count;
      s = sqrt (select_and_measure (pool)) / gain;
      *k = band_kurtosis (pool);
    }
  return s;
}

/* The level read from every patch weighed by weigh_clipped () at the
 * level read before, from `s`, until it settles; at least `least`
 * patches, more squeezed ones taken if need be; 0 when none is left.
 * The pool is left as the reading's.  */
static double
read_squeezed (est_pool *pool, const est_planes *pl, uint32_t patches,
               uint32_t least, double s, double gain, int threads,
               float *weight, uint64_t *keys, uint64_t *scratch)
{
  for (int round = 0; round < EST_CLIP_ROUNDS; round++)
    {
      double share = EST_SQUEEZE_MIN, before = s;

      weigh_clipped (pl, patches, s, share, threads, weight);
      build_pool (pool, pl, patches, -INFINITY, weight, keys, scratch);
      while (pool->count < least && share > 0.0)
        {
          share = share > 0.1 ? share / 2.0 : 0.0;
          weigh_clipped (pl, patches, s, share, threads, weight);
          build_pool (pool, pl, patches, -INFINITY, weight, keys, scratch);
        }
      if (pool->count == 0)
        return 0.0;
      s = sqrt (select_and_measure (pool)) / gain;
      if (fabs (s - before) <= EST_CLIP_SETTLED * before)
        break;
    }
  return s;
}

/* ---- the estimate's buffers ------------------------------------------ */

/* Everything bm3d_estimate_cpu () works in, sized by the regions' plan:
 * per pixel of the regions (the luminance, and for colour the least and
 * greatest channel and the channels themselves), per patch, and per
 * block of the pool's prefix sums.  */
typedef struct
{
  est_region *regions;
  size_t     *clipped;       /* values at a clipping level, per region */
  int         n_regions;
  int         rows;          /* patch rows of all regions              */
  uint32_t    patches;
  size_t      pixels;        /* of all regions                         */
  int         colour;
  float      *luma, *darkest, *brightest, *values, *channel[3];
  float      *texture, *margin, *clip, *weight, *band;
  uint64_t   *keys, *scratch;
  double     *prefix;
} est_buffers;

static size_t
regions_bytes (const est_buffers *b)
{
  return (size_t) b->n_regions * (sizeof *b->regions + sizeof *b->clipped);
}

static size_t
band_bytes (const est_buffers *b)
{
  return (size_t) b->patches * EST_HIGH_COUNT * sizeof (float);
}

static size_t
prefix_bytes (const est_buffers *b)
{
  return ((size_t) b->patches / EST_BLOCK + 1) * EST_HIGH_COUNT
         * sizeof (double);
}

static size_t
colour_bytes (const est_buffers *b)
{
  return b->colour ? b->pixels * sizeof (float) : 0;
}

/* The regions of a `width` x `height` image and where each one's pixels
 * and patches go.  Returns 0 when out of memory.  */
static int
plan_buffers (bm3d_job *job, int width, int height, est_buffers *b)
{
  b->n_regions = plan_regions (width, height, NULL);
  if (!(b->regions = bm3d_alloc (job, regions_bytes (b))))
    return 0;
  b->clipped = (size_t *) (b->regions + b->n_regions);
  plan_regions (width, height, b->regions);
  for (int r = 0; r < b->n_regions; r++)
    {
      est_region *g = &b->regions[r];

      g->patches_x = (g->width - EST_PATCH) / EST_STEP + 1;
      g->patches_y = (g->height - EST_PATCH) / EST_STEP + 1;
      g->luma_offset = b->pixels;
      g->patch_offset = b->patches;
      b->pixels += (size_t) g->width * g->height;
      b->patches += (uint32_t) g->patches_x * g->patches_y;
      b->rows += g->patches_y;
    }
  return 1;
}

/* Returns 0 when out of memory (what was taken is freed by
 * free_buffers ()).  */
static int
alloc_buffers (bm3d_job *job, est_buffers *b)
{
  size_t per_patch = (size_t) b->patches * sizeof (float);
  size_t per_key = (size_t) b->patches * sizeof (uint64_t);

  b->luma = bm3d_alloc (job, b->pixels * sizeof (float));
  if (b->colour)
    {
      b->darkest = bm3d_alloc (job, colour_bytes (b));
      b->brightest = bm3d_alloc (job, colour_bytes (b));
      if ((b->values = bm3d_alloc (job, 3 * colour_bytes (b))))
        for (int c = 0; c < 3; c++)
          b->channel[c] = b->values + c * b->pixels;
    }
  b->texture = bm3d_alloc (job, per_patch);
  b->margin = bm3d_alloc (job, per_patch);
  b->clip = bm3d_alloc (job, 6 * per_patch);
  b->weight = bm3d_alloc (job, per_patch);
  b->band = bm3d_alloc (job, band_bytes (b));
  b->keys = bm3d_alloc (job, per_key);
  b->scratch = bm3d_alloc (job, per_key);
  b->prefix = bm3d_alloc (job, prefix_bytes (b));
  return b->luma
         && (!b->colour || (b->darkest && b->brightest && b->values))
         && b->texture && b->margin && b->clip && b->weight && b->band
         && b->keys && b->scratch && b->prefix;
}

static void
free_buffers (bm3d_job *job, est_buffers *b)
{
  size_t per_patch = (size_t) b->patches * sizeof (float);
  size_t per_key = (size_t) b->patches * sizeof (uint64_t);

  bm3d_free (job, b->prefix, prefix_bytes (b));
  bm3d_free (job, b->scratch, per_key);
  bm3d_free (job, b->keys, per_key);
  bm3d_free (job, b->band, band_bytes (b));
  bm3d_free (job, b->weight, per_patch);
  bm3d_free (job, b->clip, 6 * per_patch);
  bm3d_free (job, b->margin, per_patch);
  bm3d_free (job, b->texture, per_patch);
  bm3d_free (job, b->values, 3 * colour_bytes (b));
  bm3d_free (job, b->brightest, colour_bytes (b));
  bm3d_free (job, b->darkest, colour_bytes (b));
  bm3d_free (job, b->luma, b->pixels * sizeof (float));
  bm3d_free (job, b->regions, regions_bytes (b));
}

/* ---- extract_all, transform_all -------------------------------------- */

/* Every row of every region into the luminance (and for colour the least
 * and greatest channel).  Returns how many values are at a clipping
 * level.  */
static size_t
extract_all (const bm3d_image *in, const bm3d_vst_table *through,
             est_buffers *b, int threads)
{
  size_t total = 0;

#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads)
#endif
  for (int r = 0; r < b->n_regions; r++)
    {
      const est_region *g = &b->regions[r];

      b->clipped[r] = 0;
      for (int y = 0; y < g->height; y++)
        {
          size_t o = g->luma_offset + (size_t) y * g->width;

          b->clipped[r] += extract_luminance (
              in, through, g, y, b->luma + o,
              b->colour ? b->darkest + o : NULL,
              b->colour ? b->brightest + o : NULL);
        }
    }
  for (int r = 0; r < b->n_regions; r++)
    total += b->clipped[r];
  (void) threads;
  return total;
}

/* The planes every patch is read from and written to; the clipping
 * planes only when `clipping`, as nothing else reads them.  */
static void
plan_planes (est_buffers *b, int clipping, est_planes *pl)
{
  pl->luma = b->luma;
  if (clipping)
    {
      pl->darkest = b->colour ? b->darkest : b->luma;
      pl->brightest = b->colour ? b->brightest : b->luma;
      pl->planes = b->colour ? 3 : 1;
      for (int c = 0; c < pl->planes; c++)
        pl->channel[c] = b->colour ? b->channel[c] : b->luma;
    }
  pl->clip = b->clip;
  pl->texture = b->texture;
  pl->band = b->band;
  pl->margin = b->margin;
}

/* Each patch on its own, in parallel by patch rows of all regions.  */
static void
transform_all (const est_buffers *b, const est_planes *pl, int threads)
{
  est_dct dct;

  est_dct_init (&dct);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads)
#endif
  for (int k = 0; k < b->rows; k++)
    {
      int py;
      const est_region *g = patch_row_region (b->regions, k, &py);

      transform_patch_row (g, py, &dct, pl);
    }
  (void) threads;
}

/* ---- read_clipped ----------------------------------------------------- */

/* Clipped values (more than one in a thousand): read twice, and the
 * higher reading kept, as each reads low for a reason of its own.
 * Apart: without the patches near the clipping levels; where most of
 * the picture is near them, the few patches left read low (the order
 * statistic above, over a small sample).  Squeezed: every patch, its
 * noise scaled back by what clipping took from it; where noise follows
 * brightness, the dark patches it keeps hold less of it.  `s` and `k`
 * are the reading of every patch, and are replaced by the one kept.  */
static void
read_clipped (const bm3d_image *in, const bm3d_vst_table *through,
              est_buffers *b, est_planes *pl, est_pool *pool, double gain,
              int threads, double *s, double *k)
{
  uint32_t all = pool->count;
  uint32_t least = all < EST_KEEP_MIN ? all : EST_KEEP_MIN;
  int loosened = 0;
  double s_apart, s_squeezed = 0.0;

  /* Every patch in texture order, kept in `scratch` for read_apart to
   * filter (it sorts nothing; read_squeezed sorts anew).  */
  memcpy (b->scratch, b->keys, (size_t) all * sizeof *b->keys);
  s_apart = read_apart (pool, pl, b->scratch, all, least, *s, gain, b->keys,
                        k, &loosened);

  /* Clipping only lowers what is read: the squeezed reading starts from
   * the higher one so far.  */
  if (loosened || pool->count < EST_APART_SHARE * all)
    {
      clip_stats (in, through, b->regions, b->n_regions, b->rows, b->channel,
                  pl, threads);
      s_squeezed = read_squeezed (pool, pl, b->patches, least,
                                  *s > s_apart ? *s : s_apart, gain, threads,
                                  b->weight, b->keys, b->scratch);
    }
  *s = s_apart;
  if (s_squeezed > s_apart)
    {
      *s = s_squeezed;
      *k = band_kurtosis (pool);
    }
}

/* ---- bm3d_estimate_cpu ----------------------------------------------- */

bm3d_status
bm3d_estimate_cpu (const bm3d_image *in, bm3d_job *job, float *sigma,
                   float *kurtosis)
{
  int colour = in->channels - (in->has_alpha ? 1 : 0) == 3;
  double gain = colour ? bm3d_colour_noise_gain[0] : 1.0;
  est_buffers b = { .colour = colour };
  est_planes pl = { 0 };
  est_pool pool = { 0 };
  bm3d_status status = BM3D_OK;
  int clipping, threads;
  double s, k;

  if (in->width < EST_PATCH || in->height < EST_PATCH)
    {
      bm3d_job_message (job, "a %dx%d image is too small to estimate its "
                        "noise level (at least %dx%d pixels)", in->width,
                        in->height, EST_PATCH, EST_PATCH);
      return BM3D_ERR_INVALID_SIZE;
    }
  if (!plan_buffers (job, in->width, in->height, &b)
      || !alloc_buffers (job, &b))
    {
      bm3d_job_message (job, "out of memory estimating the noise level of "
                        "a %dx%d image", in->width, in->height);
      free_buffers (job, &b);
      return BM3D_ERR_OUT_OF_MEMORY;
    }
  pool.prefix = b.prefix;

  /* A few milliseconds of work: more threads than it fills only wait
   * on each other.  */
  threads = (int) (b.patches / EST_PATCHES_PER_THREAD) + 1;
  threads = threads < job->threads ? threads : job->threads;

  clipping = extract_all (in, job->read_through, &b, threads) * 1000
             > b.pixels * (colour ? 3 : 1);
  if (job->tick (job, 0.3))
    {
      status = BM3D_ERR_CANCELLED;
      goto done;
    }
  plan_planes (&b, clipping, &pl);
  transform_all (&b, &pl, threads);
  if (job->tick (job, 0.8))
    {
      status = BM3D_ERR_CANCELLED;
      goto done;
    }

  /* build_pool, select_and_measure: every patch first.  */
  build_pool (&pool, &pl, b.patches, -INFINITY, NULL, b.keys, b.scratch);
  if (pool.count == 0)
    {
      bm3d_job_message (job, "the image has no %dx%d area of finite values "
                        "to estimate its noise level from", EST_PATCH,
                        EST_PATCH);
      status = BM3D_ERR_INVALID_ARGUMENT;
      goto done;
    }
  /* The luminance's noise is sigma times the norm of its row of the
   * colour transform: back to the channels' sigma.  */
  s = sqrt (select_and_measure (&pool)) / gain;
  k = band_kurtosis (&pool);
  if (clipping)
    read_clipped (in, job->read_through, &b, &pl, &pool, gain, threads, &s,
                  &k);
  *sigma = s < BM3D_SIGMA_MAX ? (float) s : BM3D_SIGMA_MAX;
  if (kurtosis)
    *kurtosis = (float) k;

done:
  free_buffers (job, &b);
  return status;
}
