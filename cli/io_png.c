/* BM3D Denoise — PNG files (libpng).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Written fast by default (--png-level 1): the Average filter on every
 * row and zlib's run-length strategy, which BENCHMARKS.md ("Files and
 * batches") measured on a denoised 12 MP photo as 12 times faster than
 * libpng's defaults (level 6, adaptive filters) and 6 % smaller.  Levels
 * 2..9 are zlib's levels with libpng's adaptive filters; 0 stores.  The
 * ICC profile (iCCP) and the EXIF block (eXIf) are kept.  */
#include "config.h"

#include "io_codec.h"

#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBPNG
#include <png.h>
#include <zlib.h>

/* Rows are handed to zlib in IDAT chunks of this size (libpng's default
 * is 8 KiB, one chunk header and CRC each).  */
#define PNG_IDAT_BYTES ((size_t) 1 << 20)

/* The largest chunk but IDAT read, and the most a compressed chunk may
 * inflate to: a metadata block over IMAGE_MAX_METADATA is dropped
 * anyway, with a margin for compression headers.  */
#define PNG_MAX_CHUNK (IMAGE_MAX_METADATA + ((size_t) 1 << 20))

/* Everything a PNG call owns, reachable after libpng's longjmp.  */
typedef struct
{
  const char    *path;
  char          *error;
  size_t         error_len;
  FILE          *fp;
  png_structp    png;
  png_infop      info;
  unsigned char *pixels;
  png_bytep     *rows;
  int            icc_dropped;   /* libpng left the iCCP chunk out      */
} PngContext;

static void
png_on_error (png_structp png, png_const_charp message)
{
  PngContext *ctx = png_get_error_ptr (png);

  /* libpng says "Read Error" for a short file: name the real cause.  */
  if (ctx->fp && feof (ctx->fp))
    io_set_error (ctx->error, ctx->error_len, "%s: truncated PNG file (%s)",
                  ctx->path, message);
  else
    io_set_error (ctx->error, ctx->error_len, "%s: %s", ctx->path, message);
  png_longjmp (png, 1);
}

static void
png_on_warning (png_structp png, png_const_charp message)
{
  PngContext *ctx = png_get_error_ptr (png);

  /* A chunk over PNG_MAX_CHUNK: libpng would skip it by reading all it
   * claims (2 GB for a 57-byte file); refused instead.  */
  if (strstr (message, "chunk data is too large"))
    png_error (png, message);
  /* Other warnings (odd chunks, sRGB profile quirks) do not stop a
   * read; a profile left out is said (libpng names the chunk first:
   * "exceeds application limits" before 1.6.4x, "length exceeds libpng
   * limit" or "profile too long" after).  */
  if (strncmp (message, "iCCP", 4) == 0
      && (strstr (message, "limit") || strstr (message, "too long")))
    ctx->icc_dropped = 1;
}

/* The ICC profile and the EXIF block, when present and valid.  */
static int
png_get_metadata (PngContext *ctx, Image *img)
{
  png_charp name;
  png_bytep profile, exif;
  png_uint_32 profile_len, exif_len;
  int compression;

  if (png_get_iCCP (ctx->png, ctx->info, &name, &compression, &profile,
                    &profile_len) == PNG_INFO_iCCP
      && io_set_icc (img, profile, profile_len) < 0)
    return -1;
  if (ctx->icc_dropped && !img->meta.icc_len)
    img->meta.icc_dropped = 1;
  if (png_get_eXIf_1 (ctx->png, ctx->info, &exif_len, &exif) == PNG_INFO_eXIf
      && io_set_exif (img, exif, exif_len) < 0)
    return -1;
  return 0;
}

