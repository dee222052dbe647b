/* BM3D Denoise — image files for the command line: PNG, Netpbm, PFM.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Every reader treats the file as hostile: sizes are checked before any
 * allocation, short reads and malformed headers become error messages.  */
#include "config.h"

#include "image_io.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_LIBPNG
#include <png.h>
#endif

static void
set_error (char *error, size_t error_len, const char *format, ...)
  __attribute__ ((format (printf, 3, 4)));

static void
set_error (char *error, size_t error_len, const char *format, ...)
{
  va_list args;

  if (!error || !error_len)
    return;
  va_start (args, format);
  vsnprintf (error, error_len, format, args);
  va_end (args);
}

/* ---- formats --------------------------------------------------------- */

ImageFormat
image_format_for_path (const char *path)
{
  const char *dot = strrchr (path, '.');
  const char *slash = strrchr (path, '/');

  if (!dot || (slash && dot < slash))
    return IMAGE_FORMAT_UNKNOWN;
  dot++;
  if (strcasecmp (dot, "png") == 0)
    return IMAGE_FORMAT_PNG;
  if (strcasecmp (dot, "pgm") == 0 || strcasecmp (dot, "ppm") == 0
      || strcasecmp (dot, "pnm") == 0)
    return IMAGE_FORMAT_PNM;
  if (strcasecmp (dot, "pfm") == 0)
    return IMAGE_FORMAT_PFM;
  return IMAGE_FORMAT_UNKNOWN;
}

const char *
image_format_name (ImageFormat format)
{
  switch (format)
    {
    case IMAGE_FORMAT_PNG: return "PNG";
    case IMAGE_FORMAT_PNM: return "PGM/PPM";
    case IMAGE_FORMAT_PFM: return "PFM";
    default:               return "unknown";
    }
}

int
image_format_supported (ImageFormat format)
{
  switch (format)
    {
    case IMAGE_FORMAT_PNG:
#ifdef HAVE_LIBPNG
      return 1;
#else
      return 0;
#endif
    case IMAGE_FORMAT_PNM:
    case IMAGE_FORMAT_PFM:
      return 1;
    default:
      return 0;
    }
}

int
image_format_has_alpha (ImageFormat format)
{
  return format == IMAGE_FORMAT_PNG;
}

/* Explains why `format` cannot be used for `path`.  */
static int
check_format (const char *path, ImageFormat format, char *error,
              size_t error_len)
{
  if (format == IMAGE_FORMAT_UNKNOWN)
    {
      set_error (error, error_len, "%s: unknown image format (expected a "
                 ".png, .pgm, .ppm, .pnm or .pfm file name)", path);
      return -1;
    }
  if (!image_format_supported (format))
    {
      set_error (error, error_len, "%s: PNG support is not built in "
                 "(libpng was not found at configure time); use .pgm, "
                 ".ppm or .pfm", path);
      return -1;
    }
  return 0;
}

/* ---- memory ---------------------------------------------------------- */

static int
check_size (const char *path, long width, long height, int channels,
            char *error, size_t error_len)
{
  if (width <= 0 || height <= 0)
    {
      set_error (error, error_len, "%s: image has no pixels (%ldx%ld)",
                 path, width, height);
      return -1;
    }
  if (width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE
      || (size_t) width * (size_t) height > IMAGE_MAX_PIXELS)
    {
      set_error (error, error_len, "%s: image size %ldx%ld is too large "
                 "(at most %zu pixels, %d per side)", path, width, height,
                 IMAGE_MAX_PIXELS, IMAGE_MAX_SIDE);
      return -1;
    }
  if (channels < 1 || channels > 4)
    {
      set_error (error, error_len, "%s: %d channels are not supported",
                 path, channels);
      return -1;
    }
  return 0;
}

