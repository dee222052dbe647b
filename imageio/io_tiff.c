/* BM3D Denoise — TIFF files (libtiff).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Read: 8/16-bit unsigned integer and 32-bit float samples, gray
 * (min-is-black or min-is-white) or RGB, with or without one extra
 * sample taken as alpha (premultiplied alpha is divided out), in strips
 * or tiles, contiguous or planar, with any compression libtiff was built
 * with; YCbCr JPEG-in-TIFF is decoded to RGB by libtiff.  Every other
 * layout (palette, bilevel, 2/4/12-bit, CMYK, Lab ...) goes through
 * libtiff's RGBA interface as 8-bit RGB(A).  Only the first image of a
 * multi-page file is read.
 *
 * Written: gray or RGB, alpha as unassociated alpha, 8 or 16 bits or
 * 32-bit float, Deflate at --png-level with the horizontal (integer) or
 * floating-point predictor, strips of about 1 MiB.  The ICC profile
 * (tag 34675) is kept, and so is EXIF: read into the image's EXIF block
 * (the file's Make, Model and other descriptive tags, its orientation,
 * and its EXIF directory, entry by entry), and written back as those
 * tags and an EXIF directory appended after libtiff closed the file.
 *
 * libtiff reports through handlers that print to stderr by default: ours
 * keep the first error in the call's context (the client data of every
 * TIFF opened here) and drop warnings.  The file goes through the FILE
 * image_io.c opened, never memory-mapped.  */
#include "config.h"

#include "io_codec.h"
#include "io_exif.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef HAVE_LIBTIFF
#include <tiffio.h>

/* No single allocation of libtiff's (strip tables, decoding buffers)
 * larger than this: a hostile header stays an error, not a giant
 * allocation.  */
#define TIFF_MAX_ALLOC  ((tmsize_t) 1 << 30)
/* Strips (or tiles) we read or write are at most this large.  */
#define TIFF_MAX_CHUNK  ((tmsize_t) 256 << 20)
#define TIFF_STRIP_BYTES ((size_t) 1 << 20)

typedef struct
{
  FILE        *fp;
  int          writing;
  const char  *path;
  char        *error;
  size_t       error_len;
  int          failed;          /* libtiff reported an error            */
} TiffIo;

/* ---- libtiff's access to our FILE -------------------------------------- */

static tmsize_t
tiff_read_proc (thandle_t h, void *buf, tmsize_t size)
{
  TiffIo *io = h;

  return (tmsize_t) fread (buf, 1, (size_t) size, io->fp);
}

static tmsize_t
tiff_write_proc (thandle_t h, void *buf, tmsize_t size)
{
  TiffIo *io = h;

  return (tmsize_t) fwrite (buf, 1, (size_t) size, io->fp);
}

static toff_t
tiff_seek_proc (thandle_t h, toff_t offset, int whence)
{
  TiffIo *io = h;

  if (offset > (toff_t) INT64_MAX
      || fseeko (io->fp, (off_t) offset, whence) != 0)
    return (toff_t) -1;
  return (toff_t) ftello (io->fp);
}

static int
tiff_close_proc (thandle_t h)
{
  /* image_io.c closes the file.  */
  (void) h;
  return 0;
}

static toff_t
tiff_size_proc (thandle_t h)
{
  TiffIo *io = h;
  struct stat st;

  if (io->writing)
    fflush (io->fp);
  if (fstat (fileno (io->fp), &st) != 0)
    return 0;
  return (toff_t) st.st_size;
}

static int
tiff_map_proc (thandle_t h, void **base, toff_t *size)
{
  (void) h;
  (void) base;
  (void) size;
  return 0;
}

static void
tiff_unmap_proc (thandle_t h, void *base, toff_t size)
{
  (void) h;
  (void) base;
  (void) size;
}

/* ---- messages ----------------------------------------------------------- */

static void
tiff_on_error (thandle_t h, const char *module, const char *format,
               va_list args)
{
  TiffIo *io = h;
  char text[256];

  if (!io)
    return;
  if (!io->failed)
    {
      size_t len = strlen (io->path);
      const char *p = text;

      vsnprintf (text, sizeof text, format, args);
      /* Many messages start with the file name already.  */
      if (strncmp (p, io->path, len) == 0 && p[len] == ':' && p[len + 1])
        p += len + 2;
      (void) module;
      io_set_error (io->error, io->error_len, "%s: %s", io->path, p);
    }
  io->failed = 1;
}

