/* The PNG writer's slices (imageio/io_png.c): at levels 0 and 1 the rows are
 * deflated in slices on several threads and joined into one zlib stream.
 * Checked here: the file is byte for byte the same for any thread count,
 * libpng reads it back (its CRCs and the stream's Adler-32 checked) to
 * exactly the samples image_quantize () gives, and libpng's own writer
 * (level 6) stores the same samples.  Sizes cover one slice, several,
 * the least rows a slice takes, 1x1, gray, alpha and 16 bits.  The
 * comment, XMP packet and resolution are written as PNG keeps them.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include <unistd.h>
#ifdef HAVE_LIBPNG
#include <png.h>
#endif

#include "engine-tap.h"
#include "image_io.h"

typedef struct
{
  int width, height, channels, has_alpha, depth;
} Shape;

/* A smooth picture with noise, and samples outside 0..255 (and a NaN)
 * that the writer must clip.  */
static int
make_image (Image *img, const Shape *s, uint64_t seed)
{
  char error[256];
  size_t n;

  if (image_alloc (img, s->width, s->height, s->channels, s->has_alpha,
                   s->depth, error, sizeof error) < 0)
    return -1;
  n = (size_t) s->width * s->height * s->channels;
  for (size_t i = 0; i < n; i++)
    {
      size_t pixel = i / (size_t) s->channels;
      double x = (double) (pixel % (size_t) s->width);
      double y = (double) (pixel / (size_t) s->width);

      img->data[i] = (float) (128.0 + 90.0 * sin (x * 0.01 + y * 0.02)
                              + 20.0 * rng_gauss (&seed));
    }
  img->data[0] = -7.0f;
  if (n > 1)
    img->data[n - 1] = 300.0f;
  if (n > 2)
    img->data[n / 2] = NAN;
  return 0;
}

static int
write_png (const char *path, const Image *img, int depth, int level,
           int threads)
{
  ImageWriteOptions options;
  char error[512];

  image_write_options_init (&options);
  options.depth = depth;
  options.png_level = level;
  options.threads = threads;
  if (image_write_with (path, IMAGE_FORMAT_PNG, img, &options, error,
                        sizeof error) < 0)
    {
      tap_diag ("%s", error);
      return -1;
    }
  return 0;
}

/* Whether `path` reads back as exactly `want`.  */
static int
reads_as (const char *path, const Image *want)
{
  char error[512];
  Image got;
  int same;

  if (image_read (path, &got, error, sizeof error) < 0)
    {
      tap_diag ("%s", error);
      return 0;
    }
  same = got.width == want->width && got.height == want->height
         && got.channels == want->channels
         && memcmp (got.data, want->data, (size_t) want->width
                    * want->height * want->channels * sizeof *got.data) == 0;
  image_free (&got);
  return same;
}

static void
check_shape (const Shape *s, const char *dir)
{
  static const int thread_counts[] = { 1, 2, 3, 8 };
  char path[4][600], slow[600];
  Image img, want;

  if (make_image (&img, s, (uint64_t) s->width * 7919 + s->height) < 0
      || make_image (&want, s, (uint64_t) s->width * 7919 + s->height) < 0)
    {
      tap_ok (0, "%dx%d: out of memory", s->width, s->height);
      return;
    }
  image_quantize (&want, IMAGE_FORMAT_PNG, s->depth);
  for (int level = 0; level <= 1; level++)
    {
      unsigned char *first = NULL;
      size_t first_len = 0;
      int written = 1, same_bytes = 1, same_pixels = 1;

      for (int t = 0; t < 4; t++)
        {
          unsigned char *bytes;
          size_t len = 0;

          snprintf (path[t], sizeof path[t], "%s/level%d-t%d.png", dir,
                    level, thread_counts[t]);
          if (write_png (path[t], &img, s->depth, level, thread_counts[t])
              < 0)
            {
              written = 0;
              break;
            }
          bytes = read_whole_file (path[t], &len);
          if (!bytes)
            same_bytes = 0;
          else if (!first)
            first = bytes, first_len = len;
          else
            {
              same_bytes &= len == first_len
                            && memcmp (bytes, first, len) == 0;
              free (bytes);
            }
          same_pixels &= reads_as (path[t], &want);
          unlink (path[t]);
        }
      free (first);
      tap_ok (written && same_bytes,
              "%dx%d, %d channels, %d bits, level %d: the same file from "
              "1, 2, 3 and 8 threads", s->width, s->height, s->channels,
              s->depth, level);
      tap_ok (written && same_pixels,
              "%dx%d, %d channels, %d bits, level %d: reads back as the "
              "quantized samples", s->width, s->height, s->channels,
              s->depth, level);
    }
  snprintf (slow, sizeof slow, "%s/level6.png", dir);
  tap_ok (write_png (slow, &img, s->depth, 6, 0) == 0
          && reads_as (slow, &want),
          "%dx%d, %d channels, %d bits: libpng's writer (level 6) stores "
          "the same samples", s->width, s->height, s->channels, s->depth);
  unlink (slow);
  image_free (&img);
  image_free (&want);
}

