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
 * row, then zlib's Huffman coding alone, or its run-length strategy
 * where a slice has many runs, deflated in slices on every core;
 * BENCHMARKS.md ("Files and batches", "Saving the batch's results")
 * measured it on denoised 12 MP photos as many times faster than
 * libpng's defaults (level 6, adaptive filters) and smaller.  Levels
 * 2..9 are zlib's levels with libpng's adaptive filters; 0 stores.  The
 * ICC profile (iCCP) and the EXIF block (eXIf) are kept; the XMP packet,
 * the comment and the resolution are written when the image has them.  */
#include "config.h"

#include "io_codec.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBPNG
#include <png.h>
#include <pthread.h>
#include <unistd.h>
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
  struct png_slices *slices;    /* levels 0 and 1: the writer's slices */
  char          *latin1;        /* the comment as tEXt holds it        */
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

/* The chunks after the image data, and the metadata.  */
static int
png_read_finish (PngContext *ctx, Image *img)
{
  png_read_end (ctx->png, ctx->info);
  if (png_get_metadata (ctx, img) < 0)
    {
      io_set_error (ctx->error, ctx->error_len, "%s: out of memory",
                    ctx->path);
      return -1;
    }
  return 0;
}

/* The file's integers decoded straight into the image's rows (16-bit
 * ones already in the machine's byte order).  */
static int
png_read_native (PngContext *ctx, Image *img, png_uint_32 width,
                 png_uint_32 height, int channels, int depth, int interlaced)
{
  size_t row_bytes = (size_t) width * channels * (depth / 8);

  ctx->rows = malloc (height * sizeof *ctx->rows);
  if (!ctx->rows
      || image_alloc_samples (img, (int) width, (int) height, channels,
                              channels == 2 || channels == 4, depth,
                              depth == 16 ? IMAGE_SAMPLES_U16
                                          : IMAGE_SAMPLES_U8,
                              ctx->error, ctx->error_len) < 0)
    {
      io_set_error (ctx->error, ctx->error_len, "%s: out of memory",
                    ctx->path);
      return -1;
    }
  for (png_uint_32 y = 0; y < height; y++)
    ctx->rows[y] = (png_bytep) img->pixels + y * row_bytes;
  if (interlaced)
    png_read_image (ctx->png, ctx->rows);
  else
    for (png_uint_32 y = 0; y < height; y++)
      png_read_row (ctx->png, ctx->rows[y], NULL);
  return 0;
}

/* The part of the read that libpng may leave by longjmp.  */
static int
png_read_pixels (PngContext *ctx, FILE *fp, Image *img, int native)
{
  png_uint_32 width, height;
  int bit_depth, colour_type, channels, depth, interlaced;
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
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  /* 16-bit integers kept as they are: libpng turns the file's
   * big-endian samples around while it decodes.  */
  if (native && bit_depth == 16)
    png_set_swap (ctx->png);
#endif
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
  interlaced = png_get_interlace_type (ctx->png, ctx->info)
               != PNG_INTERLACE_NONE;
  if (native)
    {
      if (png_read_native (ctx, img, width, height, channels, depth,
                           interlaced) < 0)
        return -1;
      return png_read_finish (ctx, img);
    }
  /* An interlaced file's passes need every row at once; any other is
   * read a row at a time into one row's buffer, converted while it is
   * in the cache.  */
  ctx->pixels = malloc (row_bytes * (interlaced ? height : 1));
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
    ctx->rows[y] = ctx->pixels + (interlaced ? y * row_bytes : 0);
  if (interlaced)
    png_read_image (ctx->png, ctx->rows);

  row_values = (size_t) width * channels;
  for (png_uint_32 y = 0; y < height; y++)
    {
      float *dst = img->data + y * row_values;

      if (!interlaced)
        png_read_row (ctx->png, ctx->rows[y], NULL);
      if (depth == 16)
        io_row_from_be16 (ctx->rows[y], dst, row_values);
      else
        io_row_from_u8 (ctx->rows[y], dst, row_values);
    }
  return png_read_finish (ctx, img);
}

