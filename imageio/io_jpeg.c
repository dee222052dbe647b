/* BM3D Denoise — JPEG files (libjpeg-turbo).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * libjpeg's default error handler calls exit(): ours returns to the
 * reader or writer by longjmp with the message, so a damaged file is one
 * line and an exit status, never a dead process.  Warnings that mean the
 * picture itself is damaged (a truncated file, bad entropy codes) are
 * errors too: libjpeg would fill the rest with gray and call it a
 * success.
 *
 * Written with 4:4:4 chroma from quality 90 up (the default, 95, is
 * meant to keep what the denoiser kept), 4:2:0 below.  The EXIF block
 * (APP1 "Exif") and the ICC profile (APP2 "ICC_PROFILE", split as
 * needed) are copied as they are.  */
#include "config.h"

#include "io_codec.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBJPEG
#include <jpeglib.h>

#define EXIF_HEADER     "Exif\0\0"
#define EXIF_HEADER_LEN 6
#define XMP_HEADER      "http://ns.adobe.com/xap/1.0/"
#define XMP_HEADER_LEN  29     /* with its zero */
/* The payload of one marker segment: 65535 less its length field.  */
#define MARKER_MAX      65533
/* A progressive file takes at most this many scans (a normal one has
 * about 10): a small hostile file of thousands of empty scans would
 * otherwise cost minutes of decoding.  libjpeg-turbo suggests 500.  */
#define JPEG_MAX_SCANS  500
/* Rows decoded or encoded per library call.  */
#define JPEG_ROWS       16

/* libjpeg's error manager, extended with a way back and the message.  */
typedef struct
{
  struct jpeg_error_mgr  mgr;
  jmp_buf                jump;
  const char            *path;
  char                  *error;
  size_t                 error_len;
} JpegError;

static void
jpeg_on_error (j_common_ptr cinfo)
{
  JpegError *err = (JpegError *) cinfo->err;
  char text[JMSG_LENGTH_MAX];

  err->mgr.format_message (cinfo, text);
  io_set_error (err->error, err->error_len, "%s: %s", err->path, text);
  longjmp (err->jump, 1);
}

/* Warnings (level -1) that mean damaged pixels stop the read; the
 * harmless ones (extraneous bytes between markers, an odd JFIF version)
 * and trace messages are ignored.  */
static void
jpeg_on_message (j_common_ptr cinfo, int level)
{
  JpegError *err = (JpegError *) cinfo->err;
  int code = err->mgr.msg_code;
  const char *text = code >= 0 && code <= err->mgr.last_jpeg_message
                     ? err->mgr.jpeg_message_table[code] : NULL;

  if (level != -1)
    return;
  /* Every "Corrupt JPEG data" but stray bytes between markers and a
   * damaged ICC profile (which is then left out).  By text: the codes'
   * numbers depend on how the library was configured.  */
  if (text
      && (strcmp (text, "Premature end of JPEG file") == 0
          || strncmp (text, "Invalid SOS parameters", 22) == 0
          || (strncmp (text, "Corrupt JPEG data", 17) == 0
              && !strstr (text, "extraneous bytes")
              && !strstr (text, "ICC"))))
    jpeg_on_error (cinfo);
  err->mgr.num_warnings++;
}

static void
jpeg_error_init (JpegError *err, const char *path, char *error,
                 size_t error_len)
{
  jpeg_std_error (&err->mgr);
  err->mgr.error_exit = jpeg_on_error;
  err->mgr.emit_message = jpeg_on_message;
  err->path = path;
  err->error = error;
  err->error_len = error_len;
}

/* ---- reading ------------------------------------------------------------ */

typedef struct
{
  struct jpeg_decompress_struct  cinfo;
  JpegError                      err;
  struct jpeg_progress_mgr       progress;
  unsigned char                 *rows;
  JOCTET                        *icc;
} JpegReader;

/* Called by libjpeg between scans and rows: stops a file of too many.  */
static void
jpeg_count_scans (j_common_ptr common)
{
  j_decompress_ptr cinfo = (j_decompress_ptr) common;
  JpegError *err = (JpegError *) common->err;

  if (cinfo->input_scan_number > JPEG_MAX_SCANS)
    {
      io_set_error (err->error, err->error_len, "%s: more than %d scans in "
                    "a progressive JPEG file; refused", err->path,
                    JPEG_MAX_SCANS);
      longjmp (err->jump, 1);
    }
}

