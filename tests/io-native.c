/* A file's own integers (image_read_native, imageio/image_io.c): for PNG,
 * JPEG, TIFF and Netpbm at 8 and 16 bits, gray to RGBA, the integers
 * read are the float read's samples exactly (image_to_float gives its
 * floats bit for bit), and the integer image written again — at its own
 * depth straight from its rows, at another through floats — is byte for
 * byte the file the float image gives.  Sizes cover one PNG slice and
 * several.  Files the readers keep as floats (Netpbm of another maxval)
 * say so.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include <unistd.h>

#include "engine-tap.h"
#include "image_io.h"

typedef struct
{
  ImageFormat  format;
  const char  *ext;
  int          width, height, channels, has_alpha, depth;
  int          level;         /* PNG's zlib level, TIFF's Deflate (0: none) */
} Case;

/* A smooth picture with noise over the whole range, clipped ends
 * included.  */
static int
make_image (Image *img, const Case *c, uint64_t seed)
{
  char error[256];
  size_t n;

  if (image_alloc (img, c->width, c->height, c->channels, c->has_alpha,
                   c->depth, error, sizeof error) < 0)
    return -1;
  n = (size_t) c->width * c->height * c->channels;
  for (size_t i = 0; i < n; i++)
    {
      size_t pixel = i / (size_t) c->channels;
      double x = (double) (pixel % (size_t) c->width);
      double y = (double) (pixel / (size_t) c->width);

      img->data[i] = (float) (128.0 + 120.0 * sin (x * 0.013 + y * 0.021)
                              + 15.0 * rng_gauss (&seed));
    }
  return 0;
}

static int
same_file (const char *a, const char *b)
{
  size_t la, lb;
  unsigned char *da = read_whole_file (a, &la);
  unsigned char *db = read_whole_file (b, &lb);
  int same = da && db && la == lb && memcmp (da, db, la) == 0;

  free (da);
  free (db);
  return same;
}

static int
write_as (const char *path, const Case *c, const Image *img, int depth)
{
  ImageWriteOptions options;
  char error[512];

  image_write_options_init (&options);
  options.depth = depth;
  options.png_level = c->level;
  if (image_write_with (path, IMAGE_FORMAT_UNKNOWN, img, &options, error,
                        sizeof error) < 0)
    {
      tap_diag ("%s", error);
      return -1;
    }
  return 0;
}

/* Whether `native`, turned to floats, is `floats` bit for bit.  */
static int
same_as_floats (const Image *native, const Image *floats)
{
  size_t n = (size_t) native->width * native->height * native->channels;
  size_t bytes = n * image_sample_size (native->samples);
  Image copy = *native;
  int same;

  memset (&copy.meta, 0, sizeof copy.meta);
  copy.pixels = malloc (bytes);
  if (!copy.pixels)
    return 0;
  memcpy (copy.pixels, native->pixels, bytes);
  if (image_to_float (&copy) < 0)
    {
      free (copy.pixels);
      return 0;
    }
  same = copy.width == floats->width && copy.height == floats->height
         && copy.channels == floats->channels
         && copy.has_alpha == floats->has_alpha
         && copy.depth == floats->depth
         && memcmp (copy.data, floats->data, n * sizeof (float)) == 0;
  image_free (&copy);
  return same;
}

/* The written image's depth and the other one the format holds.  */
static int
other_depth (const Case *c)
{
  if (c->format == IMAGE_FORMAT_JPEG)
    return 0;
  return c->depth == 8 ? 16 : 8;
}

