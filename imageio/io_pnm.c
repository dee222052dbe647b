/* BM3D Denoise — Netpbm (binary P5/P6) and Portable Float Map files.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Both are written a row at a time; neither holds alpha or metadata.  */
#include "config.h"

#include "io_codec.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- headers ------------------------------------------------------------ */

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

/* The writers store 1 or 3 colour channels.  */
static int
check_colour (const char *path, const Image *img, char *error,
              size_t error_len)
{
  int colour = io_colour (img);

  if (colour != 1 && colour != 3)
    {
      io_set_error (error, error_len, "%s: cannot store %d colour channels",
                    path, colour);
      return -1;
    }
  return 0;
}

static int
write_failed (const char *path, char *error, size_t error_len)
{
  io_set_error (error, error_len, "%s: write failed: %s", path,
                strerror (errno ? errno : EIO));
  return -1;
}

static int
interrupted (const char *path, char *error, size_t error_len)
{
  io_set_error (error, error_len, "%s: interrupted", path);
  return -1;
}

/* ---- Netpbm ------------------------------------------------------------- */

static int
read_pnm_data (const char *path, FILE *fp, Image *img, unsigned maxval,
               char *error, size_t error_len)
{
  int bytes = maxval > 255 ? 2 : 1;
  size_t row_values = (size_t) img->width * img->channels;
  unsigned char *row = io_alloc (path, row_values * bytes, error, error_len);

  if (!row)
    return -1;
  for (int y = 0; y < img->height; y++)
    {
      float *dst = img->data + (size_t) y * row_values;

      if (fread (row, bytes, row_values, fp) != row_values)
        {
          io_set_error (error, error_len, "%s: truncated image data (row %d "
                        "of %d)", path, y + 1, img->height);
          free (row);
          return -1;
        }
      for (size_t i = 0; i < row_values; i++)
        {
          unsigned s = bytes == 2 ? (unsigned) row[2 * i] << 8 | row[2 * i + 1]
                                  : row[i];

          if (s > maxval)
            {
              io_set_error (error, error_len, "%s: sample %u exceeds maxval "
                            "%u", path, s, maxval);
              free (row);
              return -1;
            }
          dst[i] = io_from_int (s, maxval);
        }
    }
  free (row);
  return 0;
}

/* A file of maxval 255 or 65535 into its integers: every sample is in
 * range by its size alone.  */
static int
read_pnm_native (const char *path, FILE *fp, Image *img, char *error,
                 size_t error_len)
{
  size_t row_values = (size_t) img->width * img->channels;
  int bytes = img->samples == IMAGE_SAMPLES_U16 ? 2 : 1;
  unsigned char *row = NULL;

  if (bytes == 2 && !(row = io_alloc (path, row_values * 2, error,
                                      error_len)))
    return -1;
  for (int y = 0; y < img->height; y++)
    {
      size_t first = (size_t) y * row_values;
      unsigned char *dst = bytes == 2 ? row
                           : (unsigned char *) img->pixels + first;

      if (fread (dst, bytes, row_values, fp) != row_values)
        {
          io_set_error (error, error_len, "%s: truncated image data (row %d "
                        "of %d)", path, y + 1, img->height);
          free (row);
          return -1;
        }
      if (bytes == 2)
        io_row_be16_to_u16 (row, (uint16_t *) img->pixels + first,
                            row_values);
    }
  free (row);
  return 0;
}