int
image_alloc (Image *img, int width, int height, int channels,
             int has_alpha, int depth, char *error, size_t error_len)
{
  memset (img, 0, sizeof *img);
  if (check_size ("image", width, height, channels, error, error_len) < 0)
    return -1;
  img->data = calloc ((size_t) width * height * channels, sizeof (float));
  if (!img->data)
    {
      set_error (error, error_len, "out of memory for a %dx%d image",
                 width, height);
      return -1;
    }
  img->width = width;
  img->height = height;
  img->channels = channels;
  img->has_alpha = has_alpha;
  img->depth = depth;
  return 0;
}

void
image_free (Image *img)
{
  if (!img)
    return;
  free (img->data);
  memset (img, 0, sizeof *img);
}

static size_t
image_samples (const Image *img)
{
  return (size_t) img->width * img->height * img->channels;
}

/* ---- sample conversion ----------------------------------------------- */

static double
clamp255 (double v)
{
  /* NaN compares false everywhere: send it to 0 rather than to UB.  */
  if (!(v > 0.0))
    return 0.0;
  return v < 255.0 ? v : 255.0;
}

static unsigned
to_int_sample (float v, int depth)
{
  if (depth == 16)
    return (unsigned) floor (clamp255 (v) * (65535.0 / 255.0) + 0.5);
  return (unsigned) floor (clamp255 (v) + 0.5);
}

static float
from_int_sample (unsigned s, unsigned maxval)
{
  return (float) (s * 255.0 / maxval);
}

void
image_quantize (Image *img, ImageFormat format, int depth)
{
  size_t n = image_samples (img);
  unsigned maxval = depth == 16 ? 65535 : 255;

  if (format == IMAGE_FORMAT_PFM)
    return;
  for (size_t i = 0; i < n; i++)
    img->data[i] = from_int_sample (to_int_sample (img->data[i], depth),
                                    maxval);
}

/* ---- output files ---------------------------------------------------- */

static FILE *
open_output (const char *path, char *error, size_t error_len)
{
  FILE *fp = fopen (path, "wb");

  if (!fp)
    set_error (error, error_len, "%s: cannot create: %s", path,
               strerror (errno));
  return fp;
}

/* Closes `fp`; when anything failed, the partial file is removed.  */
static int
close_output (const char *path, FILE *fp, int failed, char *error,
              size_t error_len)
{
  int err = 0;

  if (!failed && ferror (fp))
    {
      failed = 1;
      err = errno;
    }
  if (fclose (fp) != 0 && !failed)
    {
      failed = 1;
      err = errno;
    }
  if (failed)
    {
      if (err)
        set_error (error, error_len, "%s: write failed: %s", path,
                   strerror (err));
      unlink (path);
      return -1;
    }
  return 0;
}

/* ---- rows of samples -------------------------------------------------- */

/* A row buffer of the Netpbm and PFM readers and writers.  */
static void *
alloc_row (const char *path, size_t bytes, char *error, size_t error_len)
{
  void *row = malloc (bytes);

  if (!row)
    set_error (error, error_len, "%s: out of memory", path);
  return row;
}

/* Netpbm and PNG store 16-bit samples big-endian.  */
static unsigned
get_sample (const unsigned char *row, size_t i, int bytes)
{
  return bytes == 2 ? (unsigned) row[2 * i] << 8 | row[2 * i + 1] : row[i];
}

static unsigned char *
put_sample (unsigned char *p, unsigned s, int bytes)
{
  if (bytes == 2)
    *p++ = (unsigned char) (s >> 8);
  *p++ = (unsigned char) s;
  return p;
}

/* The Netpbm and PFM writers store 1 or 3 colour channels, a row at a
 * time: checks the channel count, then returns a row buffer of
 * `row_bytes` and the created file in *fp, or NULL with the error set.  */
