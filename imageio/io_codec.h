/* BM3D Denoise — what the per-format image files share (not public:
 * image_io.h is the interface).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Every reader treats the file as hostile: sizes are checked before any
 * allocation, short reads and malformed headers become one-line error
 * messages that name the file, and nothing is left allocated on failure
 * (image_read frees the image).  Writers get an open file; image_io.c
 * creates it and removes it when the write fails.  */
#ifndef BM3D_IO_CODEC_H
#define BM3D_IO_CODEC_H

#include <stdint.h>
#include <stdio.h>

#include "image_io.h"

/* A reader given `native` may keep an 8- or 16-bit file's integers
 * (Image.samples); without it, floats.  IO_READ_FLOAT_DCT added to it:
 * JPEG's inverse DCT in floating point (image_read_native_with ()).  */
#define IO_READ_FLOAT_DCT 2
typedef int (*ImageReadFunc)  (const char *path, FILE *fp, Image *img,
                               int native, char *error, size_t error_len);
typedef int (*ImageWriteFunc) (const char *path, FILE *fp, const Image *img,
                               const ImageWriteOptions *options,
                               char *error, size_t error_len);

/* One format: its names, what it can hold, and its reader and writer
 * (NULL when its library is not built in).  */
typedef struct
{
  ImageFormat     format;
  const char     *name;         /* "PNG"                                */
  const char     *extensions;   /* "png", space-separated               */
  const char     *library;      /* "libpng 1.6.39", or NULL: built in   */
  int             has_alpha;
  int             depths;       /* bit set: 8, 16, 32 (1 << (depth/8))  */
  ImageReadFunc   read;
  ImageWriteFunc  write;
  int             writes_integers; /* the writer takes an integer image
                                      written at its own depth; any other
                                      is handed to it as floats        */
} ImageCodec;

#define IMAGE_DEPTHS(d8, d16, d32) \
  (((d8) ? 1 << 1 : 0) | ((d16) ? 1 << 2 : 0) | ((d32) ? 1 << 4 : 0))

extern const ImageCodec image_codec_png;
extern const ImageCodec image_codec_jpeg;
extern const ImageCodec image_codec_tiff;
extern const ImageCodec image_codec_pnm;
extern const ImageCodec image_codec_pfm;

/* ---- shared by the codecs (image_io.c) --------------------------------- */

void      io_set_error     (char *error, size_t error_len,
                            const char *format, ...)
                           __attribute__ ((format (printf, 3, 4)));

/* Refuses sizes that are empty, over the limits or of a channel count
 * outside 1..4, with the error set.  */
int       io_check_size    (const char *path, long width, long height,
                            int channels, char *error, size_t error_len);

/* malloc that names the file in the error when it fails.  */
void     *io_alloc         (const char *path, size_t bytes, char *error,
                            size_t error_len);

/* Samples: the 0..255 float scale against integers of `depth` bits.  */
unsigned  io_to_int        (float v, int depth);
float     io_from_int      (unsigned s, unsigned maxval);

/* One row of `n` samples between floats and 8-bit, 16-bit native-order
 * or big-endian integers (PNG, Netpbm).  */
void      io_row_to_u8     (const float *src, uint8_t *dst, size_t n);
void      io_row_to_u16    (const float *src, uint16_t *dst, size_t n);
void      io_row_to_be16   (const float *src, unsigned char *dst, size_t n);
void      io_row_from_u8   (const uint8_t *src, float *dst, size_t n);
void      io_row_from_u16  (const uint16_t *src, float *dst, size_t n);
void      io_row_from_be16 (const unsigned char *src, float *dst, size_t n);

/* Samples between 16-bit native order and big-endian (PNG, Netpbm).  */
void      io_row_u16_to_be16 (const uint16_t *src, unsigned char *dst,
                              size_t n);
void      io_row_be16_to_u16 (const unsigned char *src, uint16_t *dst,
                              size_t n);

/* Is `img` integer and to be stored at its own `depth`?  */
int       io_native_write  (const Image *img, int depth);

/* The colour channels of `img` (without alpha).  */
int       io_colour        (const Image *img);

/* Has the write been interrupted?  */
int       io_cancelled     (const ImageWriteOptions *options);

/* A NUL-terminated copy of `len` bytes of a file's text (a comment, an
 * XMP packet), or NULL when out of memory.  */
char     *io_copy_text     (const unsigned char *text, size_t len);

/* Takes a copy of `len` bytes as the image's ICC profile or EXIF block;
 * empty or oversized blocks are ignored.  Returns 0, or -1 when out of
 * memory.  */
int       io_set_icc       (Image *img, const void *data, size_t len);
int       io_set_exif      (Image *img, const void *data, size_t len);

#endif /* BM3D_IO_CODEC_H */
