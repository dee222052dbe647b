/* BM3D Denoise — image files for the command line: the table of formats
 * and what their readers and writers share.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The formats themselves live in io_png.c, io_jpeg.c, io_tiff.c and
 * io_pnm.c (Netpbm and PFM); this file picks one by the file name's
 * extension, opens and closes the files, and removes an output that
 * could not be written completely.  */
#include "config.h"

#include "io_codec.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---- the table ---------------------------------------------------------- */

static const ImageCodec *const codecs[] =
{
  &image_codec_png,
  &image_codec_jpeg,
  &image_codec_tiff,
  &image_codec_pnm,
  &image_codec_pfm
};

#define N_CODECS (sizeof codecs / sizeof codecs[0])

static const ImageCodec *
codec_of (ImageFormat format)
{
  for (size_t i = 0; i < N_CODECS; i++)
    if (codecs[i]->format == format)
      return codecs[i];
  return NULL;
}

/* Is `ext` one of the space-separated words of `list`?  */
static int
extension_in (const char *ext, const char *list)
{
  size_t len = strlen (ext);

  while (*list)
    {
      size_t word = strcspn (list, " ");

      if (word == len && strncasecmp (list, ext, len) == 0)
        return 1;
      list += word;
      list += strspn (list, " ");
    }
  return 0;
}

ImageFormat
image_format_for_path (const char *path)
{
  const char *dot = strrchr (path, '.');
  const char *slash = strrchr (path, '/');

  if (!dot || (slash && dot < slash))
    return IMAGE_FORMAT_UNKNOWN;
  for (size_t i = 0; i < N_CODECS; i++)
    if (extension_in (dot + 1, codecs[i]->extensions))
      return codecs[i]->format;
  return IMAGE_FORMAT_UNKNOWN;
}

const char *
image_format_name (ImageFormat format)
{
  const ImageCodec *codec = codec_of (format);

  return codec ? codec->name : "unknown";
}

int
image_format_supported (ImageFormat format)
{
  const ImageCodec *codec = codec_of (format);

  return codec && codec->read && codec->write;
}

int
image_format_has_alpha (ImageFormat format)
{
  const ImageCodec *codec = codec_of (format);

  return codec && codec->has_alpha;
}

int
image_format_depth (ImageFormat format, int depth)
{
  const ImageCodec *codec = codec_of (format);
  int depths = codec ? codec->depths : 0;

  if (depths & (1 << (depth / 8)))
    return depth;
  /* Float asked of an integer format: its widest integers.  */
  if (depth == 32 && (depths & (1 << 2)))
    return 16;
  if (depths & (1 << 1))
    return 8;
  return depths & (1 << 4) ? 32 : 8;
}

const char *
image_format_library (ImageFormat format)
{
  const ImageCodec *codec = codec_of (format);

  if (!codec || !codec->read)
    return "not built in";
  return codec->library ? codec->library : "built in";
}

int
image_check_path (const char *path, char *error, size_t error_len)
{
  ImageFormat format = image_format_for_path (path);
  const ImageCodec *codec = codec_of (format);

  if (!codec)
    {
      io_set_error (error, error_len, "%s: unknown image format (expected a "
                    ".png, .jpg, .jpeg, .tif, .tiff, .pgm, .ppm, .pnm or "
                    ".pfm file name)", path);
      return -1;
    }
  if (!image_format_supported (format))
    {
      io_set_error (error, error_len, "%s: %s support is not built in (its "
                    "library was not found at configure time); use .pgm, "
                    ".ppm or .pfm", path, codec->name);
      return -1;
    }
  return 0;
}

void
image_write_options_init (ImageWriteOptions *options)
{
  memset (options, 0, sizeof *options);
  options->depth = 8;
  options->quality = IMAGE_JPEG_QUALITY;
  options->png_level = IMAGE_PNG_LEVEL;
}

/* ---- shared by the codecs ----------------------------------------------- */

void
io_set_error (char *error, size_t error_len, const char *format, ...)
{
  va_list args;

  if (!error || !error_len)
    return;
  va_start (args, format);
  vsnprintf (error, error_len, format, args);
  va_end (args);
  image_text_sanitize (error);
}