static void
tiff_on_warning (thandle_t h, const char *module, const char *format,
                 va_list args)
{
  (void) h;
  (void) module;
  (void) format;
  (void) args;
}

static pthread_once_t handlers_once = PTHREAD_ONCE_INIT;

static void
install_handlers (void)
{
  TIFFSetErrorHandler (NULL);
  TIFFSetWarningHandler (NULL);
  TIFFSetErrorHandlerExt (tiff_on_error);
  TIFFSetWarningHandlerExt (tiff_on_warning);
}

static TIFF *
tiff_open (TiffIo *io, const char *mode)
{
  TIFF *tif;

  pthread_once (&handlers_once, install_handlers);
#if TIFFLIB_VERSION >= 20221213
  {
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc ();

    if (!opts)
      return NULL;
    TIFFOpenOptionsSetMaxSingleMemAlloc (opts, TIFF_MAX_ALLOC);
    tif = TIFFClientOpenExt (io->path, mode, (thandle_t) io, tiff_read_proc,
                             tiff_write_proc, tiff_seek_proc,
                             tiff_close_proc, tiff_size_proc, tiff_map_proc,
                             tiff_unmap_proc, opts);
    TIFFOpenOptionsFree (opts);
  }
#else
  tif = TIFFClientOpen (io->path, mode, (thandle_t) io, tiff_read_proc,
                        tiff_write_proc, tiff_seek_proc, tiff_close_proc,
                        tiff_size_proc, tiff_map_proc, tiff_unmap_proc);
#endif
  return tif;
}

/* The error of a failed call: libtiff's own message when it gave one.  */
static int
tiff_fail (TiffIo *io, const char *what)
{
  if (!io->failed)
    io_set_error (io->error, io->error_len, "%s: %s", io->path, what);
  io->failed = 1;
  return -1;
}

/* ---- reading: the common layouts ---------------------------------------- */

typedef struct
{
  uint32_t  width, height;
  uint16_t  spp, bps, format, photometric, planar;
  int       colour;            /* 1 or 3                                */
  int       alpha;             /* the extra sample is alpha             */
  int       associated;        /* ... premultiplied                     */
  int       invert;            /* min-is-white                          */
} TiffLayout;

/* Is the file one of the layouts read sample by sample?  */
static int
tiff_layout_direct (const TiffLayout *l)
{
  if (l->colour == 0 || l->spp < l->colour || l->spp > l->colour + 1)
    return 0;
  if ((l->bps == 8 || l->bps == 16)
      && (l->format == SAMPLEFORMAT_UINT || l->format == SAMPLEFORMAT_VOID))
    return 1;
  return l->bps == 32 && l->format == SAMPLEFORMAT_IEEEFP;
}

/* One sample of a decoded strip or tile, on the 0..255 scale.  */
static float
tiff_sample (const TiffLayout *l, const unsigned char *p)
{
  float v;

  if (l->bps == 8)
    v = io_from_int (*p, 255);
  else if (l->bps == 16)
    {
      uint16_t s;

      memcpy (&s, p, sizeof s);
      v = io_from_int (s, 65535);
    }
  else
    {
      float f;

      memcpy (&f, p, sizeof f);
      v = (float) (f * 255.0);
    }
  return v;
}

/* tiff_put_chunk () for an image that keeps the file's integers (of
 * the file's size, in the machine's order: libtiff turned them).  */
static void
tiff_put_chunk_integers (const TiffLayout *l, Image *img,
                         const unsigned char *buf, size_t row_bytes,
                         uint32_t x0, uint32_t y0, uint32_t cw, uint32_t ch,
                         int plane)
{
  size_t bytes = l->bps / 8;
  int per_pixel = l->planar == PLANARCONFIG_CONTIG ? l->spp : 1;
  int first = l->planar == PLANARCONFIG_CONTIG ? 0 : plane;
  int count = l->planar == PLANARCONFIG_CONTIG ? l->spp : 1;
  unsigned char *pixels = img->pixels;

  for (uint32_t y = 0; y < ch && y0 + y < l->height; y++)
    {
      const unsigned char *src = buf + y * row_bytes;
      unsigned char *dst = pixels + ((size_t) (y0 + y) * img->width + x0)
                                    * img->channels * bytes;

      for (uint32_t x = 0; x < cw && x0 + x < l->width; x++)
        for (int s = 0; s < count; s++)
          memcpy (dst + ((size_t) x * img->channels + first + s) * bytes,
                  src + ((size_t) x * per_pixel + s) * bytes, bytes);
    }
}

