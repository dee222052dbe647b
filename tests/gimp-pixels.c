/* Pixel checks for the GIMP tests: crops and alpha for the inputs, PSNR,
 * and bit-exact comparisons of raw dumps that GIMP wrote in the
 * drawable's own format (8-bit, 16-bit or float).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 *   gimp-pixels crop IN.png OUT.png X Y W H [gray]
 *   gimp-pixels add-alpha IN.png OUT.png
 *   gimp-pixels psnr CLEAN.png TEST.png
 *   gimp-pixels psnr CLEAN.png TEST.raw GEOMETRY
 *   gimp-pixels same-alpha BEFORE.raw AFTER.raw GEOMETRY
 *   gimp-pixels same-alpha BEFORE.png AFTER.png
 *   gimp-pixels same-outside BEFORE.raw AFTER.raw GEOMETRY X Y W H
 *   gimp-pixels tile-matches TILE RESULT.raw|RESULT.png GEOMETRY [LEVELS]
 *   gimp-pixels camera-noise CLEAN.png NOISY.png SEED
 *   gimp-pixels within A B LEVELS [GEOMETRY]
 *
 * tile-matches reads a preview tile the dialog wrote (BM3D_DIALOG_TILE:
 * a "BM3D-TILE x=.. y=.. width=.. height=.. channels=.." line, then
 * 8-bit pixels) and checks that the 8-bit RESULT (a raw dump, or a PNG
 * such as a screenshot, whose GEOMETRY is then ignored) holds the same
 * pixels there, each sample within LEVELS (default 1).
 *
 * camera-noise adds noise shaped like a photograph's to an 8-bit RGB
 * image: a luma component spread over 3 x 3 pixels, the same in R, G
 * and B, plus a colour component per channel spread over 5 x 5 (the
 * coarse blotches of demosaiced chroma noise), clipped to 8 bits.
 *
 * within checks that two 8-bit images (PNG or raw dumps) hold the same
 * samples, alpha included, each within LEVELS.
 *
 * GEOMETRY is WIDTHxHEIGHTxCHANNELSxTYPE, TYPE one of u8, u16, f32 (the
 * machine's byte order, as GIMP's raw export writes it), e.g. 96x64x4xf32.
 * Exit status: 0 when the check holds, 1 when it does not, 2 on errors.
 */
#include "config.h"

#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { SAMPLE_U8, SAMPLE_U16, SAMPLE_F32 } sample_type;

typedef struct
{
  int            width;
  int            height;
  int            channels;
  sample_type    type;
  size_t         sample_bytes;
  unsigned char *data;
} image;

static void
die (const char *format, const char *arg)
{
  fprintf (stderr, "gimp-pixels: ");
  fprintf (stderr, format, arg);
  fputc ('\n', stderr);
  exit (2);
}

static void *
xmalloc (size_t bytes)
{
  void *p = malloc (bytes ? bytes : 1);

  if (!p)
    die ("%s", "out of memory");
  return p;
}

static size_t
image_samples (const image *img)
{
  return (size_t) img->width * img->height * img->channels;
}

/* A sample on the 0..255 scale whatever the type.  */
static double
sample_255 (const image *img, size_t i)
{
  switch (img->type)
    {
    case SAMPLE_U8:
      return img->data[i];
    case SAMPLE_U16:
      return ((const unsigned short *) (const void *) img->data)[i] / 257.0;
    case SAMPLE_F32:
      return ((const float *) (const void *) img->data)[i] * 255.0;
    }
  return 0.0;
}

/* Ancient colour profiles in some photographs make libpng chatter.  */
static void
png_quiet (png_structp png, png_const_charp message)
{
  (void) png;
  (void) message;
}