void
image_text_sanitize (char *text)
{
  unsigned char *p = (unsigned char *) text;

  for (; *p; p++)
    {
      if (*p < 0x20 || *p == 0x7f)
        *p = '?';
      else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
        {
          /* U+0080..U+009F: two bytes, two marks.  */
          p[0] = '?';
          p[1] = '?';
          p++;
        }
    }
}

int
io_check_size (const char *path, long width, long height, int channels,
               char *error, size_t error_len)
{
  if (width <= 0 || height <= 0)
    {
      io_set_error (error, error_len, "%s: image has no pixels (%ldx%ld)",
                    path, width, height);
      return -1;
    }
  if (width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE
      || (size_t) width * (size_t) height > IMAGE_MAX_PIXELS)
    {
      io_set_error (error, error_len, "%s: image size %ldx%ld is too large "
                    "(at most %zu pixels, %d per side)", path, width, height,
                    IMAGE_MAX_PIXELS, IMAGE_MAX_SIDE);
      return -1;
    }
  if (channels < 1 || channels > 4)
    {
      io_set_error (error, error_len, "%s: %d channels are not supported",
                    path, channels);
      return -1;
    }
  return 0;
}

void *
io_alloc (const char *path, size_t bytes, char *error, size_t error_len)
{
  void *p = malloc (bytes ? bytes : 1);

  if (!p)
    io_set_error (error, error_len, "%s: out of memory", path);
  return p;
}

static double
clamp255 (double v)
{
  /* NaN compares false everywhere: send it to 0 rather than to UB.  */
  if (!(v > 0.0))
    return 0.0;
  return v < 255.0 ? v : 255.0;
}

/* The 8-bit sample of `v`, clipped and rounded half up, in float and
 * int arithmetic alone, which vectorises: the integer part is exact, and
 * so is the fraction left (a float minus its truncation).  The same
 * value as rounding clamp255 (v) + 0.5 in double for every one of the
 * 2^32 floats, NaN included (checked exhaustively).  */
static inline unsigned
to_u8 (float v)
{
  float c = v > 0.0f ? (v < 255.0f ? v : 255.0f) : 0.0f;
  int i = (int) c;

  return (unsigned) i + (c - (float) i >= 0.5f);
}

/* Rounding half up: the values are never negative here, so truncation
 * after adding one half is floor.  */
unsigned
io_to_int (float v, int depth)
{
  if (depth == 16)
    return (unsigned) (clamp255 (v) * (65535.0 / 255.0) + 0.5);
  return to_u8 (v);
}

float
io_from_int (unsigned s, unsigned maxval)
{
  return (float) (s * 255.0 / maxval);
}

void
io_row_to_u8 (const float *src, uint8_t *dst, size_t n)
{
  size_t i = 0;

#ifdef __SSE2__
  /* to_u8 () on 16 values at a time, the same operations: maxps and
   * minps return their second operand when the first is NaN, as the
   * comparisons there do; the packs never saturate (0..255).  */
  const __m128 zero = _mm_setzero_ps (), top = _mm_set1_ps (255.0f);
  const __m128 half = _mm_set1_ps (0.5f);

  for (; i + 16 <= n; i += 16)
    {
      __m128i q[4];

      for (int k = 0; k < 4; k++)
        {
          __m128 c = _mm_min_ps (_mm_max_ps (_mm_loadu_ps (src + i + 4 * k),
                                             zero), top);
          __m128i whole = _mm_cvttps_epi32 (c);
          __m128 up = _mm_cmpge_ps (_mm_sub_ps (c, _mm_cvtepi32_ps (whole)),
                                    half);

          /* The mask is -1 where the fraction rounds up.  */
          q[k] = _mm_sub_epi32 (whole, _mm_castps_si128 (up));
        }
      _mm_storeu_si128 ((__m128i *) (dst + i),
                        _mm_packus_epi16 (_mm_packs_epi32 (q[0], q[1]),
                                          _mm_packs_epi32 (q[2], q[3])));
    }
#endif
  for (; i < n; i++)
    dst[i] = (uint8_t) to_u8 (src[i]);
}