static void
check_case (const Case *c, const char *dir)
{
  char file[600], from_int[600], from_float[600], error[512];
  ImageSamples want = c->depth == 16 ? IMAGE_SAMPLES_U16 : IMAGE_SAMPLES_U8;
  Image img, floats, native;
  int read = 0, depths[2] = { c->depth, other_depth (c) };

  snprintf (file, sizeof file, "%s/in.%s", dir, c->ext);
  if (make_image (&img, c, (uint64_t) c->width * 31 + c->channels) < 0
      || write_as (file, c, &img, c->depth) < 0)
    {
      tap_ok (0, "%s %dx%d, %d channels, %d bits: written", c->ext,
              c->width, c->height, c->channels, c->depth);
      image_free (&img);
      return;
    }
  image_free (&img);
  if (image_read (file, &floats, error, sizeof error) == 0)
    {
      read = 1;
      if (image_read_native (file, &native, error, sizeof error) < 0)
        {
          image_free (&floats);
          read = 0;
        }
    }
  if (!read)
    {
      tap_diag ("%s", error);
      tap_ok (0, "%s %dx%d, %d channels, %d bits: read back", c->ext,
              c->width, c->height, c->channels, c->depth);
      unlink (file);
      return;
    }
  tap_ok (native.samples == want && native.data == NULL
          && same_as_floats (&native, &floats),
          "%s %dx%d, %d channels, %d bits: its integers are the float "
          "read's samples", c->ext, c->width, c->height, c->channels,
          c->depth);
  snprintf (from_int, sizeof from_int, "%s/int.%s", dir, c->ext);
  snprintf (from_float, sizeof from_float, "%s/float.%s", dir, c->ext);
  for (int d = 0; d < 2 && depths[d]; d++)
    {
      tap_ok (write_as (from_int, c, &native, depths[d]) == 0
              && write_as (from_float, c, &floats, depths[d]) == 0
              && same_file (from_int, from_float),
              "%s %dx%d, %d channels, %d bits written at %d: the float "
              "image's file", c->ext, c->width, c->height, c->channels,
              c->depth, depths[d]);
      unlink (from_int);
      unlink (from_float);
    }
  image_free (&native);
  image_free (&floats);
  unlink (file);
}

/* A file the reader keeps as floats (Netpbm of maxval 1000) says so.  */
static void
check_float_kept (const char *dir)
{
  char path[600], error[512];
  FILE *fp;
  Image img;
  int kept = 0;

  snprintf (path, sizeof path, "%s/maxval.pgm", dir);
  fp = fopen (path, "wb");
  if (fp)
    {
      fprintf (fp, "P5\n3 1\n1000\n");
      fwrite ("\0\0\x01\xf4\x03\xe8", 1, 6, fp);
      fclose (fp);
    }
  if (image_read_native (path, &img, error, sizeof error) == 0)
    {
      kept = img.samples == IMAGE_SAMPLES_FLOAT && img.pixels == NULL
             && img.data[0] == 0.0f && img.data[1] == 127.5f
             && img.data[2] == 255.0f;
      image_free (&img);
    }
  tap_ok (kept, "Netpbm of maxval 1000: read as floats");
  unlink (path);
}

int
main (void)
{
  static const Case cases[] = {
    { IMAGE_FORMAT_PNG, "png", 23, 17, 1, 0, 8, 1 },
    { IMAGE_FORMAT_PNG, "png", 23, 17, 2, 1, 16, 1 },
    { IMAGE_FORMAT_PNG, "png", 23, 17, 4, 1, 8, 6 },
    { IMAGE_FORMAT_PNG, "png", 23, 17, 3, 0, 16, 6 },
    { IMAGE_FORMAT_PNG, "png", 1000, 1500, 3, 0, 8, 1 },  /* 3 slices */
    { IMAGE_FORMAT_PNG, "png", 600, 900, 4, 1, 16, 1 },   /* 3 slices */
    { IMAGE_FORMAT_JPEG, "jpg", 23, 17, 1, 0, 8, 1 },
    { IMAGE_FORMAT_JPEG, "jpg", 301, 203, 3, 0, 8, 1 },
    { IMAGE_FORMAT_TIFF, "tif", 23, 17, 1, 0, 8, 1 },
    { IMAGE_FORMAT_TIFF, "tif", 23, 17, 4, 1, 16, 1 },
    { IMAGE_FORMAT_TIFF, "tif", 301, 203, 3, 0, 16, 0 },
    { IMAGE_FORMAT_TIFF, "tif", 301, 203, 2, 1, 8, 0 },
    { IMAGE_FORMAT_PNM, "pgm", 23, 17, 1, 0, 8, 1 },
    { IMAGE_FORMAT_PNM, "ppm", 23, 17, 3, 0, 16, 1 },
    { IMAGE_FORMAT_PNM, "ppm", 301, 203, 3, 0, 8, 1 },
  };
  char dir[] = "/tmp/bm3d-io-native.XXXXXX";

  if (!mkdtemp (dir))
    {
      printf ("1..0 # SKIP no temporary folder\n");
      return 0;
    }
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (image_format_supported (cases[i].format))
      check_case (&cases[i], dir);
    else
      tap_ok (1, "%s %s # SKIP not built in", cases[i].ext,
              image_format_name (cases[i].format));
  check_float_kept (dir);
  rmdir (dir);
  return tap_done ();
}