static void
png_load (const char *path, image *img)
{
  FILE        *f = fopen (path, "rb");
  png_structp  png;
  png_infop    info;
  png_bytep   *rows;
  int          depth, colour;
  size_t       row_bytes;

  if (!f)
    die ("cannot open %s", path);
  png = png_create_read_struct (PNG_LIBPNG_VER_STRING, NULL, NULL,
                                png_quiet);
  info = png ? png_create_info_struct (png) : NULL;
  if (!info)
    die ("%s", "libpng failed to start");
  if (setjmp (png_jmpbuf (png)))
    die ("cannot read PNG %s", path);

  png_init_io (png, f);
  png_read_info (png, info);
  depth = png_get_bit_depth (png, info);
  colour = png_get_color_type (png, info);
  if (colour == PNG_COLOR_TYPE_PALETTE)
    png_set_palette_to_rgb (png);
  if (depth < 8)
    png_set_expand (png);
  if (png_get_valid (png, info, PNG_INFO_tRNS))
    png_set_tRNS_to_alpha (png);
  if (depth == 16)
    png_set_swap (png);
  png_read_update_info (png, info);

  img->width = png_get_image_width (png, info);
  img->height = png_get_image_height (png, info);
  img->channels = png_get_channels (png, info);
  img->type = png_get_bit_depth (png, info) == 16 ? SAMPLE_U16 : SAMPLE_U8;
  img->sample_bytes = img->type == SAMPLE_U16 ? 2 : 1;
  row_bytes = png_get_rowbytes (png, info);
  img->data = xmalloc (row_bytes * img->height);
  rows = xmalloc (sizeof *rows * img->height);
  for (int y = 0; y < img->height; y++)
    rows[y] = img->data + row_bytes * y;
  png_read_image (png, rows);
  png_read_end (png, NULL);
  png_destroy_read_struct (&png, &info, NULL);
  free (rows);
  fclose (f);
}

/* 8-bit images only: the tests' inputs.  */
static void
png_save (const char *path, const image *img)
{
  static const int types[] = { 0, PNG_COLOR_TYPE_GRAY,
                               PNG_COLOR_TYPE_GRAY_ALPHA,
                               PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA };
  FILE        *f = fopen (path, "wb");
  png_structp  png;
  png_infop    info;

  if (!f)
    die ("cannot create %s", path);
  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  info = png ? png_create_info_struct (png) : NULL;
  if (!info)
    die ("%s", "libpng failed to start");
  if (setjmp (png_jmpbuf (png)))
    die ("cannot write PNG %s", path);
  png_init_io (png, f);
  png_set_IHDR (png, info, img->width, img->height, 8, types[img->channels],
                PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                PNG_FILTER_TYPE_DEFAULT);
  png_write_info (png, info);
  for (int y = 0; y < img->height; y++)
    png_write_row (png, img->data + (size_t) y * img->width * img->channels);
  png_write_end (png, NULL);
  png_destroy_write_struct (&png, &info);
  if (fclose (f) != 0)
    die ("cannot write %s", path);
}

static void
raw_load (const char *path, const char *geometry, image *img)
{
  char   type[8] = "";
  FILE  *f;
  size_t bytes;

  if (sscanf (geometry, "%dx%dx%dx%7s", &img->width, &img->height,
              &img->channels, type) != 4
      || img->width < 1 || img->height < 1
      || img->channels < 1 || img->channels > 4)
    die ("bad geometry %s", geometry);
  if (strcmp (type, "u8") == 0)
    img->type = SAMPLE_U8, img->sample_bytes = 1;
  else if (strcmp (type, "u16") == 0)
    img->type = SAMPLE_U16, img->sample_bytes = 2;
  else if (strcmp (type, "f32") == 0)
    img->type = SAMPLE_F32, img->sample_bytes = 4;
  else
    die ("bad sample type in %s", geometry);

  bytes = image_samples (img) * img->sample_bytes;
  img->data = xmalloc (bytes);
  f = fopen (path, "rb");
  if (!f)
    die ("cannot open %s", path);
  if (fread (img->data, 1, bytes, f) != bytes || fgetc (f) != EOF)
    die ("%s does not have the size its geometry says", path);
  fclose (f);
}

static int
has_suffix (const char *s, const char *suffix)
{
  size_t n = strlen (s), m = strlen (suffix);

  return n >= m && strcmp (s + n - m, suffix) == 0;
}

static void
load_any (const char *path, const char *geometry, image *img)
{
  if (has_suffix (path, ".raw"))
    {
      if (!geometry)
        die ("%s needs a geometry", path);
      raw_load (path, geometry, img);
    }
  else
    png_load (path, img);
}

static int
same_sample (const image *a, const image *b, size_t i)
{
  return memcmp (a->data + i * a->sample_bytes, b->data + i * b->sample_bytes,
                 a->sample_bytes) == 0;
}

static void
require_same_geometry (const image *a, const image *b)
{
  if (a->width != b->width || a->height != b->height
      || a->channels != b->channels || a->type != b->type)
    die ("%s", "the two images differ in geometry");
}

/* ---- commands -------------------------------------------------------- */