static int
read_pnm (const char *path, FILE *fp, Image *img, int native, char *error,
          size_t error_len)
{
  char magic[3] = { 0 };
  long width, height, maxval;
  int channels;

  if (fread (magic, 1, 2, fp) != 2 || magic[0] != 'P')
    {
      io_set_error (error, error_len, "%s: not a PGM/PPM file", path);
      return -1;
    }
  if (magic[1] == '5')
    channels = 1;
  else if (magic[1] == '6')
    channels = 3;
  else if (magic[1] >= '1' && magic[1] <= '4')
    {
      io_set_error (error, error_len, "%s: Netpbm type P%c is not supported "
                    "(only binary P5 and P6)", path, magic[1]);
      return -1;
    }
  else
    {
      io_set_error (error, error_len, "%s: not a PGM/PPM file", path);
      return -1;
    }
  if (read_count (fp, &width, 1) < 0 || read_count (fp, &height, 1) < 0
      || read_count (fp, &maxval, 1) < 0)
    {
      io_set_error (error, error_len, "%s: malformed or truncated header",
                    path);
      return -1;
    }
  if (maxval < 1 || maxval > 65535)
    {
      io_set_error (error, error_len, "%s: maxval %ld is out of range "
                    "(1..65535)", path, maxval);
      return -1;
    }
  /* Other maxvals scale their samples: floats.  */
  native = native && (maxval == 255 || maxval == 65535);
  if (io_check_size (path, width, height, channels, error, error_len) < 0
      || image_alloc_samples (img, (int) width, (int) height, channels, 0,
                              maxval > 255 ? 16 : 8,
                              !native ? IMAGE_SAMPLES_FLOAT
                              : maxval > 255 ? IMAGE_SAMPLES_U16
                              : IMAGE_SAMPLES_U8, error, error_len) < 0)
    return -1;
  if (native)
    return read_pnm_native (path, fp, img, error, error_len);
  return read_pnm_data (path, fp, img, (unsigned) maxval, error, error_len);
}

/* The colour samples of an integer image's row starting at value
 * `first`, as the file stores them (16 bits big-endian), into `row`.  */
static void
pnm_row_from_integers (const Image *img, size_t first, int colour,
                       unsigned char *row)
{
  for (int x = 0; x < img->width; x++)
    {
      size_t from = first + (size_t) x * img->channels;
      size_t to = (size_t) x * colour;

      for (int c = 0; c < colour; c++)
        if (img->samples == IMAGE_SAMPLES_U8)
          row[to + c] = ((const uint8_t *) img->pixels)[from + c];
        else
          io_row_u16_to_be16 ((const uint16_t *) img->pixels + from + c,
                              row + 2 * (to + c), 1);
    }
}

static int
write_pnm (const char *path, FILE *fp, const Image *img,
           const ImageWriteOptions *options, char *error, size_t error_len)
{
  int colour = io_colour (img);
  int bytes = options->depth == 16 ? 2 : 1;
  size_t row_values = (size_t) img->width * colour;
  float *samples;
  unsigned char *row;
  int status = 0;

  if (check_colour (path, img, error, error_len) < 0)
    return -1;
  row = io_alloc (path, row_values * bytes, error, error_len);
  samples = io_alloc (path, row_values * sizeof *samples, error, error_len);
  if (!row || !samples)
    {
      free (row);
      free (samples);
      return -1;
    }
  fprintf (fp, "P%c\n%d %d\n%d\n", colour == 1 ? '5' : '6', img->width,
           img->height, bytes == 2 ? 65535 : 255);
  for (int y = 0; y < img->height && status == 0; y++)
    {
      size_t first = (size_t) y * img->width * img->channels;
      const float *src;

      if (img->samples != IMAGE_SAMPLES_FLOAT)
        {
          pnm_row_from_integers (img, first, colour, row);
          if (fwrite (row, bytes, row_values, fp) != row_values)
            status = write_failed (path, error, error_len);
          else if (io_cancelled (options))
            status = interrupted (path, error, error_len);
          continue;
        }
      src = img->data + first;
      for (int x = 0; x < img->width; x++)
        memcpy (samples + (size_t) x * colour,
                src + (size_t) x * img->channels, colour * sizeof (float));
      if (bytes == 2)
        io_row_to_be16 (samples, row, row_values);
      else
        io_row_to_u8 (samples, row, row_values);
      if (fwrite (row, bytes, row_values, fp) != row_values)
        status = write_failed (path, error, error_len);
      else if (io_cancelled (options))
        status = interrupted (path, error, error_len);
    }
  free (row);
  free (samples);
  return status;
}