/* Copies a decoded chunk (strip or tile) at (x0, y0), `cw` x `ch`
 * pixels with rows `row_bytes` apart, into the image: all samples when
 * contiguous, sample `plane` alone when planar.  */
static void
tiff_put_chunk (const TiffLayout *l, Image *img, const unsigned char *buf,
                size_t row_bytes, uint32_t x0, uint32_t y0, uint32_t cw,
                uint32_t ch, int plane)
{
  size_t bytes = l->bps / 8;
  int per_pixel = l->planar == PLANARCONFIG_CONTIG ? l->spp : 1;
  int first = l->planar == PLANARCONFIG_CONTIG ? 0 : plane;
  int count = l->planar == PLANARCONFIG_CONTIG ? l->spp : 1;

  if (img->samples != IMAGE_SAMPLES_FLOAT)
    {
      tiff_put_chunk_integers (l, img, buf, row_bytes, x0, y0, cw, ch,
                               plane);
      return;
    }
  for (uint32_t y = 0; y < ch && y0 + y < l->height; y++)
    {
      const unsigned char *src = buf + y * row_bytes;
      float *dst = img->data + ((size_t) (y0 + y) * img->width + x0)
                               * img->channels;

      for (uint32_t x = 0; x < cw && x0 + x < l->width; x++)
        for (int s = 0; s < count; s++)
          dst[(size_t) x * img->channels + first + s]
            = tiff_sample (l, src + ((size_t) x * per_pixel + s) * bytes);
    }
}

static int
tiff_read_chunks (TiffIo *io, TIFF *tif, const TiffLayout *l, Image *img)
{
  int planes = l->planar == PLANARCONFIG_CONTIG ? 1 : l->spp;
  size_t pixel_bytes = (size_t) (l->planar == PLANARCONFIG_CONTIG
                                 ? l->spp : 1) * (l->bps / 8);
  uint32_t cw, ch;
  tmsize_t size;
  unsigned char *buf;
  int tiled = TIFFIsTiled (tif);

  if (tiled)
    {
      if (!TIFFGetField (tif, TIFFTAG_TILEWIDTH, &cw)
          || !TIFFGetField (tif, TIFFTAG_TILELENGTH, &ch) || cw == 0
          || ch == 0 || cw > IMAGE_MAX_SIDE || ch > IMAGE_MAX_SIDE)
        return tiff_fail (io, "invalid tile size");
      size = TIFFTileSize (tif);
    }
  else
    {
      uint32_t rps = 0;

      if (!TIFFGetFieldDefaulted (tif, TIFFTAG_ROWSPERSTRIP, &rps)
          || rps == 0 || rps > l->height)
        rps = l->height;
      cw = l->width;
      ch = rps;
      size = TIFFStripSize (tif);
    }
  if (size <= 0 || size > TIFF_MAX_CHUNK
      || (size_t) size < (size_t) cw * ch * pixel_bytes)
    return tiff_fail (io, "unsupported strip or tile size");
  buf = malloc ((size_t) size);
  if (!buf)
    return tiff_fail (io, "out of memory");

  for (int p = 0; p < planes; p++)
    for (uint32_t y0 = 0; y0 < l->height; y0 += ch)
      for (uint32_t x0 = 0; x0 < l->width; x0 += cw)
        {
          tmsize_t got;

          if (tiled)
            got = TIFFReadEncodedTile (tif, TIFFComputeTile (tif, x0, y0, 0,
                                                             (uint16_t) p),
                                       buf, size);
          else
            got = TIFFReadEncodedStrip (tif, TIFFComputeStrip (tif, y0,
                                                               (uint16_t) p),
                                        buf, size);
          if (got < 0 || io->failed)
            {
              free (buf);
              return tiff_fail (io, "damaged or truncated image data");
            }
          /* A short last strip holds only the rows that remain.  */
          if (!tiled)
            {
              uint32_t rows = l->height - y0 < ch ? l->height - y0 : ch;

              if ((size_t) got < (size_t) rows * cw * pixel_bytes)
                {
                  free (buf);
                  return tiff_fail (io, "truncated image data");
                }
            }
          tiff_put_chunk (l, img, buf, (size_t) cw * pixel_bytes, x0, y0, cw,
                          ch, p);
        }
  free (buf);
  return 0;
}