static void *
open_row_output (const char *path, int colour, size_t row_bytes, FILE **fp,
                 char *error, size_t error_len)
{
  void *row;

  if (colour != 1 && colour != 3)
    {
      set_error (error, error_len, "%s: cannot store %d colour channels",
                 path, colour);
      return NULL;
    }
  row = alloc_row (path, row_bytes, error, error_len);
  if (!row)
    return NULL;
  *fp = open_output (path, error, error_len);
  if (!*fp)
    {
      free (row);
      return NULL;
    }
  return row;
}

/* The end of those writers: frees the row and closes the file, which
 * is removed when a write failed.  */
static int
close_row_output (const char *path, FILE *fp, void *row, int failed,
                  char *error, size_t error_len)
{
  free (row);
  if (failed)
    set_error (error, error_len, "%s: write failed: %s", path,
               strerror (errno));
  return close_output (path, fp, failed, error, error_len);
}

/* ---- Netpbm (P5, P6) and PFM headers ---------------------------------- */

static int
skip_space_and_comments (FILE *fp, int allow_comments)
{
  int c;

  for (;;)
    {
      c = getc (fp);
      if (c == '#' && allow_comments)
        {
          while (c != '\n' && c != '\r' && c != EOF)
            c = getc (fp);
          continue;
        }
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v'
          || c == '\f')
        continue;
      return c;
    }
}

/* Reads one header token (at most len - 1 characters) after optional
 * white space.  Returns 0, or -1 at end of file or for an over-long
 * token.  */
static int
read_token (FILE *fp, char *token, size_t len, int allow_comments)
{
  size_t n = 0;
  int c = skip_space_and_comments (fp, allow_comments);

  while (c != EOF && c != ' ' && c != '\t' && c != '\n' && c != '\r'
         && c != '\v' && c != '\f' && !(c == '#' && allow_comments))
    {
      if (n + 1 >= len)
        return -1;
      token[n++] = (char) c;
      c = getc (fp);
    }
  token[n] = '\0';
  if (n == 0)
    return -1;
  /* The single white-space character ending the last header field is
   * part of the header: consuming it here leaves the file at the data.
   * A comment right after a number is put back for the next token.  */
  if (c == '#')
    ungetc (c, fp);
  return 0;
}

/* A non-negative decimal integer of at most 9 digits.  */
static int
parse_count (const char *token, long *value)
{
  long v = 0;

  if (!*token || strlen (token) > 9)
    return -1;
  for (const char *p = token; *p; p++)
    {
      if (*p < '0' || *p > '9')
        return -1;
      v = v * 10 + (*p - '0');
    }
  *value = v;
  return 0;
}

static int
read_count (FILE *fp, long *value, int allow_comments)
{
  char token[32];

  if (read_token (fp, token, sizeof token, allow_comments) < 0)
    return -1;
  return parse_count (token, value);
}

/* ---- Netpbm ---------------------------------------------------------- */

static int
read_pnm_data (const char *path, FILE *fp, Image *img, unsigned maxval,
               char *error, size_t error_len)
{
  int bytes = maxval > 255 ? 2 : 1;
  size_t row_values = (size_t) img->width * img->channels;
  unsigned char *row = alloc_row (path, row_values * bytes, error,
                                  error_len);

  if (!row)
    return -1;
  for (int y = 0; y < img->height; y++)
    {
      float *dst = img->data + (size_t) y * row_values;

      if (fread (row, bytes, row_values, fp) != row_values)
        {
          set_error (error, error_len, "%s: truncated image data (row %d of "
                     "%d)", path, y + 1, img->height);
          free (row);
          return -1;
        }
      for (size_t i = 0; i < row_values; i++)
        {
          unsigned s = get_sample (row, i, bytes);

          if (s > maxval)
            {
              set_error (error, error_len, "%s: sample %u exceeds maxval %u",
                         path, s, maxval);
              free (row);
              return -1;
            }
          dst[i] = from_int_sample (s, maxval);
        }
    }
  free (row);
  return 0;
}