void
io_row_to_u16 (const float *src, uint16_t *dst, size_t n)
{
  for (size_t i = 0; i < n; i++)
    dst[i] = (uint16_t) io_to_int (src[i], 16);
}

void
io_row_to_be16 (const float *src, unsigned char *dst, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      unsigned s = io_to_int (src[i], 16);

      dst[2 * i] = (unsigned char) (s >> 8);
      dst[2 * i + 1] = (unsigned char) s;
    }
}

/* s * 255.0 / 255 is s exactly: the plain conversion, which vectorises,
 * gives io_from_int ()'s value bit for bit.  */
void
io_row_from_u8 (const uint8_t *src, float *dst, size_t n)
{
  for (size_t i = 0; i < n; i++)
    dst[i] = (float) src[i];
}

void
io_row_from_u16 (const uint16_t *src, float *dst, size_t n)
{
  for (size_t i = 0; i < n; i++)
    dst[i] = io_from_int (src[i], 65535);
}

void
io_row_from_be16 (const unsigned char *src, float *dst, size_t n)
{
  for (size_t i = 0; i < n; i++)
    dst[i] = io_from_int ((unsigned) src[2 * i] << 8 | src[2 * i + 1],
                         65535);
}

void
io_row_u16_to_be16 (const uint16_t *src, unsigned char *dst, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      dst[2 * i] = (unsigned char) (src[i] >> 8);
      dst[2 * i + 1] = (unsigned char) src[i];
    }
}

void
io_row_be16_to_u16 (const unsigned char *src, uint16_t *dst, size_t n)
{
  for (size_t i = 0; i < n; i++)
    dst[i] = (uint16_t) (src[2 * i] << 8 | src[2 * i + 1]);
}

int
io_native_write (const Image *img, int depth)
{
  return (img->samples == IMAGE_SAMPLES_U8 && depth == 8)
         || (img->samples == IMAGE_SAMPLES_U16 && depth == 16);
}

int
io_colour (const Image *img)
{
  return img->channels - (img->has_alpha ? 1 : 0);
}

int
io_cancelled (const ImageWriteOptions *options)
{
  return options && options->cancel && atomic_load (options->cancel);
}

static int
set_block (unsigned char **block, size_t *block_len, size_t *dropped,
           const void *data, size_t len)
{
  free (*block);
  *block = NULL;
  *block_len = 0;
  if (len > IMAGE_MAX_METADATA)
    *dropped = len;
  if (!data || len == 0 || len > IMAGE_MAX_METADATA)
    return 0;
  *block = malloc (len);
  if (!*block)
    return -1;
  memcpy (*block, data, len);
  *block_len = len;
  return 0;
}

int
io_set_icc (Image *img, const void *data, size_t len)
{
  return set_block (&img->meta.icc, &img->meta.icc_len,
                    &img->meta.icc_dropped, data, len);
}

char *
io_copy_text (const unsigned char *text, size_t len)
{
  char *copy = malloc (len + 1);

  if (copy)
    {
      memcpy (copy, text, len);
      copy[len] = '\0';
    }
  return copy;
}

int
io_set_exif (Image *img, const void *data, size_t len)
{
  return set_block (&img->meta.exif, &img->meta.exif_len,
                    &img->meta.exif_dropped, data, len);
}

/* ---- memory ------------------------------------------------------------- */

size_t
image_sample_size (ImageSamples samples)
{
  switch (samples)
    {
    case IMAGE_SAMPLES_U8:
      return 1;
    case IMAGE_SAMPLES_U16:
      return 2;
    default:
      return sizeof (float);
    }
}

int
image_alloc (Image *img, int width, int height, int channels,
             int has_alpha, int depth, char *error, size_t error_len)
{
  return image_alloc_samples (img, width, height, channels, has_alpha,
                              depth, IMAGE_SAMPLES_FLOAT, error, error_len);
}

