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
 * file's precision, the scale the engine works on; on request, 8- and
 * 16-bit files keep their integers (ImageSamples).  The format follows
 * the file name's extension (any case):
 *
 *   .png              8 or 16 bits; gray, gray+alpha, RGB, RGBA; palette
 *                     and low-depth gray images are expanded (libpng)
 *   .jpg .jpeg        8-bit gray or colour (libjpeg-turbo); CMYK is
 *                     refused
 *   .tif .tiff        8/16-bit integer or 32-bit float, gray or RGB, with
 *                     or without alpha, strips or tiles (libtiff); other
 *                     layouts (palette, bilevel, CMYK, YCbCr) are read
 *                     as 8-bit RGB(A) through libtiff's RGBA interface
 *   .pgm .ppm .pnm    binary Netpbm, P5 (gray) or P6 (RGB); maxval up to
 *                     255 is read as 8 bits, above as 16 bits (big-endian)
 *   .pfm              Portable Float Map, Pf (gray) or PF (RGB); samples
 *                     are stored on the usual 0..1 scale (1.0 = white),
 *                     byte order given by the sign of the scale field,
 *                     rows from bottom to top
 *
 * Integer formats are rounded and clipped on writing; PFM and float TIFF
 * keep the values as they are, out-of-range ones included.  Netpbm, PFM
 * and JPEG files have no alpha: an alpha channel is dropped when writing
 * them.  The ICC profile and the EXIF block travel with the image as
 * opaque bytes between the formats that hold them (see ImageMetadata).
 *
 * One file per format (io_png.c, io_jpeg.c, io_tiff.c, io_pnm.c) behind
 * the table in image_io.c; io_codec.h is what they share.  */
#ifndef BM3D_IMAGE_IO_H
#define BM3D_IMAGE_IO_H

#include <stdatomic.h>
#include <stddef.h>

/* Images larger than this many pixels are refused before any allocation:
 * it keeps every size computation far from overflow.  */
#define IMAGE_MAX_PIXELS ((size_t) 1 << 28)
#define IMAGE_MAX_SIDE   (1 << 20)

/* Metadata blocks larger than this are dropped rather than copied.  */
#define IMAGE_MAX_METADATA ((size_t) 16 << 20)

typedef enum
{
  IMAGE_FORMAT_UNKNOWN = 0,
  IMAGE_FORMAT_PNG,
  IMAGE_FORMAT_PNM,
  IMAGE_FORMAT_PFM,
  IMAGE_FORMAT_JPEG,
  IMAGE_FORMAT_TIFF
} ImageFormat;

/* What identifies the photo, kept byte for byte.
 *   icc   the ICC profile: JPEG APP2 "ICC_PROFILE" markers (joined),
 *         PNG iCCP (inflated), TIFF tag 34675
 *   exif  the EXIF block as JPEG's APP1 holds it after "Exif\0\0" and
 *         PNG's eXIf chunk holds it: a little TIFF structure ("II*\0" or
 *         "MM\0*", IFD0, the EXIF IFD).  A TIFF file holds the same as
 *         its own descriptive tags and EXIF directory: io_tiff.c turns
 *         one into the other (io_exif.c), entries copied byte for byte.  */
typedef struct
{
  unsigned char *icc;
  size_t         icc_len;
  unsigned char *exif;
  size_t         exif_len;
  size_t         icc_dropped;   /* a profile over IMAGE_MAX_METADATA was
                                   in the file and not kept: its size,
                                   or 1 when unknown                    */
  size_t         exif_dropped;  /* the same for the EXIF block          */
  /* Written to PNG and JPEG and filled by no reader: the GIMP
   * plug-in's batch sets them from the image it saves.
   *   xmp      the XMP packet (UTF-8): PNG iTXt "XML:com.adobe.xmp",
   *            JPEG APP1 "http://ns.adobe.com/xap/1.0/"
   *   comment  UTF-8 text: PNG tEXt "Comment" in Latin-1, or iTXt when
   *            the text has characters Latin-1 has not; JPEG COM as it
   *            is
   *   x_ppm, y_ppm  the resolution in pixels a metre (pHYs); 0 none  */
  char          *xmp;
  char          *comment;
  unsigned       x_ppm;
  unsigned       y_ppm;
} ImageMetadata;

/* What an image's buffer holds.  Floats are what every reader gives and
 * what most of the command works on; the file's own integers are given
 * only to those who ask (image_read_native), so that a photo read,
 * denoised by bm3d_denoise_pixels and written at its own depth never
 * takes a float copy four (or two) times its size.  */
typedef enum
{
  IMAGE_SAMPLES_FLOAT = 0,  /* `data`: floats on the 0..255 scale        */
  IMAGE_SAMPLES_U8,         /* `pixels`: uint8_t, as the file held them  */
  IMAGE_SAMPLES_U16         /* `pixels`: uint16_t, native byte order     */
} ImageSamples;