/* Min-is-white, non-finite floats, premultiplied alpha.  */
static int
tiff_finish_samples (TiffIo *io, const TiffLayout *l, Image *img)
{
  size_t pixels = (size_t) img->width * img->height;

  /* Integers come only without premultiplied alpha.  */
  if (img->samples != IMAGE_SAMPLES_FLOAT)
    {
      for (size_t i = 0; l->invert && i < pixels; i++)
        if (img->samples == IMAGE_SAMPLES_U8)
          {
            uint8_t *px = (uint8_t *) img->pixels + i * img->channels;

            px[0] = (uint8_t) (255 - px[0]);
          }
        else
          {
            uint16_t *px = (uint16_t *) img->pixels + i * img->channels;

            px[0] = (uint16_t) (65535 - px[0]);
          }
      return 0;
    }

  for (size_t i = 0; i < pixels; i++)
    {
      float *px = img->data + i * img->channels;

      for (int c = 0; c < img->channels; c++)
        if (!isfinite (px[c]))
          return tiff_fail (io, "contains NaN or infinite samples");
      if (l->invert)
        px[0] = 255.0f - px[0];
      if (l->associated && img->has_alpha)
        {
          float a = px[img->channels - 1];

          if (a > 0.0f)
            for (int c = 0; c < l->colour; c++)
              px[c] = px[c] * 255.0f / a;
        }
    }
  return 0;
}

/* ---- reading: anything else, as 8-bit RGBA ------------------------------ */

static int
tiff_read_rgba (TiffIo *io, TIFF *tif, const TiffLayout *l, Image *img)
{
  char why[1024] = "";
  uint32_t *raster;
  size_t pixels = (size_t) l->width * l->height;
  int channels = l->spp > l->colour && l->colour ? 4 : 3;

  if (!TIFFRGBAImageOK (tif, why))
    {
      io_set_error (io->error, io->error_len, "%s: unsupported TIFF layout "
                    "(%s)", io->path, why[0] ? why : "unknown");
      io->failed = 1;
      return -1;
    }
  if (image_alloc (img, (int) l->width, (int) l->height, channels,
                   channels == 4, 8, io->error, io->error_len) < 0)
    return -1;
  raster = malloc (pixels * sizeof *raster);
  if (!raster)
    return tiff_fail (io, "out of memory");
  if (!TIFFReadRGBAImageOriented (tif, l->width, l->height, raster,
                                  ORIENTATION_TOPLEFT, 0) || io->failed)
    {
      free (raster);
      return tiff_fail (io, "damaged or truncated image data");
    }
  for (size_t i = 0; i < pixels; i++)
    {
      float *px = img->data + i * channels;

      px[0] = io_from_int (TIFFGetR (raster[i]), 255);
      px[1] = io_from_int (TIFFGetG (raster[i]), 255);
      px[2] = io_from_int (TIFFGetB (raster[i]), 255);
      if (channels == 4)
        px[3] = io_from_int (TIFFGetA (raster[i]), 255);
    }
  free (raster);
  return 0;
}

/* ---- EXIF ------------------------------------------------------------- */

/* The file's descriptive tags that EXIF keeps in its IFD0.  */
static const uint16_t exif_text_tags[] = { TIFFTAG_IMAGEDESCRIPTION,
                                           TIFFTAG_MAKE, TIFFTAG_MODEL,
                                           TIFFTAG_DATETIME, TIFFTAG_ARTIST,
                                           TIFFTAG_COPYRIGHT };

#define N_TEXT_TAGS (sizeof exif_text_tags / sizeof exif_text_tags[0])

static int
tiff_read_at (void *source, uint64_t offset, void *buf, size_t n)
{
  TiffIo *io = source;

  if (offset > (uint64_t) INT64_MAX
      || fseeko (io->fp, (off_t) offset, SEEK_SET) != 0
      || fread (buf, 1, n, io->fp) != n)
    return -1;
  return 0;
}