static int
read_png (const char *path, FILE *fp, Image *img, int native, char *error,
          size_t error_len)
{
  PngContext ctx = { path, error, error_len, fp, NULL, NULL, NULL, NULL,
                     0, NULL, NULL };
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
  status = png_read_pixels (&ctx, fp, img, native);
  png_destroy_read_struct (&ctx.png, &ctx.info, NULL);
  free (ctx.pixels);
  free (ctx.rows);
  return status;
}

/* ---- levels 0 and 1: slices of rows compressed side by side -----------
 *
 * The image data of a PNG is one zlib stream.  Its rows are cut into
 * slices of about PNG_SLICE_BYTES; each is filtered and deflated by
 * itself (raw deflate, ended by a sync flush: byte-aligned blocks none
 * of which is the last), and the slices joined in order make one valid
 * stream, closed by the last slice's final block and the Adler-32 of
 * all the data (combined from the slices').  A slice cannot match bytes
 * of the one before, which costs nothing with the Huffman coding level
 * 1 mostly uses and a few bytes a slice with run-length matches.  The
 * slices and their coding depend on the image alone, so the file is the
 * same for any number of threads.
 *
 * Level 1 filters every row with Average and codes each slice with
 * zlib's Huffman coding alone (Z_HUFFMAN_ONLY), unless the slice has
 * many runs, where run-length matches (Z_RLE) take over.  On a photo
 * the Average residuals are small noise with few runs: Huffman alone
 * codes them a third faster than Z_RLE and 1-2 % smaller (BENCHMARKS.md,
 * *Saving the batch's results*); with more runs (clean photos, flat
 * areas, screenshots) Z_RLE is up to 30 % smaller.  */

#define PNG_SLICE_BYTES    ((size_t) 2 << 20)
#define PNG_SLICE_MIN_ROWS 8
#define PNG_MAX_THREADS    64

/* Z_RLE for a slice of which more than 1 / PNG_RUNS_SHARE of the
 * 4-byte groups are one byte repeated.  Measured on Average residuals:
 * 3 % of the groups of the batch benchmark's denoised 12 MP photo
 * (Huffman alone 1.5 % smaller), under 1 % of noisy photos (equal),
 * 4 % of tests/data/chelsea.png (Z_RLE 1.4 % smaller), 11-30 % of clean
 * or denoised 512 x 512 photos (Z_RLE 1-6 % smaller), two thirds of a
 * dialog's screenshot (Z_RLE 30 % smaller).  */
#define PNG_RUNS_SHARE     16

typedef struct
{
  int            first, rows;    /* the slice's rows                    */
  unsigned char *out;            /* its deflate data                    */
  size_t         out_len;
  uLong          adler;          /* of its filtered rows                */
  size_t         in_len;
  int            failed;         /* out of memory, or zlib refused      */
} PngSlice;

typedef struct png_slices
{
  const Image             *img;
  const ImageWriteOptions *options;
  int                      depth;
  size_t                   row_bytes;  /* without the filter byte        */
  int                      bpp;        /* bytes a pixel, for the filter  */
  int                      slice_rows; /* the most rows of a slice       */
  PngSlice                *slices;
  int                      n_slices;
  atomic_int               next;
  atomic_int               stop;
} PngSlices;

/* Row `y` as the file stores it: an 8-bit image's own row, or the row
 * converted into `dst`.  An integer image comes at its own depth.  */
static const unsigned char *
png_row_bytes (const Image *img, int depth, int y, unsigned char *dst)
{
  size_t values = (size_t) img->width * img->channels;
  size_t first = (size_t) y * values;

  switch (img->samples)
    {
    case IMAGE_SAMPLES_U8:
      return (const unsigned char *) img->pixels + first;
    case IMAGE_SAMPLES_U16:
      io_row_u16_to_be16 ((const uint16_t *) img->pixels + first, dst,
                          values);
      return dst;
    default:
      if (depth == 16)
        io_row_to_be16 (img->data + first, dst, values);
      else
        io_row_to_u8 (img->data + first, dst, values);
      return dst;
    }
}

/* Filter type 3 (Average) of `row` over `above` (zeros for the first
 * row) into `out`, after its filter byte.  The second loop's bytes do
 * not depend on each other: the compiler vectorizes it.  */