typedef struct
{
  int            width;
  int            height;
  int            channels;  /* 1..4, interleaved, no row padding          */
  int            has_alpha; /* the last channel is alpha                  */
  int            depth;     /* precision of the source: 8, 16 or 32 (float) */
  float         *data;      /* the samples when IMAGE_SAMPLES_FLOAT, else
                               NULL                                       */
  ImageSamples   samples;
  void          *pixels;    /* the samples when integer, else NULL        */
  ImageMetadata  meta;
} Image;

/* How a file is written.  image_write_options_init () gives the
 * defaults.  */
typedef struct
{
  int                depth;      /* 8 or 16 (integer), 32 (float TIFF);
                                    formats take the nearest they hold  */
  int                quality;    /* JPEG quality 1..100 (default 95)    */
  int                png_level;  /* zlib level 0..9 of PNG and of TIFF's
                                    Deflate (default IMAGE_PNG_LEVEL)   */
  const atomic_int  *cancel;     /* when set and non-zero, stop: the
                                    write fails with "interrupted"      */
  int                threads;    /* threads that compress a PNG at
                                    levels 0 and 1; 0 = every core (the
                                    file is the same for any number)    */
  int                jpeg_h_samp; /* a colour JPEG's luma sampling
                                    factors (chroma 1x1), 1 or 2 each;
                                    0: 1x1 from quality 90, else 2x2    */
  int                jpeg_v_samp;
  int                jpeg_optimize; /* optimized Huffman tables         */
} ImageWriteOptions;

#define IMAGE_JPEG_QUALITY 95
#define IMAGE_PNG_LEVEL    1

void         image_write_options_init (ImageWriteOptions *options);

/* The format of `path`, from its extension.  */
ImageFormat  image_format_for_path  (const char *path);
const char  *image_format_name      (ImageFormat format);

/* Whether `format` can be read and written by this build (PNG, JPEG and
 * TIFF need their libraries), and what it holds.  */
int          image_format_supported (ImageFormat format);
int          image_format_has_alpha (ImageFormat format);

/* The depth `format` stores for a request of `depth` (8, 16 or 32).  */
int          image_format_depth     (ImageFormat format, int depth);

/* The library behind `format` in this build ("libjpeg-turbo 2.1.5"),
 * or "not built in".  */
const char  *image_format_library   (ImageFormat format);

/* Explains in `error` why `path` cannot be read or written (unknown
 * extension, library not built in).  Returns 0 when it can.  */
int          image_check_path       (const char *path, char *error,
                                     size_t error_len);

/* Allocate a zero-filled image; returns 0, or -1 with `error` set.  */
/* Can `format` hold an image of this size?  Checked before the work,
 * not found out after it: JPEG takes at most 65,500 pixels a side.
 * Returns 0, or -1 with a one-line reason naming `path`.  */
int          image_check_size_for   (const char *path, ImageFormat format,
                                     int width, int height, char *error,
                                     size_t error_len);

/* What the read of `img` from `path` left out (an ICC profile or EXIF
 * block over IMAGE_MAX_METADATA), said on one line in `text`; empty when
 * nothing was.  */
void         image_read_notes       (const char *path, const Image *img,
                                     char *text, size_t text_len);

/* Replaces the control characters of `text` (C0, DEL, and C1 in UTF-8)
 * by '?', in place: text from a file may reach a terminal only so.  */
void         image_text_sanitize    (char *text);

int          image_alloc            (Image *img, int width, int height,
                                     int channels, int has_alpha, int depth,
                                     char *error, size_t error_len);

/* The same with `samples` of any type (image_alloc: floats).  */
int          image_alloc_samples    (Image *img, int width, int height,
                                     int channels, int has_alpha, int depth,
                                     ImageSamples samples, char *error,
                                     size_t error_len);

/* Bytes one sample of `samples` takes.  */
size_t       image_sample_size      (ImageSamples samples);

/* Turns an integer image into floats (a new buffer, the integers freed),
 * the values the file's reader would have given: v for 8 bits, v * 255 /
 * 65535 for 16.  Nothing to do for floats.  Returns 0, or -1 out of
 * memory with `img` unchanged.  */
int          image_to_float         (Image *img);

/* The float samples of `img` as image_to_float () would make them, in a
 * new buffer (the caller frees it), `img` left as it is: for an 8- or
 * 16-bit image read as its integers whose floats are wanted beside
 * them.  NULL out of memory, or when `img` holds floats already.  */
float       *image_float_copy       (const Image *img);

void         image_free             (Image *img);

/* Copy `from`'s metadata into `to` (which must have none).  Returns 0,
 * or -1 when out of memory.  */
int          image_copy_metadata    (Image *to, const Image *from);

/* Set one piece of `img`'s metadata to a copy of `data` (NULL or empty:
 * none); a block over IMAGE_MAX_METADATA is left out and counted as
 * dropped.  Returns 0, or -1 when out of memory.  */
int          image_set_icc          (Image *img, const void *data,
                                     size_t len);
int          image_set_exif         (Image *img, const void *data,
                                     size_t len);
int          image_set_xmp          (Image *img, const char *xmp);
int          image_set_comment      (Image *img, const char *comment);

/* Read `path` into `img`.  Returns 0, or -1 with a one-line `error`
 * (which names the file) and `img` left empty.  */
int          image_read             (const char *path, Image *img,
                                     char *error, size_t error_len);