int
image_alloc_samples (Image *img, int width, int height, int channels,
                     int has_alpha, int depth, ImageSamples samples,
                     char *error, size_t error_len)
{
  void *buffer;

  memset (img, 0, sizeof *img);
  if (io_check_size ("image", width, height, channels, error, error_len) < 0)
    return -1;
  buffer = calloc ((size_t) width * height * channels,
                   image_sample_size (samples));
  if (!buffer)
    {
      io_set_error (error, error_len, "out of memory for a %dx%d image",
                    width, height);
      return -1;
    }
  img->samples = samples;
  if (samples == IMAGE_SAMPLES_FLOAT)
    img->data = buffer;
  else
    img->pixels = buffer;
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
  free (img->pixels);
  free (img->meta.icc);
  free (img->meta.exif);
  free (img->meta.xmp);
  free (img->meta.comment);
  memset (img, 0, sizeof *img);
}

int
image_copy_metadata (Image *to, const Image *from)
{
  if (io_set_icc (to, from->meta.icc, from->meta.icc_len) < 0
      || io_set_exif (to, from->meta.exif, from->meta.exif_len) < 0
      || image_set_xmp (to, from->meta.xmp) < 0
      || image_set_comment (to, from->meta.comment) < 0)
    return -1;
  to->meta.x_ppm = from->meta.x_ppm;
  to->meta.y_ppm = from->meta.y_ppm;
  return 0;
}

int
image_set_icc (Image *img, const void *data, size_t len)
{
  return io_set_icc (img, data, len);
}

int
image_set_exif (Image *img, const void *data, size_t len)
{
  return io_set_exif (img, data, len);
}

/* A copy of `text` in `*field`; none for NULL, empty or oversized text.  */
static int
set_text (char **field, const char *text)
{
  size_t len = text ? strlen (text) : 0;

  free (*field);
  *field = NULL;
  if (len == 0 || len > IMAGE_MAX_METADATA)
    return 0;
  *field = malloc (len + 1);
  if (!*field)
    return -1;
  memcpy (*field, text, len + 1);
  return 0;
}

int
image_set_xmp (Image *img, const char *xmp)
{
  return set_text (&img->meta.xmp, xmp);
}

int
image_set_comment (Image *img, const char *comment)
{
  return set_text (&img->meta.comment, comment);
}

int
image_to_float (Image *img)
{
  float *data;

  if (img->samples == IMAGE_SAMPLES_FLOAT)
    return 0;
  if (!(data = image_float_copy (img)))
    return -1;
  free (img->pixels);
  img->pixels = NULL;
  img->data = data;
  img->samples = IMAGE_SAMPLES_FLOAT;
  return 0;
}

float *
image_float_copy (const Image *img)
{
  size_t n = (size_t) img->width * img->height * img->channels;
  float *data;

  if (img->samples == IMAGE_SAMPLES_FLOAT
      || !(data = malloc ((n ? n : 1) * sizeof *data)))
    return NULL;
  /* The readers' own conversions, so that the floats are the ones a
   * float read gives, bit for bit.  */
  if (img->samples == IMAGE_SAMPLES_U8)
    io_row_from_u8 (img->pixels, data, n);
  else
    io_row_from_u16 (img->pixels, data, n);
  return data;
}

/* Samples quantized at a time through a byte buffer.  */
#define QUANTIZE_RUN 4096

void
image_quantize (Image *img, ImageFormat format, int depth)
{
  size_t n = (size_t) img->width * img->height * img->channels;
  unsigned maxval;

  depth = image_format_depth (format, depth);
  if (io_native_write (img, depth) || image_to_float (img) < 0)
    return;
  if (depth == 32)
    return;
  maxval = depth == 16 ? 65535 : 255;
  if (depth == 8)
    for (size_t i = 0; i < n; i += QUANTIZE_RUN)
      {
        uint8_t run[QUANTIZE_RUN];
        size_t len = n - i < QUANTIZE_RUN ? n - i : QUANTIZE_RUN;

        io_row_to_u8 (img->data + i, run, len);
        io_row_from_u8 (run, img->data + i, len);
      }
  else
    for (size_t i = 0; i < n; i++)
      img->data[i] = io_from_int (io_to_int (img->data[i], depth), maxval);
}

/* ---- entry points ------------------------------------------------------- */

/* JPEG_MAX_DIMENSION of libjpeg.  */
#define JPEG_MAX_SIDE 65500