/* The EXIF block of the file: its descriptive tags (and orientation,
 * when the pixels were read as stored) and its EXIF directory.  Damaged
 * EXIF is dropped, not an error.  */
static int
tiff_get_exif (TiffIo *io, TIFF *tif, Image *img, int with_orientation)
{
  ExifIfd *ifd0 = calloc (1, sizeof *ifd0);
  ExifIfd *exif = calloc (1, sizeof *exif);
  int big = TIFFIsBigEndian (tif);
  unsigned char *block = NULL;
  size_t len = 0;
  uint16_t orientation;
  uint64_t offset;
  int status = -1;

  if (!ifd0 || !exif)
    goto done;
  ifd0->big = exif->big = big;
  for (size_t i = 0; i < N_TEXT_TAGS; i++)
    {
      char *text = NULL;

      if (TIFFGetField (tif, exif_text_tags[i], &text) && text
          && strlen (text) < 65536)
        exif_ifd_add (ifd0, exif_text_tags[i], 2,
                      (uint32_t) strlen (text) + 1, text, strlen (text) + 1);
    }
  if (with_orientation && TIFFGetField (tif, TIFFTAG_ORIENTATION,
                                        &orientation)
      && orientation > 1 && orientation <= 8)
    {
      unsigned char v[2] = { (unsigned char) (big ? 0 : orientation),
                             (unsigned char) (big ? orientation : 0) };

      exif_ifd_add (ifd0, TIFFTAG_ORIENTATION, 3, 1, v, 2);
    }
  if (!TIFFIsBigTIFF (tif) && TIFFGetField (tif, TIFFTAG_EXIFIFD, &offset)
      && exif_read_ifd (tiff_read_at, io, tiff_size_proc (io), big, offset,
                        exif) < 0)
    exif_ifd_free (exif);
  if (exif_block_build (ifd0, exif, &block, &len) == 0
      && io_set_exif (img, block, len) == 0)
    status = 0;

done:
  if (ifd0)
    exif_ifd_free (ifd0);
  if (exif)
    exif_ifd_free (exif);
  free (ifd0);
  free (exif);
  free (block);
  return status;
}

/* The block's descriptive tags into the file's IFD0, before the image
 * is written.  */
static void
tiff_put_exif_tags (TIFF *tif, const ExifIfd *ifd0)
{
  for (int i = 0; i < ifd0->n; i++)
    {
      const ExifEntry *e = &ifd0->entries[i];

      if (e->tag == TIFFTAG_ORIENTATION && e->type == 3 && e->count == 1)
        {
          unsigned v = exif_get16 (e->value, ifd0->big);

          if (v >= 1 && v <= 8)
            TIFFSetField (tif, TIFFTAG_ORIENTATION, (uint16_t) v);
          continue;
        }
      for (size_t k = 0; k < N_TEXT_TAGS; k++)
        if (e->tag == exif_text_tags[k] && e->type == 2)
          {
            char *text = malloc ((size_t) e->size + 1);

            if (text)
              {
                memcpy (text, e->value, e->size);
                text[e->size] = '\0';
                TIFFSetField (tif, e->tag, text);
                free (text);
              }
          }
    }
}

/* After libtiff wrote the file with a place-holder EXIF pointer: appends
 * the EXIF directory (in the file's byte order, the block's) and points
 * IFD0's entry to it.  */