static int
cmd_crop (int argc, char **argv)
{
  image in, out;
  int   x0, y0, gray;

  if (argc < 8)
    die ("%s", "crop IN OUT X Y W H [gray]");
  png_load (argv[2], &in);
  x0 = atoi (argv[4]);
  y0 = atoi (argv[5]);
  out.width = atoi (argv[6]);
  out.height = atoi (argv[7]);
  gray = argc > 8 && strcmp (argv[8], "gray") == 0;
  if (in.type != SAMPLE_U8 || x0 < 0 || y0 < 0 || out.width < 1
      || out.height < 1 || x0 + out.width > in.width
      || y0 + out.height > in.height || (gray && in.channels < 3))
    die ("cannot crop %s that way", argv[2]);
  out.channels = gray ? 1 : in.channels;
  out.type = SAMPLE_U8;
  out.sample_bytes = 1;
  out.data = xmalloc (image_samples (&out));
  for (int y = 0; y < out.height; y++)
    for (int x = 0; x < out.width; x++)
      {
        const unsigned char *s = in.data
          + ((size_t) (y + y0) * in.width + x + x0) * in.channels;
        unsigned char *d = out.data
          + ((size_t) y * out.width + x) * out.channels;

        if (gray)
          d[0] = (unsigned char) lrint (0.299 * s[0] + 0.587 * s[1]
                                        + 0.114 * s[2]);
        else
          memcpy (d, s, in.channels);
      }
  png_save (argv[3], &out);
  return 0;
}

/* Alpha varies from pixel to pixel (1..255, never 0, so no colour hides
 * under full transparency) to catch any mixing of alpha and colour.  */
static int
cmd_add_alpha (int argc, char **argv)
{
  image in, out;

  if (argc != 4)
    die ("%s", "add-alpha IN OUT");
  png_load (argv[2], &in);
  if (in.type != SAMPLE_U8 || (in.channels != 1 && in.channels != 3))
    die ("%s must be 8-bit gray or RGB", argv[2]);
  out = in;
  out.channels = in.channels + 1;
  out.data = xmalloc (image_samples (&out));
  for (int y = 0; y < in.height; y++)
    for (int x = 0; x < in.width; x++)
      {
        size_t p = (size_t) y * in.width + x;

        memcpy (out.data + p * out.channels, in.data + p * in.channels,
                in.channels);
        out.data[p * out.channels + in.channels] =
          (unsigned char) (1 + (x * 7 + y * 13) % 255);
      }
  png_save (argv[3], &out);
  return 0;
}

/* PSNR of the colour channels (alpha ignored) against an 8-bit clean
 * image, peak 255, without rounding the test image.  */
static int
cmd_psnr (int argc, char **argv)
{
  image  clean, test;
  int    colour, test_colour;
  double sum = 0.0;
  size_t n = 0;

  if (argc < 4)
    die ("%s", "psnr CLEAN TEST [GEOMETRY]");
  png_load (argv[2], &clean);
  load_any (argv[3], argc > 4 ? argv[4] : NULL, &test);
  colour = clean.channels == 2 || clean.channels == 4
           ? clean.channels - 1 : clean.channels;
  test_colour = test.channels == 2 || test.channels == 4
                ? test.channels - 1 : test.channels;
  if (clean.width != test.width || clean.height != test.height
      || colour != test_colour)
    die ("%s does not match the clean image", argv[3]);

  for (size_t p = 0; p < (size_t) clean.width * clean.height; p++)
    for (int c = 0; c < colour; c++, n++)
      {
        double d = sample_255 (&clean, p * clean.channels + c)
                   - sample_255 (&test, p * test.channels + c);
        sum += d * d;
      }
  printf ("%.4f\n", sum > 0.0 ? 10.0 * log10 (255.0 * 255.0 * n / sum)
                              : 999.0);
  return 0;
}

static int
cmd_same_alpha (int argc, char **argv)
{
  image  a, b;
  size_t differ = 0;

  if (argc != 4 && argc != 5)
    die ("%s", "same-alpha BEFORE AFTER [GEOMETRY]");
  load_any (argv[2], argc > 4 ? argv[4] : NULL, &a);
  load_any (argv[3], argc > 4 ? argv[4] : NULL, &b);
  require_same_geometry (&a, &b);
  if (a.channels != 2 && a.channels != 4)
    die ("%s", "the geometry has no alpha channel");
  for (size_t p = 0; p < (size_t) a.width * a.height; p++)
    if (!same_sample (&a, &b, p * a.channels + a.channels - 1))
      differ++;
  printf ("alpha samples changed: %zu\n", differ);
  return differ == 0 ? 0 : 1;
}