static int
read_pnm (const char *path, FILE *fp, Image *img, char *error,
          size_t error_len)
{
  char magic[3] = { 0 };
  long width, height, maxval;
  int channels;

  if (fread (magic, 1, 2, fp) != 2 || magic[0] != 'P')
    {
      set_error (error, error_len, "%s: not a PGM/PPM file", path);
      return -1;
    }
  if (magic[1] == '5')
    channels = 1;
  else if (magic[1] == '6')
    channels = 3;
  else if (magic[1] >= '1' && magic[1] <= '4')
    {
      set_error (error, error_len, "%s: Netpbm type P%c is not supported "
                 "(only binary P5 and P6)", path, magic[1]);
      return -1;
    }
  else
    {
      set_error (error, error_len, "%s: not a PGM/PPM file", path);
      return -1;
    }
  if (read_count (fp, &width, 1) < 0 || read_count (fp, &height, 1) < 0
      || read_count (fp, &maxval, 1) < 0)
    {
      set_error (error, error_len, "%s: malformed or truncated header", path);
      return -1;
    }
  if (maxval < 1 || maxval > 65535)
    {
      set_error (error, error_len, "%s: maxval %ld is out of range (1..65535)",
                 path, maxval);
      return -1;
    }
  if (check_size (path, width, height, channels, error, error_len) < 0)
    return -1;
  if (image_alloc (img, (int) width, (int) height, channels, 0,
                   maxval > 255 ? 16 : 8, error, error_len) < 0)
    return -1;
  if (read_pnm_data (path, fp, img, (unsigned) maxval, error, error_len) < 0)
    {
      image_free (img);
      return -1;
    }
  return 0;
}

static int
write_pnm (const char *path, const Image *img, int depth, char *error,
           size_t error_len)
{
  int colour = img->channels - (img->has_alpha ? 1 : 0);
  int bytes = depth == 16 ? 2 : 1;
  size_t row_len = (size_t) img->width * colour * bytes;
  unsigned char *row;
  FILE *fp;
  int failed = 0;

  row = open_row_output (path, colour, row_len, &fp, error, error_len);
  if (!row)
    return -1;
  fprintf (fp, "P%c\n%d %d\n%d\n", colour == 1 ? '5' : '6', img->width,
           img->height, depth == 16 ? 65535 : 255);
  for (int y = 0; y < img->height && !failed; y++)
    {
      const float *src = img->data + (size_t) y * img->width * img->channels;
      unsigned char *p = row;

      for (int x = 0; x < img->width; x++, src += img->channels)
        for (int c = 0; c < colour; c++)
          p = put_sample (p, to_int_sample (src[c], depth), bytes);
      failed = fwrite (row, 1, row_len, fp) != row_len;
    }
  return close_row_output (path, fp, row, failed, error, error_len);
}

/* ---- PFM ------------------------------------------------------------- */

static int
host_is_little_endian (void)
{
  const uint32_t one = 1;

  return *(const unsigned char *) &one == 1;
}

static float
float_from_bytes (const unsigned char *b, int little)
{
  uint32_t u;
  float f;

  if (little)
    u = (uint32_t) b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16
        | (uint32_t) b[3] << 24;
  else
    u = (uint32_t) b[3] | (uint32_t) b[2] << 8 | (uint32_t) b[1] << 16
        | (uint32_t) b[0] << 24;
  memcpy (&f, &u, sizeof f);
  return f;
}

static int
read_pfm_data (const char *path, FILE *fp, Image *img, int little,
               char *error, size_t error_len)
{
  size_t row_values = (size_t) img->width * img->channels;
  unsigned char *row = alloc_row (path, row_values * 4, error, error_len);

  if (!row)
    return -1;
  /* The format stores the bottom row first.  */
  for (int y = img->height - 1; y >= 0; y--)
    {
      float *dst = img->data + (size_t) y * row_values;

      if (fread (row, 4, row_values, fp) != row_values)
        {
          set_error (error, error_len, "%s: truncated image data (row %d of "
                     "%d)", path, img->height - y, img->height);
          free (row);
          return -1;
        }
      for (size_t i = 0; i < row_values; i++)
        {
          float f = float_from_bytes (row + 4 * i, little);

          if (!isfinite (f))
            {
              set_error (error, error_len, "%s: contains NaN or infinite "
                         "samples", path);
              free (row);
              return -1;
            }
          dst[i] = (float) (f * 255.0);
        }
    }
  free (row);
  return 0;
}