/* The part of the read that libpng may leave by longjmp.  */
static int
png_read_pixels (PngContext *ctx, FILE *fp, Image *img)
{
  png_uint_32 width, height;
  int bit_depth, colour_type, channels, depth;
  size_t row_bytes, row_values;

  if (setjmp (png_jmpbuf (ctx->png)))
    return -1;

  png_init_io (ctx->png, fp);
  png_set_user_limits (ctx->png, IMAGE_MAX_SIDE, IMAGE_MAX_SIDE);
  /* No chunk but IDAT may claim more than PNG_MAX_CHUNK: a 57-byte file
   * whose text chunk claims 2 GB is refused at once, not allocated.  */
  png_set_chunk_malloc_max (ctx->png, PNG_MAX_CHUNK);
  png_read_info (ctx->png, ctx->info);
  png_get_IHDR (ctx->png, ctx->info, &width, &height, &bit_depth,
                &colour_type, NULL, NULL, NULL);
  if (io_check_size (ctx->path, (long) width, (long) height, 1, ctx->error,
                     ctx->error_len) < 0)
    return -1;

  /* Palette and 1/2/4-bit gray become 8-bit samples; transparency
   * chunks become a real alpha channel.  */
  if (colour_type == PNG_COLOR_TYPE_PALETTE)
    png_set_palette_to_rgb (ctx->png);
  if (colour_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8)
    png_set_expand_gray_1_2_4_to_8 (ctx->png);
  if (png_get_valid (ctx->png, ctx->info, PNG_INFO_tRNS))
    png_set_tRNS_to_alpha (ctx->png);
  png_set_interlace_handling (ctx->png);
  png_read_update_info (ctx->png, ctx->info);

  channels = png_get_channels (ctx->png, ctx->info);
  depth = png_get_bit_depth (ctx->png, ctx->info) == 16 ? 16 : 8;
  row_bytes = png_get_rowbytes (ctx->png, ctx->info);
  if (channels < 1 || channels > 4
      || row_bytes != (size_t) width * channels * (depth / 8))
    {
      io_set_error (ctx->error, ctx->error_len, "%s: unsupported PNG layout",
                    ctx->path);
      return -1;
    }
  ctx->pixels = malloc (row_bytes * height);
  ctx->rows = malloc (height * sizeof *ctx->rows);
  if (!ctx->pixels || !ctx->rows
      || image_alloc (img, (int) width, (int) height, channels,
                      channels == 2 || channels == 4, depth, ctx->error,
                      ctx->error_len) < 0)
    {
      io_set_error (ctx->error, ctx->error_len, "%s: out of memory",
                    ctx->path);
      return -1;
    }
  for (png_uint_32 y = 0; y < height; y++)
    ctx->rows[y] = ctx->pixels + y * row_bytes;
  png_read_image (ctx->png, ctx->rows);
  png_read_end (ctx->png, ctx->info);

  row_values = (size_t) width * channels;
  for (png_uint_32 y = 0; y < height; y++)
    {
      float *dst = img->data + y * row_values;

      if (depth == 16)
        io_row_from_be16 (ctx->rows[y], dst, row_values);
      else
        io_row_from_u8 (ctx->rows[y], dst, row_values);
    }
  if (png_get_metadata (ctx, img) < 0)
    {
      io_set_error (ctx->error, ctx->error_len, "%s: out of memory",
                    ctx->path);
      return -1;
    }
  return 0;
}

static int
read_png (const char *path, FILE *fp, Image *img, char *error,
          size_t error_len)
{
  PngContext ctx = { path, error, error_len, fp, NULL, NULL, NULL, NULL,
                     0 };
  unsigned char signature[8];
  int status;

  if (fread (signature, 1, sizeof signature, fp) != sizeof signature
      || png_sig_cmp (signature, 0, sizeof signature) != 0)
    {
      io_set_error (error, error_len, "%s: not a PNG file", path);
      return -1;
    }
  ctx.png = png_create_read_struct (PNG_LIBPNG_VER_STRING, &ctx,
                                    png_on_error, png_on_warning);
  if (ctx.png)
    ctx.info = png_create_info_struct (ctx.png);
  if (!ctx.png || !ctx.info)
    {
      png_destroy_read_struct (&ctx.png, NULL, NULL);
      io_set_error (error, error_len, "%s: out of memory", path);
      return -1;
    }
  png_set_sig_bytes (ctx.png, sizeof signature);
  status = png_read_pixels (&ctx, fp, img);
  png_destroy_read_struct (&ctx.png, &ctx.info, NULL);
  free (ctx.pixels);
  free (ctx.rows);
  return status;
}