/* The same, but an 8- or 16-bit file's samples are kept as its
 * integers (IMAGE_SAMPLES_U8 or _U16) where the format's reader can
 * give them exactly: PNG (palettes and low-depth gray expanded to 8
 * bits), JPEG, TIFF of 8- or 16-bit samples in the layouts read sample
 * by sample and without premultiplied alpha, Netpbm of maxval 255 or
 * 65535.  Any other file is read into floats, as image_read () reads
 * it: check img->samples.  */
int          image_read_native      (const char *path, Image *img,
                                     char *error, size_t error_len);

/* The same, decoding as `flags` say:
 *   IMAGE_READ_JPEG_FLOAT_DCT  JPEG's inverse DCT in floating point
 *                              (libjpeg's JDCT_FLOAT), as GIMP's JPEG
 *                              loader decodes, so that the GIMP plug-in
 *                              reads the pixels GIMP would  */
#define IMAGE_READ_JPEG_FLOAT_DCT 1
int          image_read_native_with (const char *path, Image *img,
                                     int flags, char *error,
                                     size_t error_len);

/* What a file's header says, before any decoding (image_probe.c).  */
typedef struct
{
  ImageFormat  format;
  int          width;
  int          height;
  int          colour_channels;  /* 1 gray or 3 colour; alpha not counted */
} ImageProbe;

/* The size of the image in `path` from its header alone: PNG's IHDR,
 * JPEG's frame header, TIFF's first directory (libtiff), the Netpbm and
 * PFM headers.  Reads a few hundred bytes and allocates nothing by the
 * file's numbers.  Returns 0, or -1 with a one-line `error` (not an
 * image of its extension's format, truncated, too large, unknown
 * format); a file that probes may still fail to read.  */
int          image_probe            (const char *path, ImageProbe *probe,
                                     char *error, size_t error_len);

/* What a PNG file holds beside its pixels (png_chunks.c): its IHDR's
 * colour type and bit depth, the first comment (tEXt or iTXt "Comment",
 * as UTF-8), the XMP packet (iTXt "XML:com.adobe.xmp"), the resolution
 * (pHYs in metres; 0 none), and the first chunk whose content neither
 * these nor image_read_native () keep (`unkept`, "" when none).  */
typedef struct
{
  int       colour_type;
  int       bit_depth;
  char     *comment;
  char     *xmp;
  unsigned  x_ppm;
  unsigned  y_ppm;
  char      unkept[5];
} ImagePngChunks;

/* Walks the chunks of the PNG `path` without reading its image data.
 * Returns 0, or -1 with a one-line `error` (not a complete PNG file,
 * out of memory) and nothing to free.  */
int          image_png_chunks       (const char *path,
                                     ImagePngChunks *chunks, char *error,
                                     size_t error_len);
void         image_png_chunks_free  (ImagePngChunks *chunks);

/* What a JPEG file's headers say beside its pixels (jpeg_markers.c): the
 * quality its tables were scaled to from the standard's (1..100; 0 when
 * they are other tables), its components (1 or 3), each one's sampling
 * factors and table, the first comment (COM, as stored) and XMP packet
 * (APP1), and the first marker whose content neither these nor the
 * reader keep, or a sampling the writer cannot make (`unkept`, "" when
 * none).  */
typedef struct
{
  int    quality;
  int    components;
  int    h[3];
  int    v[3];
  int    table[3];
  char  *comment;
  char  *xmp;
  char   unkept[16];
} ImageJpegMarkers;

/* Reads the headers of the JPEG `path` up to its first scan.  Returns
 * 0, or -1 with a one-line `error` and nothing to free.  */
int          image_jpeg_markers     (const char *path, ImageJpegMarkers *m,
                                     char *error, size_t error_len);
void         image_jpeg_markers_free (ImageJpegMarkers *m);

/* The orientation (EXIF tag 274, 1..8) an EXIF block as ImageMetadata
 * holds it gives: 1 when it has none, 0 when the block or the tag cannot
 * be read (io_exif.c).  */
int          image_exif_orientation (const unsigned char *block,
                                     size_t len);

/* Write `img` to `path` with `depth` bits per sample (8 or 16) for
 * integer formats; PFM ignores `depth`.  A file that could not be written
 * completely is removed.  Returns 0, or -1 with `error` set.  */
int          image_write            (const char *path, const Image *img,
                                     int depth, char *error,
                                     size_t error_len);

/* The same with every option, in the format `format` whatever `path`'s
 * name (IMAGE_FORMAT_UNKNOWN: from the name).  */
int          image_write_with       (const char *path, ImageFormat format,
                                     const Image *img,
                                     const ImageWriteOptions *options,
                                     char *error, size_t error_len);

/* Round and clip the samples in place exactly as image_write () would
 * store them in `format` at `depth` bits, so that measurements made in
 * memory match the file.  An integer image stored at its own depth is
 * left as it is; at another depth it becomes floats first (and stays
 * integer, to be converted by the writer, if memory runs out).  */
void         image_quantize         (Image *img, ImageFormat format,
                                     int depth);

#endif /* BM3D_IMAGE_IO_H */