static int
jpeg_get_metadata (JpegReader *r, Image *img)
{
  unsigned int icc_len = 0;

  for (jpeg_saved_marker_ptr m = r->cinfo.marker_list; m; m = m->next)
    if (m->marker == JPEG_APP0 + 1 && m->data_length > EXIF_HEADER_LEN
        && memcmp (m->data, EXIF_HEADER, EXIF_HEADER_LEN) == 0)
      {
        if (io_set_exif (img, m->data + EXIF_HEADER_LEN,
                         m->data_length - EXIF_HEADER_LEN) < 0)
          return -1;
        break;
      }
  if (jpeg_read_icc_profile (&r->cinfo, &r->icc, &icc_len)
      && io_set_icc (img, r->icc, icc_len) < 0)
    return -1;
  return 0;
}

/* The part of the read that libjpeg may leave by longjmp.  */
static int
jpeg_read_pixels (JpegReader *r, const char *path, FILE *fp, Image *img,
                  int native, char *error, size_t error_len)
{
  struct jpeg_decompress_struct *cinfo = &r->cinfo;
  size_t row_values;
  int channels;

  if (setjmp (r->err.jump))
    return -1;

  jpeg_create_decompress (cinfo);
  r->progress.progress_monitor = jpeg_count_scans;
  cinfo->progress = &r->progress;
  jpeg_stdio_src (cinfo, fp);
  jpeg_save_markers (cinfo, JPEG_APP0 + 1, 0xffff);
  jpeg_save_markers (cinfo, JPEG_APP0 + 2, 0xffff);
  jpeg_read_header (cinfo, TRUE);
  if (native & IO_READ_FLOAT_DCT)
    cinfo->dct_method = JDCT_FLOAT;
  switch (cinfo->jpeg_color_space)
    {
    case JCS_GRAYSCALE:
      cinfo->out_color_space = JCS_GRAYSCALE;
      channels = 1;
      break;
    case JCS_YCbCr:
    case JCS_RGB:
      cinfo->out_color_space = JCS_RGB;
      channels = 3;
      break;
    default:
      io_set_error (error, error_len, "%s: CMYK and YCCK JPEG files are not "
                    "supported (convert to RGB first)", path);
      return -1;
    }
  if (io_check_size (path, (long) cinfo->image_width,
                     (long) cinfo->image_height, channels, error,
                     error_len) < 0)
    return -1;
  jpeg_start_decompress (cinfo);
  if (cinfo->output_components != channels)
    {
      io_set_error (error, error_len, "%s: unsupported JPEG layout", path);
      return -1;
    }
  row_values = (size_t) cinfo->output_width * channels;
  /* Native rows are decoded in place: no buffer of our own.  */
  r->rows = native ? NULL : malloc (row_values * JPEG_ROWS);
  if ((!native && !r->rows)
      || image_alloc_samples (img, (int) cinfo->output_width,
                              (int) cinfo->output_height, channels, 0, 8,
                              native ? IMAGE_SAMPLES_U8
                                     : IMAGE_SAMPLES_FLOAT,
                              error, error_len) < 0)
    {
      io_set_error (error, error_len, "%s: out of memory", path);
      return -1;
    }
  while (cinfo->output_scanline < cinfo->output_height)
    {
      JSAMPROW rows[JPEG_ROWS];
      JDIMENSION first = cinfo->output_scanline, got;
      JDIMENSION want = cinfo->output_height - first;

      if (want > JPEG_ROWS)
        want = JPEG_ROWS;
      for (JDIMENSION i = 0; i < want; i++)
        rows[i] = native ? (JSAMPROW) img->pixels + (first + i) * row_values
                         : r->rows + i * row_values;
      got = jpeg_read_scanlines (cinfo, rows, want);
      if (got == 0)
        {
          io_set_error (error, error_len, "%s: truncated JPEG file", path);
          return -1;
        }
      if (!native)
        io_row_from_u8 (r->rows, img->data + first * row_values,
                        got * row_values);
    }
  if (jpeg_get_metadata (r, img) < 0)
    {
      io_set_error (error, error_len, "%s: out of memory", path);
      return -1;
    }
  jpeg_finish_decompress (cinfo);
  return 0;
}

static int
read_jpeg (const char *path, FILE *fp, Image *img, int native, char *error,
           size_t error_len)
{
  JpegReader *r = io_alloc (path, sizeof *r, error, error_len);
  int status;

  if (!r)
    return -1;
  memset (r, 0, sizeof *r);
  jpeg_error_init (&r->err, path, error, error_len);
  r->cinfo.err = &r->err.mgr;
  status = jpeg_read_pixels (r, path, fp, img, native, error,
                             error_len);
  jpeg_destroy_decompress (&r->cinfo);
  free (r->rows);
  free (r->icc);
  free (r);
  return status;
}