/* The part of the write that libpng may leave by longjmp.  */
static int
png_write_pixels (PngContext *ctx, FILE *fp, const Image *img,
                  const ImageWriteOptions *options)
{
  static const int colour_types[] = { PNG_COLOR_TYPE_GRAY,
                                      PNG_COLOR_TYPE_GRAY_ALPHA,
                                      PNG_COLOR_TYPE_RGB,
                                      PNG_COLOR_TYPE_RGB_ALPHA };
  size_t row_values = (size_t) img->width * img->channels;
  int depth = options->depth;

  if (setjmp (png_jmpbuf (ctx->png)))
    return -1;

  ctx->pixels = malloc (row_values * (depth / 8));
  if (!ctx->pixels)
    {
      io_set_error (ctx->error, ctx->error_len, "%s: out of memory",
                    ctx->path);
      return -1;
    }
  png_init_io (ctx->png, fp);
  png_set_compression_buffer_size (ctx->png, PNG_IDAT_BYTES);
  if (options->png_level == 0)
    {
      png_set_compression_level (ctx->png, 0);
      png_set_filter (ctx->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    }
  else if (options->png_level == 1)
    {
      /* Run-length matches only, after the Average filter.  */
      png_set_compression_level (ctx->png, 1);
      png_set_compression_strategy (ctx->png, Z_RLE);
      png_set_filter (ctx->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_AVG);
    }
  else
    {
      png_set_compression_level (ctx->png, options->png_level);
      png_set_filter (ctx->png, PNG_FILTER_TYPE_BASE, PNG_ALL_FILTERS);
    }
  /* A profile libpng finds wrong for the image is left out with a
   * warning rather than failing the write.  */
  png_set_benign_errors (ctx->png, 1);
  png_set_IHDR (ctx->png, ctx->info, img->width, img->height, depth,
                colour_types[img->channels - 1], PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (img->meta.icc_len)
    png_set_iCCP (ctx->png, ctx->info, "ICC profile",
                  PNG_COMPRESSION_TYPE_BASE, img->meta.icc,
                  (png_uint_32) img->meta.icc_len);
  if (img->meta.exif_len)
    png_set_eXIf_1 (ctx->png, ctx->info, (png_uint_32) img->meta.exif_len,
                    img->meta.exif);
  png_write_info (ctx->png, ctx->info);
  for (int y = 0; y < img->height; y++)
    {
      const float *src = img->data + (size_t) y * row_values;

      if (depth == 16)
        io_row_to_be16 (src, ctx->pixels, row_values);
      else
        io_row_to_u8 (src, ctx->pixels, row_values);
      png_write_row (ctx->png, ctx->pixels);
      if (io_cancelled (options))
        {
          io_set_error (ctx->error, ctx->error_len, "%s: interrupted",
                        ctx->path);
          return -1;
        }
    }
  png_write_end (ctx->png, NULL);
  return 0;
}

static int
write_png (const char *path, FILE *fp, const Image *img,
           const ImageWriteOptions *options, char *error, size_t error_len)
{
  PngContext ctx = { path, error, error_len, NULL, NULL, NULL, NULL, NULL,
                     0 };
  int colour = io_colour (img);
  int status;

  if ((colour != 1 && colour != 3) || img->channels > 4)
    {
      io_set_error (error, error_len, "%s: cannot store %d channels", path,
                    img->channels);
      return -1;
    }
  ctx.png = png_create_write_struct (PNG_LIBPNG_VER_STRING, &ctx,
                                     png_on_error, png_on_warning);
  if (ctx.png)
    ctx.info = png_create_info_struct (ctx.png);
  if (!ctx.png || !ctx.info)
    {
      png_destroy_write_struct (&ctx.png, NULL);
      io_set_error (error, error_len, "%s: out of memory", path);
      return -1;
    }
  status = png_write_pixels (&ctx, fp, img, options);
  png_destroy_write_struct (&ctx.png, &ctx.info);
  free (ctx.pixels);
  return status;
}

const ImageCodec image_codec_png =
{
  IMAGE_FORMAT_PNG, "PNG", "png", "libpng " PNG_LIBPNG_VER_STRING
  ", zlib " ZLIB_VERSION, 1, IMAGE_DEPTHS (1, 1, 0), read_png, write_png
};

#else /* !HAVE_LIBPNG */

const ImageCodec image_codec_png =
{
  IMAGE_FORMAT_PNG, "PNG", "png", NULL, 1, IMAGE_DEPTHS (1, 1, 0), NULL,
  NULL
};

#endif /* HAVE_LIBPNG */
