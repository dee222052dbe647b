/* BM3D Denoise — what a JPEG file says beside its pixels, marker by
 * marker: the quality its quantization tables were made at, its chroma
 * sampling, its comment and XMP packet, and whether the project's reader
 * and writer keep all of it.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The GIMP plug-in's batch writes a JPEG result itself only when it can
 * write what GIMP's export would: at the quality GIMP's loader estimates
 * and with the input's sampling.  The quality is given here only when
 * the tables are exactly libjpeg's standard tables scaled to a quality
 * (jpeg_set_quality with baseline tables, as libjpeg, GIMP and most
 * programs write them): then GIMP's estimate is that quality and a file
 * written at it has the same tables.  Other tables give 0, and the batch
 * leaves the file to GIMP.  Markers the reader and writer do not keep
 * (IPTC's APP13, extended XMP, other applications' APPn, a second
 * comment) are named in `unkept`.  Only the headers up to the first scan
 * are read.  */
#include "config.h"

#include "io_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XMP_HEADER     "http://ns.adobe.com/xap/1.0/"
#define XMP_HEADER_LEN 29     /* with its zero */

/* The JPEG standard's example tables (Annex K), in natural order.  */
static const unsigned char std_luma[64] =
{
  16, 11, 10, 16, 24, 40, 51, 61,   12, 12, 14, 19, 26, 58, 60, 55,
  14, 13, 16, 24, 40, 57, 69, 56,   14, 17, 22, 29, 51, 87, 80, 62,
  18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
  49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99
};
static const unsigned char std_chroma[64] =
{
  17, 18, 24, 47, 99, 99, 99, 99,   18, 21, 26, 66, 99, 99, 99, 99,
  24, 26, 56, 99, 99, 99, 99, 99,   47, 66, 99, 99, 99, 99, 99, 99,
  99, 99, 99, 99, 99, 99, 99, 99,   99, 99, 99, 99, 99, 99, 99, 99,
  99, 99, 99, 99, 99, 99, 99, 99,   99, 99, 99, 99, 99, 99, 99, 99
};
/* The natural position of the k-th coefficient in zigzag order, the
 * order a DQT segment stores.  */
static const unsigned char natural[64] =
{
   0,  1,  8, 16,  9,  2,  3, 10, 17, 24, 32, 25, 18, 11,  4,  5,
  12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13,  6,  7, 14, 21, 28,
  35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
  58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63
};

/* Whether `table` (natural order) is `std` scaled to `quality` as
 * jpeg_set_quality (quality, TRUE) scales it.  */
static int
is_scaled (const unsigned *table, const unsigned char *std, int quality)
{
  long scale = quality < 50 ? 5000 / quality : 200 - quality * 2;

  for (int i = 0; i < 64; i++)
    {
      long v = (std[i] * scale + 50) / 100;

      if (v <= 0)
        v = 1;
      if (v > 255)
        v = 255;
      if ((unsigned) v != table[i])
        return 0;
    }
  return 1;
}

static void
set_unkept (ImageJpegMarkers *m, const char *what)
{
  if (! m->unkept[0])
    snprintf (m->unkept, sizeof m->unkept, "%s", what);
}