static int
read_pfm (const char *path, FILE *fp, Image *img, char *error,
          size_t error_len)
{
  char magic[3] = { 0 };
  char token[64];
  char *end;
  long width, height;
  double scale;
  int channels;

  if (fread (magic, 1, 2, fp) != 2 || magic[0] != 'P'
      || (magic[1] != 'F' && magic[1] != 'f'))
    {
      set_error (error, error_len, "%s: not a PFM file", path);
      return -1;
    }
  channels = magic[1] == 'F' ? 3 : 1;
  if (read_count (fp, &width, 0) < 0 || read_count (fp, &height, 0) < 0
      || read_token (fp, token, sizeof token, 0) < 0)
    {
      set_error (error, error_len, "%s: malformed or truncated header", path);
      return -1;
    }
  errno = 0;
  scale = strtod (token, &end);
  if (*end || errno || !isfinite (scale) || scale == 0.0)
    {
      set_error (error, error_len, "%s: invalid scale \"%s\" in the header",
                 path, token);
      return -1;
    }
  if (check_size (path, width, height, channels, error, error_len) < 0)
    return -1;
  if (image_alloc (img, (int) width, (int) height, channels, 0, 32, error,
                   error_len) < 0)
    return -1;
  if (read_pfm_data (path, fp, img, scale < 0.0, error, error_len) < 0)
    {
      image_free (img);
      return -1;
    }
  return 0;
}

static int
write_pfm (const char *path, const Image *img, char *error,
           size_t error_len)
{
  int colour = img->channels - (img->has_alpha ? 1 : 0);
  size_t row_values = (size_t) img->width * colour;
  float *row;
  FILE *fp;
  int failed = 0;

  row = open_row_output (path, colour, row_values * sizeof (float), &fp,
                         error, error_len);
  if (!row)
    return -1;
  /* Native byte order, announced by the sign of the scale.  */
  fprintf (fp, "P%c\n%d %d\n%s\n", colour == 1 ? 'f' : 'F', img->width,
           img->height, host_is_little_endian () ? "-1.0" : "1.0");
  for (int y = img->height - 1; y >= 0 && !failed; y--)
    {
      const float *src = img->data + (size_t) y * img->width * img->channels;
      float *p = row;

      for (int x = 0; x < img->width; x++, src += img->channels)
        for (int c = 0; c < colour; c++)
          *p++ = (float) (src[c] / 255.0);
      failed = fwrite (row, sizeof (float), row_values, fp) != row_values;
    }
  return close_row_output (path, fp, row, failed, error, error_len);
}

/* ---- PNG ------------------------------------------------------------- */

#ifdef HAVE_LIBPNG

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
} PngContext;

static void
png_on_error (png_structp png, png_const_charp message)
{
  PngContext *ctx = png_get_error_ptr (png);

  /* libpng says "Read Error" for a short file: name the real cause.  */
  if (ctx->fp && feof (ctx->fp))
    set_error (ctx->error, ctx->error_len, "%s: truncated PNG file (%s)",
               ctx->path, message);
  else
    set_error (ctx->error, ctx->error_len, "%s: %s", ctx->path, message);
  png_longjmp (png, 1);
}

static void
png_on_warning (png_structp png, png_const_charp message)
{
  /* Warnings (odd chunks, sRGB profile quirks) do not stop a read.  */
  (void) png;
  (void) message;
}