#ifdef HAVE_LIBPNG
/* 8-bit RGB rows as an interlaced PNG, by libpng; on any error the file
 * is left incomplete, and reading it fails.  */
static void
write_adam7 (const char *path, int width, int height, png_bytep *rows)
{
  FILE *fp = fopen (path, "wb");
  png_structp png;
  png_infop info;

  if (!fp)
    return;
  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  info = png ? png_create_info_struct (png) : NULL;
  if (info && !setjmp (png_jmpbuf (png)))
    {
      png_init_io (png, fp);
      png_set_IHDR (png, info, (png_uint_32) width, (png_uint_32) height, 8,
                    PNG_COLOR_TYPE_RGB, PNG_INTERLACE_ADAM7,
                    PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
      png_write_info (png, info);
      png_write_image (png, rows);
      png_write_end (png, NULL);
    }
  png_destroy_write_struct (&png, &info);
  fclose (fp);
}

/* An interlaced PNG (Adam7, written by libpng here) reads back as its
 * samples: the reader takes such files whole, others a row at a time.  */
static void
check_interlaced (const char *dir)
{
  enum { W = 37, H = 23 };
  static png_byte pixels[H][W * 3];
  png_bytep rows[H];
  char path[600], error[512];
  Image got;
  int same = 0;

  for (int y = 0; y < H; y++)
    {
      for (int i = 0; i < W * 3; i++)
        pixels[y][i] = (png_byte) (y * 11 + i * 7);
      rows[y] = pixels[y];
    }
  snprintf (path, sizeof path, "%s/adam7.png", dir);
  write_adam7 (path, W, H, rows);
  if (image_read (path, &got, error, sizeof error) == 0)
    {
      same = got.width == W && got.height == H && got.channels == 3;
      for (int y = 0; same && y < H; y++)
        for (int i = 0; i < W * 3; i++)
          same &= got.data[(size_t) y * W * 3 + i] == (float) pixels[y][i];
      image_free (&got);
    }
  else
    tap_diag ("%s", error);
  tap_ok (same, "an interlaced PNG reads back as its samples");
  same = 0;
  if (image_read_native (path, &got, error, sizeof error) == 0)
    {
      same = got.width == W && got.height == H && got.channels == 3
             && got.samples == IMAGE_SAMPLES_U8
             && memcmp (got.pixels, pixels, sizeof pixels) == 0;
      image_free (&got);
    }
  else
    tap_diag ("%s", error);
  tap_ok (same, "an interlaced PNG reads back as its integers");
  unlink (path);
}

/* The text the file holds under `key`, and whether as iTXt.  */
static const char *
text_of (png_structp png, png_infop info, const char *key, int *itxt)
{
  png_textp texts;
  int n = png_get_text (png, info, &texts, NULL);

  for (int i = 0; i < n; i++)
    if (strcmp (texts[i].key, key) == 0)
      {
        *itxt = texts[i].compression >= PNG_ITXT_COMPRESSION_NONE;
        return texts[i].text;
      }
  return NULL;
}

/* The comment, the XMP packet and the resolution the GIMP plug-in's
 * batch hands the writer: tEXt in Latin-1 for a comment Latin-1 holds,
 * iTXt in UTF-8 for one it does not, iTXt for XMP, pHYs; at level 1
 * (the slices) and 3 (libpng's own writer).  */
static void
check_texts (const char *dir)
{
  static const char *comments[] = { "caf\xc3\xa9 au lait",
                                    "\xce\xba\xce\xb1\xce\xbb\xce\xb7" };
  static const char *xmp = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>";
  const Shape shape = { 40, 30, 3, 0, 8 };
  char path[512];

  snprintf (path, sizeof path, "%s/texts.png", dir);
  for (int c = 0; c < 2; c++)
    for (int level = 1; level <= 3; level += 2)
      {
        Image img;
        FILE *fp = NULL;
        png_structp png = NULL;
        png_infop info = NULL;
        const char *comment = NULL, *packet = NULL;
        int comment_itxt = -1, packet_itxt = -1, unit = -1, read = 0;
        png_uint_32 x = 0, y = 0;

        if (make_image (&img, &shape, 7) < 0
            || image_set_comment (&img, comments[c]) < 0
            || image_set_xmp (&img, xmp) < 0)
          {
            tap_ok (0, "texts: out of memory");
            image_free (&img);
            continue;
          }
        img.meta.x_ppm = 11811;
        img.meta.y_ppm = 5906;
        if (write_png (path, &img, 8, level, 2) == 0
            && (fp = fopen (path, "rb")) != NULL
            && (png = png_create_read_struct (PNG_LIBPNG_VER_STRING, NULL,
                                              NULL, NULL)) != NULL
            && (info = png_create_info_struct (png)) != NULL
            && setjmp (png_jmpbuf (png)) == 0)
          {
            png_init_io (png, fp);
            png_read_info (png, info);
            comment = text_of (png, info, "Comment", &comment_itxt);
            packet = text_of (png, info, "XML:com.adobe.xmp", &packet_itxt);
            png_get_pHYs (png, info, &x, &y, &unit);
            read = 1;
          }
        tap_ok (read && comment
                && strcmp (comment, c == 0 ? "caf\xe9 au lait"
                                           : comments[1]) == 0
                && comment_itxt == c,
                "level %d: a comment %s is kept as %s", level,
                c == 0 ? "in Latin-1" : "outside Latin-1",
                c == 0 ? "tEXt" : "iTXt (UTF-8)");
        tap_ok (read && packet && strcmp (packet, xmp) == 0
                && packet_itxt == 1,
                "level %d: the XMP packet is kept as iTXt", level);
        tap_ok (read && x == 11811 && y == 5906 && unit == PNG_RESOLUTION_METER,
                "level %d: the resolution is kept (pHYs)", level);
        png_destroy_read_struct (&png, &info, NULL);
        if (fp)
          fclose (fp);
        image_free (&img);
      }
  unlink (path);
}
#endif

int
main (void)
{
  static const Shape shapes[] = {
    { 1, 1, 3, 0, 8 },
    { 5, 3, 1, 0, 8 },
    { 257, 100, 3, 0, 8 },          /* one slice                    */
    { 1000, 1500, 3, 0, 8 },        /* 3 slices of 699 rows         */
    { 600, 2000, 4, 1, 16 },        /* 16 bits, alpha: 5 slices     */
    { 3001, 800, 2, 1, 8 },         /* gray and alpha               */
    { 100000, 20, 3, 0, 8 },        /* rows of 8 a slice, the least */
  };
  char dir[] = "/tmp/bm3d-io-png.XXXXXX";

  if (!mkdtemp (dir))
    {
      printf ("1..0 # SKIP no temporary folder\n");
      return 0;
    }
  if (!image_format_supported (IMAGE_FORMAT_PNG))
    {
      rmdir (dir);
      printf ("1..0 # SKIP built without libpng\n");
      return 0;
    }
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    check_shape (&shapes[i], dir);
#ifdef HAVE_LIBPNG
  check_interlaced (dir);
  check_texts (dir);
#endif
  rmdir (dir);
  return tap_done ();
}