/* ---- writing ------------------------------------------------------------ */

typedef struct
{
  struct jpeg_compress_struct  cinfo;
  JpegError                    err;
  unsigned char               *rows;
  unsigned char               *exif;
  unsigned char               *xmp;
  float                       *samples;
} JpegWriter;

static void
jpeg_put_metadata (JpegWriter *w, const Image *img)
{
  /* The EXIF block first, right after SOI, as the EXIF standard asks;
   * one that does not fit a marker cannot be stored and is dropped.  */
  if (img->meta.exif_len && img->meta.exif_len + EXIF_HEADER_LEN <= MARKER_MAX
      && w->exif)
    jpeg_write_marker (&w->cinfo, JPEG_APP0 + 1, w->exif,
                       (unsigned int) (img->meta.exif_len + EXIF_HEADER_LEN));
  if (img->meta.icc_len)
    jpeg_write_icc_profile (&w->cinfo, img->meta.icc,
                            (unsigned int) img->meta.icc_len);
  /* The comment and the XMP packet, which only the GIMP plug-in's batch
   * sets; one that does not fit a marker is dropped.  */
  if (img->meta.comment && *img->meta.comment
      && strlen (img->meta.comment) <= MARKER_MAX)
    jpeg_write_marker (&w->cinfo, JPEG_COM,
                       (const JOCTET *) img->meta.comment,
                       (unsigned int) strlen (img->meta.comment));
  if (w->xmp)
    jpeg_write_marker (&w->cinfo, JPEG_APP0 + 1, w->xmp,
                       (unsigned int) (XMP_HEADER_LEN
                                       + strlen (img->meta.xmp)));
}

/* Row `i` of `rows` from an 8-bit image's own row `src`: the row
 * itself without alpha (libjpeg only reads it), else its colour copied
 * into the buffer rows[i] points at.  */
static void
jpeg_row_from_u8 (const Image *img, const uint8_t *src, JSAMPROW *rows,
                  JDIMENSION i, int colour)
{
  if (colour == img->channels)
    {
      rows[i] = (JSAMPROW) src;
      return;
    }
  for (int x = 0; x < img->width; x++)
    memcpy (rows[i] + (size_t) x * colour, src + (size_t) x * img->channels,
            (size_t) colour);
}

