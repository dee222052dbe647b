/* BM3D Denoise — image files for the command line.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Images are held as interleaved floats on the 0..255 scale whatever the
 * file's precision, the scale the engine works on.  The format follows
 * the file name's extension (any case):
 *
 *   .png              8 or 16 bits; gray, gray+alpha, RGB, RGBA; palette
 *                     and low-depth gray images are expanded (needs libpng)
 *   .pgm .ppm .pnm    binary Netpbm, P5 (gray) or P6 (RGB); maxval up to
 *                     255 is read as 8 bits, above as 16 bits (big-endian)
 *   .pfm              Portable Float Map, Pf (gray) or PF (RGB); samples
 *                     are stored on the usual 0..1 scale (1.0 = white),
 *                     byte order given by the sign of the scale field,
 *                     rows from bottom to top
 *
 * Integer formats are rounded and clipped on writing; PFM keeps the
 * values as they are, out-of-range ones included.  Netpbm and PFM files
 * have no alpha: an alpha channel is dropped when writing them.  */
#ifndef BM3D_IMAGE_IO_H
#define BM3D_IMAGE_IO_H

#include <stddef.h>

/* Images larger than this many pixels are refused before any allocation:
 * it keeps every size computation far from overflow.  */
#define IMAGE_MAX_PIXELS ((size_t) 1 << 28)
#define IMAGE_MAX_SIDE   (1 << 20)

typedef enum
{
  IMAGE_FORMAT_UNKNOWN = 0,
  IMAGE_FORMAT_PNG,
  IMAGE_FORMAT_PNM,
  IMAGE_FORMAT_PFM
} ImageFormat;

typedef struct
{
  int     width;
  int     height;
  int     channels;    /* 1..4, interleaved, no row padding             */
  int     has_alpha;   /* the last channel is alpha                     */
  int     depth;       /* precision of the source: 8, 16 or 32 (float)  */
  float  *data;
} Image;

/* The format of `path`, from its extension.  */
ImageFormat  image_format_for_path  (const char *path);
const char  *image_format_name      (ImageFormat format);

/* Whether `format` can be read and written by this build (PNG needs
 * libpng).  */
int          image_format_supported (ImageFormat format);
int          image_format_has_alpha (ImageFormat format);

/* Allocate a zero-filled image; returns 0, or -1 with `error` set.  */
int          image_alloc            (Image *img, int width, int height,
                                     int channels, int has_alpha, int depth,
                                     char *error, size_t error_len);
void         image_free             (Image *img);

/* Read `path` into `img`.  Returns 0, or -1 with a one-line `error`
 * (which names the file) and `img` left empty.  */
int          image_read             (const char *path, Image *img,
                                     char *error, size_t error_len);

/* Write `img` to `path` with `depth` bits per sample (8 or 16) for
 * integer formats; PFM ignores `depth`.  A file that could not be written
 * completely is removed.  Returns 0, or -1 with `error` set.  */
int          image_write            (const char *path, const Image *img,
                                     int depth, char *error,
                                     size_t error_len);

/* Round and clip the samples in place exactly as image_write () would
 * store them in `format` at `depth` bits, so that measurements made in
 * memory match the file.  */
void         image_quantize         (Image *img, ImageFormat format,
                                     int depth);

#endif /* BM3D_IMAGE_IO_H */