/* One segment's `data` of `len` bytes.  Returns 0, or -1 out of memory.  */
static int
read_segment (ImageJpegMarkers *m, int marker, const unsigned char *data,
              size_t len, unsigned tables[4][64], int *have)
{
  if (marker == 0xdb)                           /* DQT */
    {
      size_t at = 0;

      while (at < len)
        {
          int precision = data[at] >> 4, id = data[at] & 15;

          if (id > 3 || precision != 0 || len - at < 65)
            {
              set_unkept (m, "DQT");
              return 0;
            }
          for (int k = 0; k < 64; k++)
            tables[id][natural[k]] = data[at + 1 + k];
          have[id] = 1;
          at += 65;
        }
    }
  else if (marker == 0xc0 || marker == 0xc1 || marker == 0xc2)  /* SOF */
    {
      if (len < 6 || data[5] < 1 || data[5] > 3 || len < 6 + 3u * data[5])
        {
          set_unkept (m, "SOF");
          return 0;
        }
      m->components = data[5];
      for (int c = 0; c < m->components; c++)
        {
          m->h[c] = data[6 + 3 * c + 1] >> 4;
          m->v[c] = data[6 + 3 * c + 1] & 15;
          m->table[c] = data[6 + 3 * c + 2];
        }
    }
  else if (marker >= 0xc3 && marker <= 0xcf && marker != 0xc4
           && marker != 0xc8 && marker != 0xcc)
    set_unkept (m, "SOF");                      /* lossless, arithmetic */
  else if (marker == 0xfe)                      /* COM */
    {
      if (m->comment)
        set_unkept (m, "COM");
      else if (! (m->comment = io_copy_text (data, len)))
        return -1;
    }
  else if (marker == 0xe1)                      /* APP1 */
    {
      if (len >= 6 && memcmp (data, "Exif\0\0", 6) == 0)
        ;                                       /* the reader's */
      else if (len >= XMP_HEADER_LEN && ! m->xmp
               && memcmp (data, XMP_HEADER, XMP_HEADER_LEN) == 0)
        {
          if (! (m->xmp = io_copy_text (data + XMP_HEADER_LEN,
                                        len - XMP_HEADER_LEN)))
            return -1;
        }
      else
        set_unkept (m, "APP1");
    }
  else if (marker == 0xe0 || marker == 0xe2 || marker == 0xee)
    ;                         /* JFIF, ICC_PROFILE (the reader's), Adobe */
  else if (marker >= 0xe3 && marker <= 0xef)
    set_unkept (m, "APPn");
  return 0;
}

int
image_jpeg_markers (const char *path, ImageJpegMarkers *m, char *error,
                    size_t error_len)
{
  unsigned       tables[4][64];
  int            have[4] = { 0, 0, 0, 0 };
  unsigned char  head[4];
  unsigned char *data = NULL;
  int            ok = 0;
  FILE          *fp;

  memset (m, 0, sizeof *m);
  fp = fopen (path, "rb");
  if (! fp)
    {
      snprintf (error, error_len, "%s: cannot be opened", path);
      return -1;
    }
  if (fread (head, 1, 2, fp) != 2 || head[0] != 0xff || head[1] != 0xd8)
    goto done;
  for (;;)
    {
      size_t len;
      int    marker;

      if (fread (head, 1, 2, fp) != 2 || head[0] != 0xff)
        goto done;
      marker = head[1];
      while (marker == 0xff)                    /* fill bytes */
        {
          int c = getc (fp);

          if (c == EOF)
            goto done;
          marker = c;
        }
      if (marker == 0xda)                       /* SOS: the data begins */
        break;
      if (marker == 0x01 || (marker >= 0xd0 && marker <= 0xd7))
        continue;
      if (fread (head, 1, 2, fp) != 2)
        goto done;
      len = (size_t) head[0] << 8 | head[1];
      if (len < 2)
        goto done;
      len -= 2;
      free (data);
      data = malloc (len ? len : 1);
      if (! data || fread (data, 1, len, fp) != len
          || read_segment (m, marker, data, len, tables, have) < 0)
        goto done;
    }
  if (m->components == 0)
    goto done;
  if (m->components == 3
      && ! (m->h[1] == 1 && m->v[1] == 1 && m->h[2] == 1 && m->v[2] == 1))
    set_unkept (m, "sampling");
  /* libjpeg's tables: the luma table 0, the chroma table 1.  */
  if (m->table[0] == 0 && have[0]
      && (m->components == 1
          || (m->table[1] == 1 && m->table[2] == 1 && have[1])))
    for (int q = 1; q <= 100 && ! m->quality; q++)
      if (is_scaled (tables[0], std_luma, q)
          && (m->components == 1 || is_scaled (tables[1], std_chroma, q)))
        m->quality = q;
  ok = 1;

done:
  free (data);
  fclose (fp);
  if (ok)
    return 0;
  image_jpeg_markers_free (m);
  snprintf (error, error_len, "%s: not a JPEG file whose headers read, or "
            "out of memory", path);
  return -1;
}

void
image_jpeg_markers_free (ImageJpegMarkers *m)
{
  free (m->comment);
  free (m->xmp);
  m->comment = m->xmp = NULL;
}