static void
png_fill_image (PngContext *ctx, Image *img, int depth)
{
  size_t row_values = (size_t) img->width * img->channels;
  unsigned maxval = depth == 16 ? 65535 : 255;

  for (int y = 0; y < img->height; y++)
    {
      const unsigned char *src = ctx->rows[y];
      float *dst = img->data + (size_t) y * row_values;

      for (size_t i = 0; i < row_values; i++)
        dst[i] = from_int_sample (get_sample (src, i, depth / 8), maxval);
    }
}

/* The part of the read that libpng may leave by longjmp.  */
static int
png_read_pixels (PngContext *ctx, FILE *fp, Image *img)
{
  png_uint_32 width, height;
  int bit_depth, colour_type, channels, depth;
  size_t row_bytes;

  if (setjmp (png_jmpbuf (ctx->png)))
    return -1;

  png_init_io (ctx->png, fp);
  png_set_user_limits (ctx->png, IMAGE_MAX_SIDE, IMAGE_MAX_SIDE);
  png_read_info (ctx->png, ctx->info);
  png_get_IHDR (ctx->png, ctx->info, &width, &height, &bit_depth,
                &colour_type, NULL, NULL, NULL);
  if (check_size (ctx->path, (long) width, (long) height, 1, ctx->error,
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
      set_error (ctx->error, ctx->error_len, "%s: unsupported PNG layout",
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
      set_error (ctx->error, ctx->error_len, "%s: out of memory", ctx->path);
      return -1;
    }
  for (png_uint_32 y = 0; y < height; y++)
    ctx->rows[y] = ctx->pixels + y * row_bytes;
  png_read_image (ctx->png, ctx->rows);
  png_read_end (ctx->png, NULL);
  png_fill_image (ctx, img, depth);
  return 0;
}

static int
read_png (const char *path, FILE *fp, Image *img, char *error,
          size_t error_len)
{
  PngContext ctx = { path, error, error_len, fp, NULL, NULL, NULL, NULL };
  unsigned char signature[8];
  int status;

  if (fread (signature, 1, sizeof signature, fp) != sizeof signature
      || png_sig_cmp (signature, 0, sizeof signature) != 0)
    {
      set_error (error, error_len, "%s: not a PNG file", path);
      return -1;
    }
  ctx.png = png_create_read_struct (PNG_LIBPNG_VER_STRING, &ctx,
                                    png_on_error, png_on_warning);
  if (ctx.png)
    ctx.info = png_create_info_struct (ctx.png);
  if (!ctx.png || !ctx.info)
    {
      png_destroy_read_struct (&ctx.png, NULL, NULL);
      set_error (error, error_len, "%s: out of memory", path);
      return -1;
    }
  png_set_sig_bytes (ctx.png, sizeof signature);
  status = png_read_pixels (&ctx, fp, img);
  png_destroy_read_struct (&ctx.png, &ctx.info, NULL);
  free (ctx.pixels);
  free (ctx.rows);
  if (status < 0)
    image_free (img);
  return status;
}

/* The part of the write that libpng may leave by longjmp.  */
static int
png_write_pixels (PngContext *ctx, FILE *fp, const Image *img, int depth)
{
  static const int colour_types[] = { PNG_COLOR_TYPE_GRAY,
                                      PNG_COLOR_TYPE_GRAY_ALPHA,
                                      PNG_COLOR_TYPE_RGB,
                                      PNG_COLOR_TYPE_RGB_ALPHA };
  size_t row_values = (size_t) img->width * img->channels;
  int bytes = depth == 16 ? 2 : 1;

  if (setjmp (png_jmpbuf (ctx->png)))
    return -1;

  ctx->pixels = malloc (row_values * bytes);
  if (!ctx->pixels)
    {
      set_error (ctx->error, ctx->error_len, "%s: out of memory", ctx->path);
      return -1;
    }
  png_init_io (ctx->png, fp);
  png_set_IHDR (ctx->png, ctx->info, img->width, img->height, depth,
                colour_types[img->channels - 1], PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info (ctx->png, ctx->info);
  for (int y = 0; y < img->height; y++)
    {
      const float *src = img->data + (size_t) y * row_values;
      unsigned char *p = ctx->pixels;

      for (size_t i = 0; i < row_values; i++)
        p = put_sample (p, to_int_sample (src[i], depth), bytes);
      png_write_row (ctx->png, ctx->pixels);
    }
  png_write_end (ctx->png, NULL);
  return 0;
}

static int
write_png (const char *path, const Image *img, int depth, char *error,
           size_t error_len)
{
  PngContext ctx = { path, error, error_len, NULL, NULL, NULL, NULL, NULL };
  int colour = img->channels - (img->has_alpha ? 1 : 0);
  FILE *fp;
  int status;

  if ((colour != 1 && colour != 3) || img->channels > 4)
    {
      set_error (error, error_len, "%s: cannot store %d channels", path,
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
      set_error (error, error_len, "%s: out of memory", path);
      return -1;
    }
  fp = open_output (path, error, error_len);
  if (!fp)
    {
      png_destroy_write_struct (&ctx.png, &ctx.info);
      return -1;
    }
  status = png_write_pixels (&ctx, fp, img, depth);
  png_destroy_write_struct (&ctx.png, &ctx.info);
  free (ctx.pixels);
  return close_output (path, fp, status < 0, error, error_len);
}

#else /* !HAVE_LIBPNG */

static int
read_png (const char *path, FILE *fp, Image *img, char *error,
          size_t error_len)
{
  (void) fp;
  (void) img;
  return check_format (path, IMAGE_FORMAT_PNG, error, error_len);
}

static int
write_png (const char *path, const Image *img, int depth, char *error,
           size_t error_len)
{
  (void) img;
  (void) depth;
  return check_format (path, IMAGE_FORMAT_PNG, error, error_len);
}

#endif /* HAVE_LIBPNG */

/* ---- entry points ---------------------------------------------------- */

int
image_read (const char *path, Image *img, char *error, size_t error_len)
{
  ImageFormat format = image_format_for_path (path);
  struct stat st;
  FILE *fp;
  int status;

  memset (img, 0, sizeof *img);
  if (check_format (path, format, error, error_len) < 0)
    return -1;
  fp = fopen (path, "rb");
  if (!fp)
    {
      set_error (error, error_len, "%s: cannot open: %s", path,
                 strerror (errno));
      return -1;
    }
  if (fstat (fileno (fp), &st) == 0 && S_ISDIR (st.st_mode))
    {
      set_error (error, error_len, "%s: cannot open: %s", path,
                 strerror (EISDIR));
      fclose (fp);
      return -1;
    }
  switch (format)
    {
    case IMAGE_FORMAT_PNG:
      status = read_png (path, fp, img, error, error_len);
      break;
    case IMAGE_FORMAT_PNM:
      status = read_pnm (path, fp, img, error, error_len);
      break;
    default:
      status = read_pfm (path, fp, img, error, error_len);
      break;
    }
  if (status == 0 && ferror (fp))
    {
      set_error (error, error_len, "%s: read error: %s", path,
                 strerror (errno));
      image_free (img);
      status = -1;
    }
  fclose (fp);
  return status;
}

int
image_write (const char *path, const Image *img, int depth, char *error,
             size_t error_len)
{
  ImageFormat format = image_format_for_path (path);

  if (check_format (path, format, error, error_len) < 0)
    return -1;
  if (!img || !img->data || img->width < 1 || img->height < 1)
    {
      set_error (error, error_len, "%s: nothing to write", path);
      return -1;
    }
  if (depth != 8 && depth != 16)
    depth = 8;
  switch (format)
    {
    case IMAGE_FORMAT_PNG:
      return write_png (path, img, depth, error, error_len);
    case IMAGE_FORMAT_PNM:
      return write_pnm (path, img, depth, error, error_len);
    default:
      return write_pfm (path, img, error, error_len);
    }
}