static void
png_filter_average (const unsigned char *restrict row,
                    const unsigned char *restrict above,
                    size_t n, int bpp, unsigned char *restrict out)
{
  out[0] = 3;
  for (size_t i = 0; i < (size_t) bpp && i < n; i++)
    out[1 + i] = (unsigned char) (row[i] - (above[i] >> 1));
  for (size_t i = bpp; i < n; i++)
    out[1 + i] = (unsigned char) (row[i]
                                  - ((unsigned) (row[i - bpp] + above[i])
                                     >> 1));
}

/* Whether `data` has runs enough for Z_RLE (PNG_RUNS_SHARE).  */
static int
png_has_runs (const unsigned char *data, size_t len)
{
  size_t groups = len / 4, runs = 0;

  for (size_t i = 0; i < groups; i++)
    {
      uint32_t word;

      memcpy (&word, data + 4 * i, 4);
      runs += word == (word & 0xff) * 0x01010101u;
    }
  return runs * PNG_RUNS_SHARE > groups;
}

/* Filters the slice's rows into `filtered` (their filter bytes
 * included), using `buffers` (two rows) for converted ones.  */
static void
png_slice_filter (PngSlices *ps, const PngSlice *slice,
                  unsigned char *buffers, unsigned char *filtered)
{
  size_t n = ps->row_bytes;
  int level = ps->options->png_level;
  const unsigned char *above = NULL, *row;
  int next = 0;

  if (level == 1)
    {
      if (slice->first > 0)
        above = png_row_bytes (ps->img, ps->depth, slice->first - 1,
                               buffers);
      else
        above = memset (buffers, 0, n);
      next = 1;
    }
  for (int y = slice->first; y < slice->first + slice->rows; y++)
    {
      unsigned char *out = filtered + (size_t) (y - slice->first) * (n + 1);

      row = png_row_bytes (ps->img, ps->depth, y, buffers + next * n);
      if (level == 1)
        {
          png_filter_average (row, above, n, ps->bpp, out);
          above = row;
          next ^= 1;
        }
      else
        {
          out[0] = 0;
          memcpy (out + 1, row, n);
        }
    }
}

static int
png_slice_deflate (PngSlices *ps, PngSlice *slice, unsigned char *buffers,
                   unsigned char *filtered)
{
  int level = ps->options->png_level;
  int last = slice->first + slice->rows == ps->img->height;
  int strategy = Z_DEFAULT_STRATEGY, ret;
  z_stream z;

  slice->in_len = (size_t) slice->rows * (ps->row_bytes + 1);
  png_slice_filter (ps, slice, buffers, filtered);
  slice->adler = adler32_z (adler32 (0L, Z_NULL, 0), filtered,
                            slice->in_len);
  if (level == 1)
    strategy = png_has_runs (filtered, slice->in_len) ? Z_RLE
                                                      : Z_HUFFMAN_ONLY;
  memset (&z, 0, sizeof z);
  if (deflateInit2 (&z, level, Z_DEFLATED, -15, 8, strategy) != Z_OK)
    return -1;
  /* Room for the worst case and the closing flush.  */
  slice->out_len = deflateBound (&z, (uLong) slice->in_len) + 16;
  slice->out = malloc (slice->out_len);
  if (!slice->out)
    {
      deflateEnd (&z);
      return -1;
    }
  z.next_out = slice->out;
  z.avail_out = (uInt) slice->out_len;
  z.next_in = filtered;
  z.avail_in = (uInt) slice->in_len;
  ret = deflate (&z, last ? Z_FINISH : Z_SYNC_FLUSH);
  slice->out_len -= z.avail_out;
  deflateEnd (&z);
  /* The output has room for the worst case: all input taken, and the
   * flush or the end complete.  */
  if (ret == Z_STREAM_ERROR || z.avail_in != 0
      || (last && ret != Z_STREAM_END) || (!last && z.avail_out == 0))
    return -1;
  /* Keep what was written alone: every slice waits until all are done.  */
  if (slice->out_len > 0)
    {
      unsigned char *kept = realloc (slice->out, slice->out_len);

      if (kept)
        slice->out = kept;
    }
  return 0;
}