static int
tiff_append_exif (TiffIo *io, const ExifIfd *exif)
{
  FILE *fp = io->fp;
  unsigned char head[8], count[2], entry[12], value[4];
  size_t size = exif_ifd_size (exif);
  uint32_t ifd0;
  unsigned n;
  off_t end;
  unsigned char *buf;
  int big = exif->big;

  if (fflush (fp) != 0 || tiff_read_at (io, 0, head, 8) < 0)
    return -1;
  ifd0 = exif_get32 (head + 4, big);
  if (tiff_read_at (io, ifd0, count, 2) < 0)
    return -1;
  n = exif_get16 (count, big);
  for (unsigned i = 0; i < n; i++)
    {
      uint64_t at = ifd0 + 2 + 12 * (uint64_t) i;

      if (tiff_read_at (io, at, entry, 12) < 0)
        return -1;
      if (exif_get16 (entry, big) != EXIF_TAG_EXIF_IFD)
        continue;
      if (fseeko (fp, 0, SEEK_END) != 0 || (end = ftello (fp)) < 0)
        return -1;
      if (end & 1)
        {
          fputc (0, fp);
          end++;
        }
      /* A classic TIFF addresses 4 GiB: past that the EXIF is dropped.  */
      if ((uint64_t) end + size > UINT32_MAX)
        return 0;
      buf = calloc (size, 1);
      if (!buf)
        return -1;
      exif_ifd_write (exif, big, buf, (uint64_t) end, 0);
      exif_put32 (value, (uint32_t) end, big);
      if (fwrite (buf, 1, size, fp) != size
          || fseeko (fp, (off_t) (at + 8), SEEK_SET) != 0
          || fwrite (value, 1, 4, fp) != 4)
        {
          free (buf);
          return -1;
        }
      free (buf);
      return 0;
    }
  return 0;
}