const ImageCodec image_codec_pnm =
{
  IMAGE_FORMAT_PNM, "PGM/PPM", "pgm ppm pnm", NULL, 0,
  IMAGE_DEPTHS (1, 1, 0), read_pnm, write_pnm, 1
};

/* ---- PFM ---------------------------------------------------------------- */

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
  unsigned char *row = io_alloc (path, row_values * 4, error, error_len);

  if (!row)
    return -1;
  /* The format stores the bottom row first.  */
  for (int y = img->height - 1; y >= 0; y--)
    {
      float *dst = img->data + (size_t) y * row_values;

      if (fread (row, 4, row_values, fp) != row_values)
        {
          io_set_error (error, error_len, "%s: truncated image data (row %d "
                        "of %d)", path, img->height - y, img->height);
          free (row);
          return -1;
        }
      for (size_t i = 0; i < row_values; i++)
        {
          float f = float_from_bytes (row + 4 * i, little);

          if (!isfinite (f))
            {
              io_set_error (error, error_len, "%s: contains NaN or infinite "
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
read_pfm (const char *path, FILE *fp, Image *img, int native, char *error,
          size_t error_len)
{
  char magic[3] = { 0 };
  char token[64];
  char *end;
  long width, height;
  double scale;
  int channels;

  (void) native;  /* PFM holds floats */

  if (fread (magic, 1, 2, fp) != 2 || magic[0] != 'P'
      || (magic[1] != 'F' && magic[1] != 'f'))
    {
      io_set_error (error, error_len, "%s: not a PFM file", path);
      return -1;
    }
  channels = magic[1] == 'F' ? 3 : 1;
  if (read_count (fp, &width, 0) < 0 || read_count (fp, &height, 0) < 0
      || read_token (fp, token, sizeof token, 0) < 0)
    {
      io_set_error (error, error_len, "%s: malformed or truncated header",
                    path);
      return -1;
    }
  errno = 0;
  scale = strtod (token, &end);
  if (*end || errno || !isfinite (scale) || scale == 0.0)
    {
      io_set_error (error, error_len, "%s: invalid scale \"%s\" in the "
                    "header", path, token);
      return -1;
    }
  if (io_check_size (path, width, height, channels, error, error_len) < 0
      || image_alloc (img, (int) width, (int) height, channels, 0, 32, error,
                      error_len) < 0)
    return -1;
  return read_pfm_data (path, fp, img, scale < 0.0, error, error_len);
}

static int
write_pfm (const char *path, FILE *fp, const Image *img,
           const ImageWriteOptions *options, char *error, size_t error_len)
{
  int colour = io_colour (img);
  size_t row_values = (size_t) img->width * colour;
  float *row;
  int status = 0;

  if (check_colour (path, img, error, error_len) < 0)
    return -1;
  row = io_alloc (path, row_values * sizeof (float), error, error_len);
  if (!row)
    return -1;
  /* Native byte order, announced by the sign of the scale.  */
  fprintf (fp, "P%c\n%d %d\n%s\n", colour == 1 ? 'f' : 'F', img->width,
           img->height, host_is_little_endian () ? "-1.0" : "1.0");
  for (int y = img->height - 1; y >= 0 && status == 0; y--)
    {
      const float *src = img->data + (size_t) y * img->width * img->channels;
      float *p = row;

      for (int x = 0; x < img->width; x++, src += img->channels)
        for (int c = 0; c < colour; c++)
          *p++ = (float) (src[c] / 255.0);
      if (fwrite (row, sizeof (float), row_values, fp) != row_values)
        status = write_failed (path, error, error_len);
      else if (io_cancelled (options))
        status = interrupted (path, error, error_len);
    }
  free (row);
  return status;
}

const ImageCodec image_codec_pfm =
{
  IMAGE_FORMAT_PFM, "PFM", "pfm", NULL, 0,
  IMAGE_DEPTHS (0, 0, 1), read_pfm, write_pfm, 0
};