static void *
png_slice_worker (void *data)
{
  PngSlices *ps = data;
  /* Two rows for converted ones, then a slice's filtered rows.  */
  unsigned char *buffers = malloc (2 * ps->row_bytes
                                   + (size_t) ps->slice_rows
                                     * (ps->row_bytes + 1));
  unsigned char *filtered = buffers ? buffers + 2 * ps->row_bytes : NULL;

  for (;;)
    {
      int i = atomic_fetch_add (&ps->next, 1);

      if (i >= ps->n_slices)
        break;
      if (!buffers || atomic_load (&ps->stop) || io_cancelled (ps->options)
          || png_slice_deflate (ps, &ps->slices[i], buffers, filtered) < 0)
        {
          ps->slices[i].failed = 1;
          atomic_store (&ps->stop, 1);
        }
    }
  free (buffers);
  return NULL;
}

static int
png_thread_count (const ImageWriteOptions *options, int n_slices)
{
  long cores = sysconf (_SC_NPROCESSORS_ONLN);
  int threads = options->threads > 0 ? options->threads
                                     : (int) (cores > 0 ? cores : 1);

  if (threads > PNG_MAX_THREADS)
    threads = PNG_MAX_THREADS;
  return threads < n_slices ? threads : n_slices;
}

/* Deflates every slice, on up to options->threads threads (the calling
 * one among them).  */
static int
png_slices_run (PngSlices *ps)
{
  pthread_t threads[PNG_MAX_THREADS];
  int wanted = png_thread_count (ps->options, ps->n_slices), started = 0;

  for (int i = 1; i < wanted; i++, started++)
    if (pthread_create (&threads[started], NULL, png_slice_worker, ps) != 0)
      break;
  png_slice_worker (ps);
  for (int i = 0; i < started; i++)
    pthread_join (threads[i], NULL);
  for (int i = 0; i < ps->n_slices; i++)
    if (ps->slices[i].failed)
      return -1;
  return 0;
}

/* Writes `len` bytes of the stream as IDAT chunks of PNG_IDAT_BYTES.  */
static void
png_put_idat (png_structp png, const unsigned char *data, size_t len)
{
  while (len > 0)
    {
      size_t n = len < PNG_IDAT_BYTES ? len : PNG_IDAT_BYTES;

      png_write_chunk (png, (png_const_bytep) "IDAT", data, n);
      data += n;
      len -= n;
    }
}

/* The zlib stream: header, the slices, the Adler-32; then IEND, which
 * png_write_end () would refuse to write after IDATs it did not make
 * (it adds nothing else here: the metadata went before the data).  */
static void
png_put_stream (png_structp png, const PngSlices *ps)
{
  /* CMF: deflate, 32 KiB window; FLG: the fastest level, no
   * dictionary, check bits making CMF * 256 + FLG a multiple of 31.  */
  static const unsigned char header[2] = { 0x78, 0x01 };
  unsigned char trailer[4];
  uLong adler = adler32 (0L, Z_NULL, 0);

  png_put_idat (png, header, sizeof header);
  for (int i = 0; i < ps->n_slices; i++)
    {
      const PngSlice *slice = &ps->slices[i];

      png_put_idat (png, slice->out, slice->out_len);
      adler = adler32_combine (adler, slice->adler, (z_off_t) slice->in_len);
    }
  for (int i = 0; i < 4; i++)
    trailer[i] = (unsigned char) (adler >> (24 - 8 * i));
  png_put_idat (png, trailer, sizeof trailer);
  png_write_chunk (png, (png_const_bytep) "IEND", NULL, 0);
}

static int
png_slices_init (PngSlices *ps, const Image *img,
                 const ImageWriteOptions *options)
{
  int rows;

  memset (ps, 0, sizeof *ps);
  ps->img = img;
  ps->options = options;
  ps->depth = options->depth;
  ps->bpp = img->channels * (options->depth / 8);
  ps->row_bytes = (size_t) img->width * ps->bpp;
  rows = (int) (PNG_SLICE_BYTES / ps->row_bytes);
  if (rows < PNG_SLICE_MIN_ROWS)
    rows = PNG_SLICE_MIN_ROWS;
  if (rows > img->height)
    rows = img->height;
  ps->slice_rows = rows;
  ps->n_slices = (img->height + rows - 1) / rows;
  ps->slices = calloc ((size_t) ps->n_slices, sizeof *ps->slices);
  if (!ps->slices)
    return -1;
  for (int i = 0; i < ps->n_slices; i++)
    {
      ps->slices[i].first = i * rows;
      ps->slices[i].rows = img->height - i * rows < rows
                           ? img->height - i * rows : rows;
    }
  return 0;
}