/* Every sample outside the rectangle is bit-exact, and the rectangle did
 * change (most of its pixels), so the check cannot pass vacuously.  */
static int
cmd_same_outside (int argc, char **argv)
{
  image  a, b;
  int    rx, ry, rw, rh;
  size_t outside_changed = 0, inside_changed = 0;

  if (argc != 9)
    die ("%s", "same-outside BEFORE AFTER GEOMETRY X Y W H");
  raw_load (argv[2], argv[4], &a);
  raw_load (argv[3], argv[4], &b);
  require_same_geometry (&a, &b);
  rx = atoi (argv[5]);
  ry = atoi (argv[6]);
  rw = atoi (argv[7]);
  rh = atoi (argv[8]);

  for (int y = 0; y < a.height; y++)
    for (int x = 0; x < a.width; x++)
      {
        size_t p = (size_t) y * a.width + x;
        int    inside = x >= rx && x < rx + rw && y >= ry && y < ry + rh;
        int    changed = 0;

        for (int c = 0; c < a.channels; c++)
          changed |= !same_sample (&a, &b, p * a.channels + c);
        if (changed && inside)
          inside_changed++;
        else if (changed)
          outside_changed++;
      }
  printf ("pixels changed outside: %zu, inside: %zu of %d\n",
          outside_changed, inside_changed, rw * rh);
  return outside_changed == 0 && inside_changed * 2 > (size_t) rw * rh
         ? 0 : 1;
}

/* The preview tile against the final result on the tile's area.  */
static int
cmd_tile_matches (int argc, char **argv)
{
  image   result;
  FILE   *f;
  char    line[512];
  int     tx, ty, tw, th, tc, levels = argc > 5 ? atoi (argv[5]) : 1;
  size_t  bytes, over = 0;
  int     worst = 0;
  unsigned char *tile;

  if (argc != 5 && argc != 6)
    die ("%s", "tile-matches TILE RESULT.raw GEOMETRY [LEVELS]");
  load_any (argv[3], argv[4], &result);
  if (result.type != SAMPLE_U8)
    die ("%s", "tile-matches compares 8-bit results");
  f = fopen (argv[2], "rb");
  if (!f)
    die ("cannot open %s", argv[2]);
  if (!fgets (line, sizeof line, f)
      || sscanf (line, "BM3D-TILE x=%d y=%d width=%d height=%d channels=%d",
                 &tx, &ty, &tw, &th, &tc) != 5
      || tw < 1 || th < 1 || tc != result.channels || tx < 0 || ty < 0
      || tx + tw > result.width || ty + th > result.height)
    die ("%s is not a tile of this result", argv[2]);
  bytes = (size_t) tw * th * tc;
  tile = xmalloc (bytes);
  if (fread (tile, 1, bytes, f) != bytes || fgetc (f) != EOF)
    die ("%s does not have the size its header says", argv[2]);
  fclose (f);

  for (int y = 0; y < th; y++)
    for (int x = 0; x < tw * tc; x++)
      {
        int a = tile[(size_t) y * tw * tc + x];
        int b = result.data[((size_t) (y + ty) * result.width + tx) * tc + x];
        int d = a > b ? a - b : b - a;

        if (d > worst)
          worst = d;
        if (d > levels)
          over++;
      }
  printf ("tile %dx%d at %d,%d: largest difference %d level(s), %zu "
          "sample(s) over %d\n", tw, th, tx, ty, worst, over, levels);
  free (tile);
  free (result.data);
  return over == 0 ? 0 : 1;
}

/* Deterministic standard normal numbers (xorshift and Box-Muller), the
 * same on every machine.  */
static double
normal (unsigned long long *state)
{
  double u1, u2;

  do
    {
      *state ^= *state << 13;
      *state ^= *state >> 7;
      *state ^= *state << 17;
      u1 = (double) (*state >> 11) / 9007199254740992.0;
    }
  while (u1 <= 0.0);
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  u2 = (double) (*state >> 11) / 9007199254740992.0;
  return sqrt (-2.0 * log (u1)) * cos (6.283185307179586 * u2);
}

/* White noise of unit deviation averaged over a `side` x `side` box
 * (binomial weights for side 3), scaled back to unit deviation.  */