/* The part of the write that libjpeg may leave by longjmp.  */
static int
jpeg_write_pixels (JpegWriter *w, const char *path, FILE *fp,
                   const Image *img, const ImageWriteOptions *options,
                   char *error, size_t error_len)
{
  struct jpeg_compress_struct *cinfo = &w->cinfo;
  int colour = io_colour (img);
  size_t row_values = (size_t) img->width * colour;

  if (setjmp (w->err.jump))
    return -1;

  if (colour != 1 && colour != 3)
    {
      io_set_error (error, error_len, "%s: cannot store %d colour channels",
                    path, colour);
      return -1;
    }
  w->rows = malloc (row_values * JPEG_ROWS);
  w->samples = malloc (row_values * JPEG_ROWS * sizeof *w->samples);
  if (img->meta.exif_len && img->meta.exif_len + EXIF_HEADER_LEN <= MARKER_MAX)
    {
      w->exif = malloc (img->meta.exif_len + EXIF_HEADER_LEN);
      if (w->exif)
        {
          memcpy (w->exif, EXIF_HEADER, EXIF_HEADER_LEN);
          memcpy (w->exif + EXIF_HEADER_LEN, img->meta.exif,
                  img->meta.exif_len);
        }
    }
  if (img->meta.xmp
      && strlen (img->meta.xmp) + XMP_HEADER_LEN <= MARKER_MAX)
    {
      w->xmp = malloc (strlen (img->meta.xmp) + XMP_HEADER_LEN);
      if (!w->xmp)
        {
          io_set_error (error, error_len, "%s: out of memory", path);
          return -1;
        }
      memcpy (w->xmp, XMP_HEADER, XMP_HEADER_LEN);
      memcpy (w->xmp + XMP_HEADER_LEN, img->meta.xmp,
              strlen (img->meta.xmp));
    }
  if (!w->rows || !w->samples
      || (img->meta.exif_len && img->meta.exif_len + EXIF_HEADER_LEN
                                <= MARKER_MAX && !w->exif))
    {
      io_set_error (error, error_len, "%s: out of memory", path);
      return -1;
    }

  jpeg_create_compress (cinfo);
  jpeg_stdio_dest (cinfo, fp);
  cinfo->image_width = (JDIMENSION) img->width;
  cinfo->image_height = (JDIMENSION) img->height;
  cinfo->input_components = colour;
  cinfo->in_color_space = colour == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults (cinfo);
  jpeg_set_quality (cinfo, options->quality, TRUE);
  if (colour == 3 && options->jpeg_h_samp > 0 && options->jpeg_v_samp > 0)
    {
      cinfo->comp_info[0].h_samp_factor = options->jpeg_h_samp;
      cinfo->comp_info[0].v_samp_factor = options->jpeg_v_samp;
    }
  else if (colour == 3 && options->quality >= 90)
    {
      cinfo->comp_info[0].h_samp_factor = 1;
      cinfo->comp_info[0].v_samp_factor = 1;
    }
  if (options->jpeg_optimize)
    cinfo->optimize_coding = TRUE;
  /* A file with EXIF starts with it, as cameras write it.  */
  if (img->meta.exif_len)
    cinfo->write_JFIF_header = FALSE;
  jpeg_start_compress (cinfo, TRUE);
  jpeg_put_metadata (w, img);

  while (cinfo->next_scanline < cinfo->image_height)
    {
      JSAMPROW rows[JPEG_ROWS];
      JDIMENSION first = cinfo->next_scanline;
      JDIMENSION n = cinfo->image_height - first;

      if (n > JPEG_ROWS)
        n = JPEG_ROWS;
      for (JDIMENSION i = 0; i < n; i++)
        {
          size_t offset = (size_t) (first + i) * img->width * img->channels;
          const float *src;
          float *dst = w->samples + i * row_values;

          rows[i] = w->rows + i * row_values;
          if (img->samples == IMAGE_SAMPLES_U8)
            {
              jpeg_row_from_u8 (img, (const uint8_t *) img->pixels + offset,
                                rows, i, colour);
              continue;
            }
          src = img->data + offset;
          /* Without alpha the image's rows convert as they are.  */
          if (colour == img->channels)
            {
              io_row_to_u8 (src, rows[i], row_values);
              continue;
            }
          for (int x = 0; x < img->width; x++)
            memcpy (dst + (size_t) x * colour,
                    src + (size_t) x * img->channels, colour * sizeof *dst);
          io_row_to_u8 (dst, rows[i], row_values);
        }
      jpeg_write_scanlines (cinfo, rows, n);
      if (io_cancelled (options))
        {
          io_set_error (error, error_len, "%s: interrupted", path);
          return -1;
        }
    }
  jpeg_finish_compress (cinfo);
  return 0;
}

static int
write_jpeg (const char *path, FILE *fp, const Image *img,
            const ImageWriteOptions *options, char *error, size_t error_len)
{
  JpegWriter *w = io_alloc (path, sizeof *w, error, error_len);
  int status;

  if (!w)
    return -1;
  memset (w, 0, sizeof *w);
  jpeg_error_init (&w->err, path, error, error_len);
  w->cinfo.err = &w->err.mgr;
  status = jpeg_write_pixels (w, path, fp, img, options, error, error_len);
  jpeg_destroy_compress (&w->cinfo);
  free (w->rows);
  free (w->samples);
  free (w->exif);
  free (w->xmp);
  free (w);
  return status;
}

#define STRINGIFY_(x) #x
#define STRINGIFY(x)  STRINGIFY_ (x)

const ImageCodec image_codec_jpeg =
{
  IMAGE_FORMAT_JPEG, "JPEG", "jpg jpeg jpe",
#ifdef LIBJPEG_TURBO_VERSION
  "libjpeg-turbo " STRINGIFY (LIBJPEG_TURBO_VERSION),
#else
  "libjpeg " STRINGIFY (JPEG_LIB_VERSION),
#endif
  0, IMAGE_DEPTHS (1, 0, 0), read_jpeg, write_jpeg, 1
};

#else /* !HAVE_LIBJPEG */

const ImageCodec image_codec_jpeg =
{
  IMAGE_FORMAT_JPEG, "JPEG", "jpg jpeg jpe", NULL, 0,
  IMAGE_DEPTHS (1, 0, 0), NULL, NULL, 0
};

#endif /* HAVE_LIBJPEG */
