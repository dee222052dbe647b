/* BM3D Denoise — what a PNG file holds beside its pixels, chunk by
 * chunk, and whether the project's reader and writer keep all of it.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The GIMP plug-in's batch reads a PNG with imageio instead of GIMP's
 * loader only when nothing GIMP would have kept is lost on the way:
 * the pixels image_read_native () gives as they are (8 or 16 bits,
 * gray or RGB, with or without an alpha channel; no palette, no
 * low-depth gray, no tRNS), the profile and EXIF the reader keeps, the
 * comment, XMP packet and resolution found here.  Everything else
 * (zTXt and compressed iTXt, text of other keywords, a gAMA or cHRM
 * without a profile or sRGB chunk, sBIT, any chunk not listed below)
 * is named in `unkept`, and the batch leaves the file to GIMP.  The
 * chunks are walked with seeks: the image data is never read.  */
#include "config.h"

#include "io_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned
be32 (const unsigned char *p)
{
  return (unsigned) p[0] << 24 | (unsigned) p[1] << 16
         | (unsigned) p[2] << 8 | (unsigned) p[3];
}

/* Text chunks' keywords GIMP's PNG loader reads nothing from.  */
static int
ignored_keyword (const char *key)
{
  static const char *const ignored[] =
  {
    "date:create", "date:modify", "date:timestamp", "Software"
  };
  size_t i;

  for (i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
    if (strcmp (key, ignored[i]) == 0)
      return 1;
  return 0;
}

/* `len` bytes of Latin-1 as UTF-8, or NULL out of memory.  */
static char *
utf8_of_latin1 (const unsigned char *text, size_t len)
{
  char   *utf8 = malloc (2 * len + 1);
  size_t  i, n = 0;

  if (! utf8)
    return NULL;
  for (i = 0; i < len; i++)
    if (text[i] < 0x80)
      utf8[n++] = (char) text[i];
    else
      {
        utf8[n++] = (char) (0xc0 | text[i] >> 6);
        utf8[n++] = (char) (0x80 | (text[i] & 0x3f));
      }
  utf8[n] = '\0';
  return utf8;
}

static void
set_unkept (ImagePngChunks *chunks, const char *name)
{
  if (! chunks->unkept[0])
    memcpy (chunks->unkept, name, 4);
}

/* A tEXt or iTXt chunk's `data`: the comment or the XMP packet kept,
 * ignored keywords passed over, anything else unkept.  Returns 0, or -1
 * out of memory.  */
static int
read_text (ImagePngChunks *chunks, const char *name,
           const unsigned char *data, size_t len)
{
  const unsigned char *end = data + len;
  const unsigned char *key_end = memchr (data, '\0', len);
  const unsigned char *text;
  char               **field = NULL;
  int                  itxt = memcmp (name, "iTXt", 4) == 0;

  if (! key_end)
    {
      set_unkept (chunks, name);
      return 0;
    }
  if (ignored_keyword ((const char *) data))
    return 0;
  if (strcmp ((const char *) data, "Comment") == 0)
    field = &chunks->comment;
  else if (itxt && strcmp ((const char *) data, "XML:com.adobe.xmp") == 0)
    field = &chunks->xmp;
  text = key_end + 1;
  if (itxt)
    {
      /* Compression flag and method, then language and translated
       * keyword, each ended by a zero.  */
      const unsigned char *lang_end, *trans_end;

      if (end - text < 2 || text[0] != 0)
        field = NULL;
      else if (! (lang_end = memchr (text + 2, '\0', end - text - 2))
               || ! (trans_end = memchr (lang_end + 1, '\0',
                                         end - lang_end - 1)))
        field = NULL;
      else
        text = trans_end + 1;
    }
  if (! field)
    {
      set_unkept (chunks, name);
      return 0;
    }
  if (*field)       /* GIMP's loader takes the first comment */
    return 0;
  *field = itxt ? io_copy_text (text, end - text)
                : utf8_of_latin1 (text, end - text);
  return *field ? 0 : -1;
}

int
image_png_chunks (const char *path, ImagePngChunks *chunks, char *error,
                  size_t error_len)
{
  static const unsigned char signature[8] =
  {
    0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'
  };
  unsigned char  head[8];
  unsigned char *data = NULL;
  int            has_profile = 0, has_gamma = 0, ok = 0;
  FILE          *fp;

  memset (chunks, 0, sizeof *chunks);
  fp = fopen (path, "rb");
  if (! fp)
    {
      snprintf (error, error_len, "%s: cannot be opened", path);
      return -1;
    }
  if (fread (head, 1, 8, fp) != 8 || memcmp (head, signature, 8) != 0)
    goto done;
  for (;;)
    {
      unsigned  len;
      char      name[5];
      int       text;

      if (fread (head, 1, 8, fp) != 8)
        goto done;
      len = be32 (head);
      memcpy (name, head + 4, 4);
      name[4] = '\0';
      if (len > IMAGE_MAX_METADATA)
        goto done;
      if (strcmp (name, "IEND") == 0)
        break;
      text = strcmp (name, "tEXt") == 0 || strcmp (name, "iTXt") == 0;
      if (strcmp (name, "IHDR") == 0 || text || strcmp (name, "pHYs") == 0)
        {
          free (data);
          data = malloc (len ? len : 1);
          if (! data || fread (data, 1, len, fp) != len
              || fseek (fp, 4, SEEK_CUR) != 0)
            goto done;
        }
      else if (fseek (fp, (long) len + 4, SEEK_CUR) != 0)
        goto done;

      if (strcmp (name, "IHDR") == 0 && len >= 10)
        {
          chunks->bit_depth = data[8];
          chunks->colour_type = data[9];
        }
      else if (text)
        {
          if (read_text (chunks, name, data, len) < 0)
            goto done;
        }
      else if (strcmp (name, "pHYs") == 0 && len == 9 && data[8] == 1)
        {
          chunks->x_ppm = be32 (data);
          chunks->y_ppm = be32 (data + 4);
        }
      else if (strcmp (name, "iCCP") == 0 || strcmp (name, "sRGB") == 0)
        has_profile = 1;
      else if (strcmp (name, "gAMA") == 0 || strcmp (name, "cHRM") == 0)
        has_gamma = 1;
      else if (strcmp (name, "IDAT") != 0 && strcmp (name, "eXIf") != 0
               && strcmp (name, "tIME") != 0 && strcmp (name, "bKGD") != 0
               && strcmp (name, "pHYs") != 0)
        set_unkept (chunks, name);
    }
  if (has_gamma && ! has_profile)
    set_unkept (chunks, "gAMA");
  if (chunks->colour_type == 3 || chunks->bit_depth < 8)
    set_unkept (chunks, chunks->colour_type == 3 ? "PLTE" : "IHDR");
  ok = 1;

done:
  free (data);
  fclose (fp);
  if (ok)
    return 0;
  image_png_chunks_free (chunks);
  snprintf (error, error_len, "%s: not a complete PNG file, or out of "
            "memory", path);
  return -1;
}

void
image_png_chunks_free (ImagePngChunks *chunks)
{
  free (chunks->comment);
  free (chunks->xmp);
  chunks->comment = chunks->xmp = NULL;
}