static int
tiff_read_image (TiffIo *io, TIFF *tif, Image *img, int native)
{
  TiffLayout l;
  uint16_t compression, extra_count = 0, *extra = NULL;
  uint32_t icc_len = 0;
  void *icc = NULL;
  int direct;

  memset (&l, 0, sizeof l);
  if (!TIFFGetField (tif, TIFFTAG_IMAGEWIDTH, &l.width)
      || !TIFFGetField (tif, TIFFTAG_IMAGELENGTH, &l.height))
    return tiff_fail (io, "not a valid TIFF file (no image size)");
  TIFFGetFieldDefaulted (tif, TIFFTAG_SAMPLESPERPIXEL, &l.spp);
  TIFFGetFieldDefaulted (tif, TIFFTAG_BITSPERSAMPLE, &l.bps);
  TIFFGetFieldDefaulted (tif, TIFFTAG_SAMPLEFORMAT, &l.format);
  TIFFGetFieldDefaulted (tif, TIFFTAG_PLANARCONFIG, &l.planar);
  TIFFGetFieldDefaulted (tif, TIFFTAG_COMPRESSION, &compression);
  if (!TIFFGetField (tif, TIFFTAG_PHOTOMETRIC, &l.photometric))
    l.photometric = l.spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
  TIFFGetFieldDefaulted (tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra);
  if (io_check_size (io->path, (long) l.width, (long) l.height, 1,
                     io->error, io->error_len) < 0)
    {
      io->failed = 1;
      return -1;
    }
  if (!TIFFIsCODECConfigured (compression))
    {
      io_set_error (io->error, io->error_len, "%s: TIFF compression %u is "
                    "not supported by this libtiff", io->path,
                    (unsigned) compression);
      io->failed = 1;
      return -1;
    }

  if (l.photometric == PHOTOMETRIC_YCBCR && compression == COMPRESSION_JPEG)
    {
      /* libtiff converts to RGB itself.  */
      TIFFSetField (tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
      l.photometric = PHOTOMETRIC_RGB;
    }
  if (l.photometric == PHOTOMETRIC_MINISBLACK
      || l.photometric == PHOTOMETRIC_MINISWHITE)
    l.colour = 1;
  else if (l.photometric == PHOTOMETRIC_RGB)
    l.colour = 3;
  l.invert = l.photometric == PHOTOMETRIC_MINISWHITE;
  l.alpha = l.colour && l.spp == l.colour + 1;
  l.associated = l.alpha && extra_count >= 1 && extra
                 && extra[0] == EXTRASAMPLE_ASSOCALPHA;
  if (l.planar != PLANARCONFIG_SEPARATE)
    l.planar = PLANARCONFIG_CONTIG;

  direct = tiff_layout_direct (&l);
  if (!direct)
    {
      if (tiff_read_rgba (io, tif, &l, img) < 0)
        return -1;
    }
  else
    {
      /* Premultiplied samples are divided: floats.  */
      ImageSamples samples = !native || l.bps == 32 || l.associated
                             ? IMAGE_SAMPLES_FLOAT
                             : l.bps == 16 ? IMAGE_SAMPLES_U16
                             : IMAGE_SAMPLES_U8;

      if (image_alloc_samples (img, (int) l.width, (int) l.height, l.spp,
                               l.alpha, l.bps == 32 ? 32 : l.bps, samples,
                               io->error, io->error_len) < 0)
        {
          io->failed = 1;
          return -1;
        }
      if (tiff_read_chunks (io, tif, &l, img) < 0
          || tiff_finish_samples (io, &l, img) < 0)
        return -1;
    }
  if (TIFFGetField (tif, TIFFTAG_ICCPROFILE, &icc_len, &icc) && icc
      && io_set_icc (img, icc, icc_len) < 0)
    return tiff_fail (io, "out of memory");
  /* The RGBA interface turns the pixels to the orientation tag's: then
   * the tag no longer applies.  */
  if (tiff_get_exif (io, tif, img, direct) < 0)
    return tiff_fail (io, "out of memory");
  return 0;
}

static int
read_tiff (const char *path, FILE *fp, Image *img, int native, char *error,
           size_t error_len)
{
  TiffIo io = { fp, 0, path, error, error_len, 0 };
  unsigned char magic[4];
  TIFF *tif;
  int status;

  /* A clear message for what is not TIFF at all.  */
  if (fread (magic, 1, 4, fp) != 4
      || !((magic[0] == 'I' && magic[1] == 'I' && magic[3] == 0
            && (magic[2] == 42 || magic[2] == 43))
           || (magic[0] == 'M' && magic[1] == 'M' && magic[2] == 0
               && (magic[3] == 42 || magic[3] == 43)))
      || fseeko (fp, 0, SEEK_SET) != 0)
    {
      io_set_error (error, error_len, "%s: not a TIFF file", path);
      return -1;
    }
  tif = tiff_open (&io, "rm");
  if (!tif)
    return tiff_fail (&io, "not a valid TIFF file");
  status = tiff_read_image (&io, tif, img, native);
  TIFFClose (tif);
  return status;
}

/* ---- writing ------------------------------------------------------------ */

/* Row `y` of `img` as the file stores it at `depth`, into `row`: a copy
 * even of an integer image's own row, as the predictor changes the row
 * it is given.  */
static void
tiff_row (const Image *img, int depth, int y, void *row)
{
  size_t row_values = (size_t) img->width * img->channels;
  const float *src;

  if (img->samples != IMAGE_SAMPLES_FLOAT)
    {
      size_t row_bytes = row_values * image_sample_size (img->samples);

      memcpy (row, (const unsigned char *) img->pixels + y * row_bytes,
              row_bytes);
      return;
    }
  src = img->data + (size_t) y * row_values;
  if (depth == 8)
    io_row_to_u8 (src, row, row_values);
  else if (depth == 16)
    io_row_to_u16 (src, row, row_values);
  else
    for (size_t i = 0; i < row_values; i++)
      ((float *) row)[i] = (float) (src[i] / 255.0);
}

static int
tiff_write_image (TiffIo *io, TIFF *tif, const Image *img,
                  const ImageWriteOptions *options, const ExifIfd *ifd0,
                  const ExifIfd *exif)
{
  int depth = options->depth;
  int colour = io_colour (img);
  size_t row_values = (size_t) img->width * img->channels;
  size_t row_bytes = row_values * (depth / 8);
  uint32_t rps = (uint32_t) (TIFF_STRIP_BYTES / row_bytes);
  void *row;

  if (colour != 1 && colour != 3)
    {
      io_set_error (io->error, io->error_len, "%s: cannot store %d colour "
                    "channels", io->path, colour);
      return -1;
    }
  TIFFSetField (tif, TIFFTAG_IMAGEWIDTH, (uint32_t) img->width);
  TIFFSetField (tif, TIFFTAG_IMAGELENGTH, (uint32_t) img->height);
  TIFFSetField (tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t) img->channels);
  TIFFSetField (tif, TIFFTAG_BITSPERSAMPLE, (uint16_t) depth);
  TIFFSetField (tif, TIFFTAG_SAMPLEFORMAT,
                depth == 32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
  TIFFSetField (tif, TIFFTAG_PHOTOMETRIC,
                colour == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB);
  TIFFSetField (tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField (tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
  if (img->has_alpha)
    {
      uint16_t extra = EXTRASAMPLE_UNASSALPHA;

      TIFFSetField (tif, TIFFTAG_EXTRASAMPLES, 1, &extra);
    }
  if (options->png_level > 0)
    {
      TIFFSetField (tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
      TIFFSetField (tif, TIFFTAG_ZIPQUALITY, options->png_level);
      TIFFSetField (tif, TIFFTAG_PREDICTOR,
                    depth == 32 ? PREDICTOR_FLOATINGPOINT
                                : PREDICTOR_HORIZONTAL);
    }
  else
    TIFFSetField (tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
  TIFFSetField (tif, TIFFTAG_ROWSPERSTRIP, rps ? rps : 1);
  if (img->meta.icc_len && img->meta.icc_len <= UINT32_MAX)
    TIFFSetField (tif, TIFFTAG_ICCPROFILE, (uint32_t) img->meta.icc_len,
                  img->meta.icc);
  tiff_put_exif_tags (tif, ifd0);
  if (exif->n > 0)
    TIFFSetField (tif, TIFFTAG_EXIFIFD, (uint64_t) 0);
  if (io->failed)
    return -1;

  row = malloc (row_bytes);
  if (!row)
    return tiff_fail (io, "out of memory");
  for (int y = 0; y < img->height; y++)
    {
      tiff_row (img, depth, y, row);
      if (TIFFWriteScanline (tif, row, (uint32_t) y, 0) < 0 || io->failed)
        {
          free (row);
          return tiff_fail (io, "write failed");
        }
      if (io_cancelled (options))
        {
          free (row);
          io_set_error (io->error, io->error_len, "%s: interrupted",
                        io->path);
          io->failed = 1;
          return -1;
        }
    }
  free (row);
  if (!TIFFWriteDirectory (tif) || io->failed)
    return tiff_fail (io, "write failed");
  return 0;
}

static int
write_tiff (const char *path, FILE *fp, const Image *img,
            const ImageWriteOptions *options, char *error, size_t error_len)
{
  TiffIo io = { fp, 1, path, error, error_len, 0 };
  ExifIfd *ifd0 = calloc (1, sizeof *ifd0);
  ExifIfd *exif = calloc (1, sizeof *exif);
  TIFF *tif = NULL;
  int status = -1;

  if (!ifd0 || !exif)
    {
      tiff_fail (&io, "out of memory");
      goto done;
    }
  /* The file takes the EXIF block's byte order: its entries are copied
   * as they are.  */
  if (img->meta.exif_len
      && exif_block_parse (img->meta.exif, img->meta.exif_len, ifd0,
                           exif) < 0)
    {
      exif_ifd_free (ifd0);
      exif_ifd_free (exif);
    }
  tif = tiff_open (&io, !img->meta.exif_len ? "w" : exif->big ? "wb" : "wl");
  if (!tif)
    {
      tiff_fail (&io, "cannot start the TIFF file");
      goto done;
    }
  status = tiff_write_image (&io, tif, img, options, ifd0, exif);
  TIFFClose (tif);
  if (status == 0 && !io.failed && exif->n > 0
      && tiff_append_exif (&io, exif) < 0)
    status = tiff_fail (&io, "write failed");

done:
  if (ifd0)
    exif_ifd_free (ifd0);
  if (exif)
    exif_ifd_free (exif);
  free (ifd0);
  free (exif);
  return status < 0 || io.failed ? -1 : 0;
}

#define STRINGIFY_(x) #x
#define STRINGIFY(x)  STRINGIFY_ (x)

const ImageCodec image_codec_tiff =
{
  IMAGE_FORMAT_TIFF, "TIFF", "tif tiff",
#ifdef TIFFLIB_MAJOR_VERSION
  "libtiff " STRINGIFY (TIFFLIB_MAJOR_VERSION) "." STRINGIFY (TIFFLIB_MINOR_VERSION)
  "." STRINGIFY (TIFFLIB_MICRO_VERSION),
#else
  "libtiff",
#endif
  1,
  IMAGE_DEPTHS (1, 1, 1), read_tiff, write_tiff, 1
};

#else /* !HAVE_LIBTIFF */

const ImageCodec image_codec_tiff =
{
  IMAGE_FORMAT_TIFF, "TIFF", "tif tiff", NULL, 1, IMAGE_DEPTHS (1, 1, 1),
  NULL, NULL, 0
};

#endif /* HAVE_LIBTIFF */