int
image_check_size_for (const char *path, ImageFormat format, int width,
                      int height, char *error, size_t error_len)
{
  if (format == IMAGE_FORMAT_JPEG
      && (width > JPEG_MAX_SIDE || height > JPEG_MAX_SIDE))
    {
      io_set_error (error, error_len, "%s: JPEG holds at most %d pixels a "
                    "side, not %dx%d (use .png or .tif)", path,
                    JPEG_MAX_SIDE, width, height);
      return -1;
    }
  return 0;
}

static void
append_note (char *text, size_t text_len, const char *what, size_t len)
{
  size_t used = strlen (text);

  if (!len || used >= text_len)
    return;
  if (len > 1)
    snprintf (text + used, text_len - used, "%s%s of %.1f MiB",
              used ? ", " : "", what, len / 1048576.0);
  else
    snprintf (text + used, text_len - used, "%s%s", used ? ", " : "", what);
}

void
image_read_notes (const char *path, const Image *img, char *text,
                  size_t text_len)
{
  char what[256] = "";

  if (!text || !text_len)
    return;
  text[0] = '\0';
  append_note (what, sizeof what, "its ICC profile", img->meta.icc_dropped);
  append_note (what, sizeof what, "its EXIF block", img->meta.exif_dropped);
  if (what[0])
    io_set_error (text, text_len, "%s: %s dropped (over the %zu MiB limit "
                  "for metadata)", path, what, IMAGE_MAX_METADATA >> 20);
}

/* Opens `path` for reading only when it is a regular file: a FIFO or a
 * device could block forever or never end.  The open itself does not
 * wait (O_NONBLOCK); the check is on what was opened.  */
static FILE *
open_regular (const char *path, char *error, size_t error_len)
{
  struct stat st;
  FILE *fp;
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

  if (fd < 0)
    {
      io_set_error (error, error_len, "%s: cannot open: %s", path,
                    strerror (errno));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      int err = errno;

      if (fstat (fd, &st) != 0)
        io_set_error (error, error_len, "%s: cannot open: %s", path,
                      strerror (err));
      else if (S_ISDIR (st.st_mode))
        io_set_error (error, error_len, "%s: cannot open: %s", path,
                      strerror (EISDIR));
      else
        io_set_error (error, error_len, "%s: not a regular file (a FIFO, "
                      "device or socket); refused", path);
      close (fd);
      return NULL;
    }
  if (fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK) != 0
      || !(fp = fdopen (fd, "rb")))
    {
      io_set_error (error, error_len, "%s: cannot open: %s", path,
                    strerror (errno));
      close (fd);
      return NULL;
    }
  return fp;
}

static int
read_samples (const char *path, Image *img, int native, char *error,
              size_t error_len)
{
  const ImageCodec *codec;
  FILE *fp;
  int status;

  memset (img, 0, sizeof *img);
  if (image_check_path (path, error, error_len) < 0)
    return -1;
  codec = codec_of (image_format_for_path (path));
  fp = open_regular (path, error, error_len);
  if (!fp)
    return -1;
  status = codec->read (path, fp, img, native, error, error_len);
  if (status == 0 && ferror (fp))
    {
      io_set_error (error, error_len, "%s: read error: %s", path,
                    strerror (errno));
      status = -1;
    }
  if (status < 0)
    image_free (img);
  fclose (fp);
  return status;
}

int
image_read (const char *path, Image *img, char *error, size_t error_len)
{
  return read_samples (path, img, 0, error, error_len);
}

int
image_read_native (const char *path, Image *img, char *error,
                   size_t error_len)
{
  return read_samples (path, img, 1, error, error_len);
}

int
image_read_native_with (const char *path, Image *img, int flags,
                        char *error, size_t error_len)
{
  return read_samples (path, img,
                       1 | (flags & IMAGE_READ_JPEG_FLOAT_DCT
                            ? IO_READ_FLOAT_DCT : 0),
                       error, error_len);
}

/* The libraries say "Write Error" (libpng) or "Write error at scanline
 * 700" (libtiff) and leave the cause in errno: add it, when it is one a
 * write gives.  */