static double *
spread_noise (int width, int height, int side, unsigned long long *state)
{
  static const double binomial[3] = { 0.25, 0.5, 0.25 };
  int     r = side / 2, pw = width + 2 * r, ph = height + 2 * r;
  double *white = xmalloc (sizeof *white * pw * ph);
  double *out = xmalloc (sizeof *out * width * height);
  double  norm = 0.0;

  for (int i = 0; i < pw * ph; i++)
    white[i] = normal (state);
  for (int dy = -r; dy <= r; dy++)
    for (int dx = -r; dx <= r; dx++)
      {
        double w = side == 3 ? binomial[dy + 1] * binomial[dx + 1] : 1.0;

        norm += w * w;
      }
  norm = sqrt (norm);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        double sum = 0.0;

        for (int dy = -r; dy <= r; dy++)
          for (int dx = -r; dx <= r; dx++)
            sum += (side == 3 ? binomial[dy + 1] * binomial[dx + 1] : 1.0)
                   * white[(size_t) (y + r + dy) * pw + x + r + dx];
        out[(size_t) y * width + x] = sum / norm;
      }
  free (white);
  return out;
}

static int
cmd_camera_noise (int argc, char **argv)
{
  const double luma_sigma = 6.0, colour_sigma = 5.0;
  unsigned long long state;
  image   img;
  double *luma, *colour[3];

  if (argc != 5)
    die ("%s", "camera-noise CLEAN NOISY SEED");
  png_load (argv[2], &img);
  if (img.type != SAMPLE_U8 || img.channels != 3)
    die ("%s must be 8-bit RGB", argv[2]);
  state = 0x9e3779b97f4a7c15ULL ^ strtoull (argv[4], NULL, 10);
  luma = spread_noise (img.width, img.height, 3, &state);
  for (int c = 0; c < 3; c++)
    colour[c] = spread_noise (img.width, img.height, 5, &state);
  for (size_t p = 0; p < (size_t) img.width * img.height; p++)
    for (int c = 0; c < 3; c++)
      {
        double v = img.data[p * 3 + c] + luma_sigma * luma[p]
                   + colour_sigma * colour[c][p];

        img.data[p * 3 + c] = (unsigned char) (v < 0.0 ? 0 : v > 255.0 ? 255
                                               : lrint (v));
      }
  png_save (argv[3], &img);
  free (luma);
  for (int c = 0; c < 3; c++)
    free (colour[c]);
  return 0;
}

static int
cmd_within (int argc, char **argv)
{
  image  a, b;
  size_t over = 0;
  int    levels, worst = 0;

  if (argc != 5 && argc != 6)
    die ("%s", "within A B LEVELS [GEOMETRY]");
  load_any (argv[2], argc > 5 ? argv[5] : NULL, &a);
  load_any (argv[3], argc > 5 ? argv[5] : NULL, &b);
  require_same_geometry (&a, &b);
  if (a.type != SAMPLE_U8)
    die ("%s", "within compares 8-bit images");
  levels = atoi (argv[4]);
  for (size_t i = 0; i < image_samples (&a); i++)
    {
      int d = abs ((int) a.data[i] - (int) b.data[i]);

      if (d > worst)
        worst = d;
      if (d > levels)
        over++;
    }
  printf ("largest difference %d level(s), %zu sample(s) over %d\n", worst,
          over, levels);
  return over == 0 ? 0 : 1;
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    die ("%s", "usage: gimp-pixels crop|add-alpha|psnr|same-alpha|"
         "same-outside|tile-matches|camera-noise|within ...");
  if (strcmp (argv[1], "crop") == 0)
    return cmd_crop (argc, argv);
  if (strcmp (argv[1], "add-alpha") == 0)
    return cmd_add_alpha (argc, argv);
  if (strcmp (argv[1], "psnr") == 0)
    return cmd_psnr (argc, argv);
  if (strcmp (argv[1], "same-alpha") == 0)
    return cmd_same_alpha (argc, argv);
  if (strcmp (argv[1], "same-outside") == 0)
    return cmd_same_outside (argc, argv);
  if (strcmp (argv[1], "tile-matches") == 0)
    return cmd_tile_matches (argc, argv);
  if (strcmp (argv[1], "camera-noise") == 0)
    return cmd_camera_noise (argc, argv);
  if (strcmp (argv[1], "within") == 0)
    return cmd_within (argc, argv);
  die ("unknown command %s", argv[1]);
  return 2;
}
