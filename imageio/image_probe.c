/* BM3D Denoise — an image file's size from its header alone.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The command asks before it reads a photo whether the photo is small
 * enough to denoise on the CPU sooner than the GPU could start
 * (bm3d_backend_for_job): a few hundred bytes of the file tell, where
 * decoding it takes as long as the decision is meant to save.  Only
 * the header is parsed and nothing is allocated by its numbers; the
 * read (image_read) still checks the whole file.  */
#include "config.h"

#include "io_codec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_LIBTIFF
#include <tiffio.h>
#endif

/* Bytes read for the PNG, PNM and PFM headers: PNG's IHDR is within the
 * first 33; a Netpbm header with comments may run longer, and one that
 * does not end within this many bytes is not probed.  */
#define PROBE_HEAD_BYTES 4096

/* JPEG: the markers passed over looking for the frame header before
 * giving up (a camera file has about ten before it).  */
#define PROBE_JPEG_MARKERS 256

static unsigned
be16 (const unsigned char *b)
{
  return (unsigned) b[0] << 8 | b[1];
}

static unsigned long
be32 (const unsigned char *b)
{
  return (unsigned long) b[0] << 24 | (unsigned long) b[1] << 16
         | (unsigned long) b[2] << 8 | b[3];
}

static int
probe_done (const char *path, ImageProbe *probe, long width, long height,
            int channels, char *error, size_t error_len)
{
  if (io_check_size (path, width, height, channels, error, error_len) < 0)
    return -1;
  probe->width = (int) width;
  probe->height = (int) height;
  probe->colour_channels = channels <= 2 ? 1 : 3;
  return 0;
}

static int
truncated (const char *path, char *error, size_t error_len)
{
  io_set_error (error, error_len, "%s: truncated or malformed header", path);
  return -1;
}

/* ---- PNG: the IHDR chunk, first after the signature ------------------- */