static void
add_system_reason (char *error, size_t error_len, int err)
{
  const char *reason;
  size_t used;

  if (!error || !error_len || !error[0])
    return;
  if (err != ENOSPC && err != EDQUOT && err != EIO && err != EFBIG
      && err != EROFS && err != EPIPE)
    return;
  reason = strerror (err);
  used = strlen (error);
  if (strstr (error, reason) || used >= error_len)
    return;
  snprintf (error + used, error_len - used, ": %s", reason);
}

/* An integer image that `codec` cannot take as it is: written from a
 * float copy, the file the float image would have given.  */
static int
write_as_float (const char *path, const ImageCodec *codec, const Image *img,
                const ImageWriteOptions *options, char *error,
                size_t error_len)
{
  Image copy = *img;
  size_t n = (size_t) img->width * img->height * img->channels;
  int status;

  copy.samples = IMAGE_SAMPLES_FLOAT;
  copy.pixels = NULL;
  copy.data = malloc (n * sizeof *copy.data);
  if (!copy.data)
    {
      io_set_error (error, error_len, "%s: out of memory", path);
      return -1;
    }
  if (img->samples == IMAGE_SAMPLES_U8)
    io_row_from_u8 (img->pixels, copy.data, n);
  else
    io_row_from_u16 (img->pixels, copy.data, n);
  status = image_write_with (path, codec->format, &copy, options, error,
                             error_len);
  free (copy.data);
  return status;
}

int
image_write_with (const char *path, ImageFormat format, const Image *img,
                  const ImageWriteOptions *options, char *error,
                  size_t error_len)
{
  const ImageCodec *codec;
  ImageWriteOptions opt;
  struct stat st;
  FILE *fp;
  int failed, err = 0;

  if (format == IMAGE_FORMAT_UNKNOWN)
    {
      if (image_check_path (path, error, error_len) < 0)
        return -1;
      format = image_format_for_path (path);
    }
  codec = codec_of (format);
  if (!codec || !codec->write)
    {
      io_set_error (error, error_len, "%s: %s support is not built in",
                    path, image_format_name (format));
      return -1;
    }
  if (!img || !(img->data || img->pixels) || img->width < 1
      || img->height < 1)
    {
      io_set_error (error, error_len, "%s: nothing to write", path);
      return -1;
    }
  if (options)
    opt = *options;
  else
    image_write_options_init (&opt);
  opt.depth = image_format_depth (format, opt.depth);
  if (opt.quality < 1 || opt.quality > 100)
    opt.quality = IMAGE_JPEG_QUALITY;
  if (opt.png_level < 0 || opt.png_level > 9)
    opt.png_level = IMAGE_PNG_LEVEL;
  if (img->samples != IMAGE_SAMPLES_FLOAT
      && !(codec->writes_integers && io_native_write (img, opt.depth)))
    return write_as_float (path, codec, img, &opt, error, error_len);

  /* Read too: the TIFF writer comes back to patch what libtiff wrote.  */
  fp = fopen (path, "w+b");
  if (!fp)
    {
      io_set_error (error, error_len, "%s: cannot create: %s", path,
                    strerror (errno));
      return -1;
    }
  if (error && error_len)
    error[0] = '\0';
  errno = 0;
  failed = codec->write (path, fp, img, &opt, error, error_len) < 0;
  if (failed)
    add_system_reason (error, error_len, errno);
  if (!failed && (fflush (fp) != 0 || ferror (fp)))
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
      if (err || !error || !error[0])
        io_set_error (error, error_len, "%s: write failed: %s", path,
                      strerror (err ? err : EIO));
      /* A device or a FIFO written in place stays.  */
      if (lstat (path, &st) == 0 && S_ISREG (st.st_mode))
        unlink (path);
      return -1;
    }
  return 0;
}

int
image_write (const char *path, const Image *img, int depth, char *error,
             size_t error_len)
{
  ImageWriteOptions options;

  image_write_options_init (&options);
  options.depth = depth == 16 ? 16 : depth == 32 ? 32 : 8;
  return image_write_with (path, IMAGE_FORMAT_UNKNOWN, img, &options, error,
                           error_len);
}