static void
png_slices_free (PngSlices *ps)
{
  if (!ps->slices)
    return;
  for (int i = 0; i < ps->n_slices; i++)
    free (ps->slices[i].out);
  free (ps->slices);
  ps->slices = NULL;
}

/* `utf8` in Latin-1, newly allocated; NULL when it holds a character
 * Latin-1 has not, or is not UTF-8.  */
static char *
png_latin1_of (const char *utf8)
{
  const unsigned char *in = (const unsigned char *) utf8;
  char *latin1 = malloc (strlen (utf8) + 1), *out = latin1;

  while (latin1 && *in)
    {
      if (*in < 0x80)
        *out++ = (char) *in++;
      else if ((in[0] == 0xc2 || in[0] == 0xc3) && (in[1] & 0xc0) == 0x80)
        {
          *out++ = (char) (((in[0] & 0x03) << 6) | (in[1] & 0x3f));
          in += 2;
        }
      else
        {
          free (latin1);
          return NULL;
        }
    }
  if (latin1)
    *out = '\0';
  return latin1;
}

/* The comment (tEXt when Latin-1 holds it, else iTXt), the XMP packet
 * (iTXt), the resolution (pHYs): before the image data, as GIMP's PNG
 * export writes them.  */
static void
png_set_texts (PngContext *ctx, const Image *img)
{
  png_text texts[2];
  int n = 0;

  memset (texts, 0, sizeof texts);
  if (img->meta.comment)
    {
      ctx->latin1 = png_latin1_of (img->meta.comment);
      texts[n].key = "Comment";
      texts[n].compression = ctx->latin1 ? PNG_TEXT_COMPRESSION_NONE
                                         : PNG_ITXT_COMPRESSION_NONE;
      texts[n].text = ctx->latin1 ? ctx->latin1 : img->meta.comment;
      n++;
    }
  if (img->meta.xmp)
    {
      texts[n].key = "XML:com.adobe.xmp";
      texts[n].compression = PNG_ITXT_COMPRESSION_NONE;
      texts[n].text = img->meta.xmp;
      n++;
    }
  if (n > 0)
    png_set_text (ctx->png, ctx->info, texts, n);
  if (img->meta.x_ppm && img->meta.y_ppm)
    png_set_pHYs (ctx->png, ctx->info, img->meta.x_ppm, img->meta.y_ppm,
                  PNG_RESOLUTION_METER);
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
  png_set_texts (ctx, img);
  png_write_info (ctx->png, ctx->info);
  if (ctx->slices)
    {
      if (png_slices_run (ctx->slices) < 0)
        {
          io_set_error (ctx->error, ctx->error_len, "%s: %s", ctx->path,
                        io_cancelled (options) ? "interrupted"
                                               : "out of memory");
          return -1;
        }
      png_put_stream (ctx->png, ctx->slices);
      return 0;
    }
  for (int y = 0; y < img->height; y++)
    {
      png_write_row (ctx->png, png_row_bytes (img, depth, y, ctx->pixels));
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
                     0, NULL, NULL };
  PngSlices slices;
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
  if (options->png_level <= 1)
    {
      if (png_slices_init (&slices, img, options) < 0)
        {
          png_destroy_write_struct (&ctx.png, &ctx.info);
          io_set_error (error, error_len, "%s: out of memory", path);
          return -1;
        }
      ctx.slices = &slices;
    }
  status = png_write_pixels (&ctx, fp, img, options);
  png_destroy_write_struct (&ctx.png, &ctx.info);
  if (ctx.slices)
    png_slices_free (ctx.slices);
  free (ctx.pixels);
  free (ctx.latin1);
  return status;
}

const ImageCodec image_codec_png =
{
  IMAGE_FORMAT_PNG, "PNG", "png", "libpng " PNG_LIBPNG_VER_STRING
  ", zlib " ZLIB_VERSION, 1, IMAGE_DEPTHS (1, 1, 0), read_png, write_png, 1
};

#else /* !HAVE_LIBPNG */

const ImageCodec image_codec_png =
{
  IMAGE_FORMAT_PNG, "PNG", "png", NULL, 1, IMAGE_DEPTHS (1, 1, 0), NULL,
  NULL, 0
};

#endif /* HAVE_LIBPNG */