static int
probe_png (const char *path, const unsigned char *head, size_t n,
           ImageProbe *probe, char *error, size_t error_len)
{
  static const unsigned char signature[8] =
    { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  /* Samples per pixel by colour type (a palette expands to RGB).  */
  static const int channels_of[7] = { 1, 0, 3, 3, 2, 0, 4 };
  unsigned type;

  if (n < 8 || memcmp (head, signature, 8) != 0)
    {
      io_set_error (error, error_len, "%s: not a PNG file", path);
      return -1;
    }
  if (n < 26 || be32 (head + 8) != 13 || memcmp (head + 12, "IHDR", 4) != 0)
    return truncated (path, error, error_len);
  type = head[25];
  if (type > 6 || channels_of[type] == 0)
    return truncated (path, error, error_len);
  return probe_done (path, probe, (long) be32 (head + 16),
                     (long) be32 (head + 20), channels_of[type], error,
                     error_len);
}

/* ---- Netpbm P5/P6 and PFM: text headers -------------------------------- */

/* The next decimal field of a Netpbm or PFM header at *pos, past white
 * space and (Netpbm) comments.  Returns -1 for none.  */
static long
header_number (const unsigned char *head, size_t n, size_t *pos,
               int comments)
{
  size_t i = *pos;
  long v = 0;
  int digits = 0;

  for (;;)
    {
      while (i < n && strchr (" \t\n\r\v\f", head[i]) && head[i])
        i++;
      if (i < n && comments && head[i] == '#')
        {
          while (i < n && head[i] != '\n' && head[i] != '\r')
            i++;
          continue;
        }
      break;
    }
  while (i < n && head[i] >= '0' && head[i] <= '9' && digits < 9)
    {
      v = v * 10 + (head[i++] - '0');
      digits++;
    }
  /* A number must end in white space within the bytes read.  */
  if (digits == 0 || i >= n || !strchr (" \t\n\r\v\f", head[i])
      || !head[i])
    return -1;
  *pos = i;
  return v;
}

static int
probe_netpbm (const char *path, const unsigned char *head, size_t n,
              int pfm, ImageProbe *probe, char *error, size_t error_len)
{
  size_t pos = 2;
  long width, height;
  int channels;

  if (n < 2 || head[0] != 'P'
      || (pfm ? head[1] != 'F' && head[1] != 'f'
              : head[1] != '5' && head[1] != '6'))
    {
      io_set_error (error, error_len, pfm ? "%s: not a PFM file"
                    : "%s: not a binary PGM/PPM file", path);
      return -1;
    }
  channels = head[1] == '5' || head[1] == 'f' ? 1 : 3;
  width = header_number (head, n, &pos, !pfm);
  height = width < 0 ? -1 : header_number (head, n, &pos, !pfm);
  if (height < 0)
    return truncated (path, error, error_len);
  return probe_done (path, probe, width, height, channels, error,
                     error_len);
}

/* ---- JPEG: the frame header (SOFn), found marker by marker ------------- */

/* Is `marker` a start of frame (SOF0..SOF15 but DHT, JPG and DAC)?  */
static int
is_frame_marker (int marker)
{
  return marker >= 0xc0 && marker <= 0xcf && marker != 0xc4
         && marker != 0xc8 && marker != 0xcc;
}

/* The next marker's code, past any fill bytes; -1 at the end.  */
static int
next_marker (FILE *fp)
{
  int c = getc (fp);

  if (c != 0xff)
    return -1;
  while ((c = getc (fp)) == 0xff)
    ;
  return c == EOF ? -1 : c;
}

static int
probe_jpeg (const char *path, FILE *fp, ImageProbe *probe, char *error,
            size_t error_len)
{
  unsigned char b[6];
  int marker;

  if (getc (fp) != 0xff || getc (fp) != 0xd8)
    {
      io_set_error (error, error_len, "%s: not a JPEG file", path);
      return -1;
    }
  for (int i = 0; i < PROBE_JPEG_MARKERS; i++)
    {
      unsigned length;

      marker = next_marker (fp);
      if (marker < 0 || marker == 0xd9 || marker == 0xda)
        break;
      /* Restart markers and TEM stand alone.  */
      if ((marker >= 0xd0 && marker <= 0xd7) || marker == 0x01)
        continue;
      if (fread (b, 1, 2, fp) != 2 || (length = be16 (b)) < 2)
        break;
      if (is_frame_marker (marker))
        {
          /* Precision, height, width, components.  A height of 0 comes
           * later in a DNL marker: not probed.  */
          if (length < 8 || fread (b, 1, 6, fp) != 6 || be16 (b + 1) == 0)
            break;
          return probe_done (path, probe, (long) be16 (b + 3),
                             (long) be16 (b + 1), b[5], error, error_len);
        }
      if (fseek (fp, (long) length - 2, SEEK_CUR) != 0)
        break;
    }
  return truncated (path, error, error_len);
}

/* ---- TIFF: the first directory, through libtiff ------------------------ */

#ifdef HAVE_LIBTIFF
#if TIFFLIB_VERSION >= 20221213
/* libtiff's messages are not the probe's: the read says what is wrong.  */
static int
tiff_quiet (TIFF *tif, void *data, const char *module, const char *format,
            va_list args)
{
  (void) tif, (void) data, (void) module, (void) format, (void) args;
  return 1;
}

static int
probe_tiff (const char *path, int fd, ImageProbe *probe, char *error,
            size_t error_len)
{
  TIFFOpenOptions *opts = TIFFOpenOptionsAlloc ();
  TIFF *tif = NULL;
  uint32_t width = 0, height = 0;
  uint16_t samples = 1, extra = 0, *extra_types;
  int result = -1;

  if (opts)
    {
      TIFFOpenOptionsSetErrorHandlerExtR (opts, tiff_quiet, NULL);
      TIFFOpenOptionsSetWarningHandlerExtR (opts, tiff_quiet, NULL);
      /* "m": read, not mapped: only the first directory is wanted.
       * The descriptor is libtiff's from here, closed with it.  */
      tif = TIFFFdOpenExt (fd, path, "rm", opts);
      TIFFOpenOptionsFree (opts);
    }
  if (!tif)
    {
      close (fd);
      io_set_error (error, error_len, "%s: not a readable TIFF file", path);
      return -1;
    }
  if (TIFFGetField (tif, TIFFTAG_IMAGEWIDTH, &width) == 1
      && TIFFGetField (tif, TIFFTAG_IMAGELENGTH, &height) == 1)
    {
      TIFFGetFieldDefaulted (tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
      TIFFGetFieldDefaulted (tif, TIFFTAG_EXTRASAMPLES, &extra,
                             &extra_types);
      result = probe_done (path, probe, (long) width, (long) height,
                           samples > extra ? samples - extra : 1, error,
                           error_len);
    }
  else
    truncated (path, error, error_len);
  TIFFClose (tif);
  return result;
}
#else
/* Older libtiff reports through process-wide handlers only, which the
 * reader owns: no probe, the command then simply reads the file.  */
static int
probe_tiff (const char *path, int fd, ImageProbe *probe, char *error,
            size_t error_len)
{
  (void) probe;
  close (fd);
  io_set_error (error, error_len, "%s: TIFF headers are not probed with "
                "this libtiff", path);
  return -1;
}
#endif
#endif

/* ---- the entry point ---------------------------------------------------- */

/* A descriptor of `path` when it is a regular file, else -1: a FIFO or a
 * device could block the probe (the read then says what it is).  The
 * open itself does not wait.  */
static int
open_regular_file (const char *path, char *error, size_t error_len)
{
  struct stat st;
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

  if (fd < 0)
    {
      io_set_error (error, error_len, "%s: %s", path, strerror (errno));
      return -1;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)
      || fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK) != 0)
    {
      io_set_error (error, error_len, "%s: not a regular file", path);
      close (fd);
      return -1;
    }
  return fd;
}

static int
probe_stream (const char *path, ImageFormat format, FILE *fp,
              ImageProbe *probe, char *error, size_t error_len)
{
  unsigned char head[PROBE_HEAD_BYTES];
  size_t n;

  if (format == IMAGE_FORMAT_JPEG)
    return probe_jpeg (path, fp, probe, error, error_len);
  n = fread (head, 1, sizeof head, fp);
  if (format == IMAGE_FORMAT_PNG)
    return probe_png (path, head, n, probe, error, error_len);
  return probe_netpbm (path, head, n, format == IMAGE_FORMAT_PFM, probe,
                       error, error_len);
}

int
image_probe (const char *path, ImageProbe *probe, char *error,
             size_t error_len)
{
  ImageFormat format = image_format_for_path (path);
  FILE *fp;
  int fd, result;

  memset (probe, 0, sizeof *probe);
  probe->format = format;
  /* The extension's format must be built in (TIFF among them).  */
  if (image_check_path (path, error, error_len) < 0
      || (fd = open_regular_file (path, error, error_len)) < 0)
    return -1;
#ifdef HAVE_LIBTIFF
  if (format == IMAGE_FORMAT_TIFF)
    return probe_tiff (path, fd, probe, error, error_len);
#endif
  if (!(fp = fdopen (fd, "rb")))
    {
      io_set_error (error, error_len, "%s: %s", path, strerror (errno));
      close (fd);
      return -1;
    }
  result = probe_stream (path, format, fp, probe, error, error_len);
  fclose (fp);
  return result;
}
