/* BM3D Denoise — the EXIF block between its own little TIFF structure
 * (as JPEG's APP1 and PNG's eXIf hold it) and a TIFF file, where EXIF is
 * not a block but a directory of the file (see io_exif.h).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Entries are copied as raw bytes in the byte order they came in; the
 * TIFF writer opens its file in the block's byte order, so nothing is
 * swapped.  Everything read is bounds-checked: a damaged EXIF part is
 * dropped, never an error of the image.  */
#include "config.h"

#include "io_exif.h"
#include "image_io.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of one value of each TIFF field type (0: unknown type).  */
static unsigned
type_size (unsigned type)
{
  static const unsigned char sizes[] = { 0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8,
                                         4, 8, 4 };

  return type < sizeof sizes ? sizes[type] : 0;
}

unsigned
exif_get16 (const unsigned char *p, int big)
{
  return big ? (unsigned) p[0] << 8 | p[1] : (unsigned) p[1] << 8 | p[0];
}

uint32_t
exif_get32 (const unsigned char *p, int big)
{
  return big ? (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16
               | (uint32_t) p[2] << 8 | p[3]
             : (uint32_t) p[3] << 24 | (uint32_t) p[2] << 16
               | (uint32_t) p[1] << 8 | p[0];
}

static void
put16 (unsigned char *p, unsigned v, int big)
{
  p[big ? 0 : 1] = (unsigned char) (v >> 8);
  p[big ? 1 : 0] = (unsigned char) v;
}

void
exif_put32 (unsigned char *p, uint32_t v, int big)
{
  for (int i = 0; i < 4; i++)
    p[big ? i : 3 - i] = (unsigned char) (v >> (24 - 8 * i));
}

/* ---- reading a directory ------------------------------------------------ */

int
exif_read_ifd (ExifReadFunc read, void *source, uint64_t size, int big,
               uint64_t offset, ExifIfd *ifd)
{
  unsigned char head[2];
  unsigned n;
  size_t total = 0;

  memset (ifd, 0, sizeof *ifd);
  ifd->big = big;
  if (offset > size || size - offset < 2 || read (source, offset, head, 2) < 0)
    return -1;
  n = exif_get16 (head, big);
  if (n > EXIF_MAX_ENTRIES || (size - offset - 2) / 12 < n)
    return -1;
  for (unsigned i = 0; i < n; i++)
    {
      unsigned char e[12];
      ExifEntry *entry;
      unsigned type, unit;
      uint32_t count;
      uint64_t bytes;

      if (read (source, offset + 2 + 12 * (uint64_t) i, e, 12) < 0)
        return -1;
      type = exif_get16 (e + 2, big);
      count = exif_get32 (e + 4, big);
      unit = type_size (type);
      bytes = (uint64_t) count * unit;
      if (unit == 0 || count == 0 || bytes > EXIF_MAX_BYTES
          || total + bytes > EXIF_MAX_BYTES)
        continue;               /* unknown or absurd: left out */
      entry = &ifd->entries[ifd->n];
      entry->tag = (uint16_t) exif_get16 (e, big);
      entry->type = (uint16_t) type;
      entry->count = count;
      entry->size = (uint32_t) bytes;
      entry->value = malloc (bytes > 4 ? bytes : 4);
      if (!entry->value)
        return -1;
      ifd->n++;
      if (bytes <= 4)
        memcpy (entry->value, e + 8, 4);
      else
        {
          uint32_t at = exif_get32 (e + 8, big);

          if (at > size || size - at < bytes
              || read (source, at, entry->value, (size_t) bytes) < 0)
            {
              /* A value outside the data: this entry alone is lost.  */
              free (entry->value);
              ifd->n--;
              continue;
            }
        }
      total += bytes;
    }
  return 0;
}

void
exif_ifd_free (ExifIfd *ifd)
{
  for (int i = 0; i < ifd->n; i++)
    free (ifd->entries[i].value);
  ifd->n = 0;
}

const ExifEntry *
exif_ifd_find (const ExifIfd *ifd, unsigned tag)
{
  for (int i = 0; i < ifd->n; i++)
    if (ifd->entries[i].tag == tag)
      return &ifd->entries[i];
  return NULL;
}

int
exif_ifd_add (ExifIfd *ifd, unsigned tag, unsigned type, uint32_t count,
              const void *value, size_t size)
{
  ExifEntry *entry;

  if (ifd->n == EXIF_MAX_ENTRIES || size > EXIF_MAX_BYTES
      || size != (size_t) count * type_size (type))
    return -1;
  entry = &ifd->entries[ifd->n];
  entry->value = calloc (size > 4 ? size : 4, 1);
  if (!entry->value)
    return -1;
  memcpy (entry->value, value, size);
  entry->tag = (uint16_t) tag;
  entry->type = (uint16_t) type;
  entry->count = count;
  entry->size = (uint32_t) size;
  ifd->n++;
  return 0;
}

/* ---- the block ---------------------------------------------------------- */

typedef struct
{
  const unsigned char *data;
  size_t               len;
} Memory;

static int
read_memory (void *source, uint64_t offset, void *buf, size_t n)
{
  const Memory *m = source;

  if (offset > m->len || m->len - offset < n)
    return -1;
  memcpy (buf, m->data + offset, n);
  return 0;
}

int
exif_block_parse (const unsigned char *block, size_t len, ExifIfd *ifd0,
                  ExifIfd *exif)
{
  Memory m = { block, len };
  const ExifEntry *pointer;
  int big;

  memset (ifd0, 0, sizeof *ifd0);
  memset (exif, 0, sizeof *exif);
  if (len < 8)
    return -1;
  if (memcmp (block, "II*\0", 4) == 0)
    big = 0;
  else if (memcmp (block, "MM\0*", 4) == 0)
    big = 1;
  else
    return -1;
  exif->big = big;
  if (exif_read_ifd (read_memory, &m, len, big, exif_get32 (block + 4, big),
                     ifd0) < 0)
    {
      exif_ifd_free (ifd0);
      return -1;
    }
  pointer = exif_ifd_find (ifd0, EXIF_TAG_EXIF_IFD);
  if (pointer && pointer->size == 4
      && exif_read_ifd (read_memory, &m, len, big,
                        exif_get32 (pointer->value, big), exif) < 0)
    exif_ifd_free (exif);
  exif->big = big;
  return 0;
}

/* Bytes of a directory written at `at`: entries, next-IFD link, and the
 * values that do not fit an entry, each at an even offset.  */
static size_t
ifd_bytes (const ExifIfd *ifd, int skip_pointers)
{
  size_t bytes = 2 + 4;

  for (int i = 0; i < ifd->n; i++)
    {
      const ExifEntry *e = &ifd->entries[i];

      if (skip_pointers && exif_tag_is_pointer (e->tag))
        continue;
      bytes += 12;
      if (e->size > 4)
        bytes += e->size + (e->size & 1);
    }
  return bytes;
}

static int
compare_entries (const void *a, const void *b)
{
  const ExifEntry *x = *(const ExifEntry *const *) a;
  const ExifEntry *y = *(const ExifEntry *const *) b;

  return (int) x->tag - (int) y->tag;
}

size_t
exif_ifd_size (const ExifIfd *ifd)
{
  return ifd_bytes (ifd, 1);
}

void
exif_ifd_write (const ExifIfd *ifd, int big, unsigned char *out,
                uint64_t at, uint32_t pointer_value)
{
  const ExifEntry *sorted[EXIF_MAX_ENTRIES];
  int n = 0;
  unsigned char *p;
  uint64_t values;

  for (int i = 0; i < ifd->n; i++)
    if (!exif_tag_is_pointer (ifd->entries[i].tag)
        || (ifd->entries[i].tag == EXIF_TAG_EXIF_IFD && pointer_value))
      sorted[n++] = &ifd->entries[i];
  qsort (sorted, (size_t) n, sizeof *sorted, compare_entries);
  put16 (out, (unsigned) n, big);
  p = out + 2;
  values = at + 2 + 12 * (uint64_t) n + 4;
  for (int i = 0; i < n; i++, p += 12)
    {
      const ExifEntry *e = sorted[i];

      put16 (p, e->tag, big);
      put16 (p + 2, e->type, big);
      exif_put32 (p + 4, e->count, big);
      if (e->tag == EXIF_TAG_EXIF_IFD)
        exif_put32 (p + 8, pointer_value, big);
      else if (e->size <= 4)
        {
          memset (p + 8, 0, 4);
          memcpy (p + 8, e->value, e->size);
        }
      else
        {
          exif_put32 (p + 8, (uint32_t) values, big);
          memcpy (out + (values - at), e->value, e->size);
          if (e->size & 1)
            out[values - at + e->size] = 0;
          values += e->size + (e->size & 1);
        }
    }
  exif_put32 (p, 0, big);
}

int
exif_block_build (const ExifIfd *ifd0, const ExifIfd *exif,
                  unsigned char **block, size_t *len)
{
  ExifIfd top = *ifd0;
  size_t size0, size1, total;
  unsigned char *out;
  int big = exif->big;
  unsigned char zero[4] = { 0 };

  *block = NULL;
  *len = 0;
  if (ifd0->n == 0 && exif->n == 0)
    return 0;
  /* IFD0 points to the EXIF IFD when there is one.  */
  if (exif->n > 0 && !exif_ifd_find (ifd0, EXIF_TAG_EXIF_IFD))
    {
      if (top.n == EXIF_MAX_ENTRIES)
        return -1;
      top.entries[top.n].tag = EXIF_TAG_EXIF_IFD;
      top.entries[top.n].type = 4;
      top.entries[top.n].count = 1;
      top.entries[top.n].size = 4;
      top.entries[top.n].value = zero;
      top.n++;
    }
  size0 = ifd_bytes (&top, 1) + (exif->n > 0 ? 12 : 0);
  size1 = exif->n > 0 ? ifd_bytes (exif, 1) : 0;
  total = 8 + size0 + size1;
  out = calloc (total, 1);
  if (!out)
    return -1;
  memcpy (out, big ? "MM\0*" : "II*\0", 4);
  exif_put32 (out + 4, 8, big);
  exif_ifd_write (&top, big, out + 8, 8,
                  exif->n > 0 ? (uint32_t) (8 + size0) : 0);
  if (exif->n > 0)
    exif_ifd_write (exif, big, out + 8 + size0, 8 + size0, 0);
  *block = out;
  *len = total;
  return 0;
}

int
exif_tag_is_pointer (unsigned tag)
{
  /* EXIF, GPS and interoperability directories: offsets into a file,
   * meaningless once copied.  Only the EXIF one is rebuilt.  */
  return tag == EXIF_TAG_EXIF_IFD || tag == 34853 || tag == 40965;
}

int
image_exif_orientation (const unsigned char *block, size_t len)
{
  ExifIfd         *ifd0 = malloc (sizeof *ifd0);
  ExifIfd         *exif = malloc (sizeof *exif);
  const ExifEntry *entry;
  int              orientation = 0;

  if (ifd0 && exif && exif_block_parse (block, len, ifd0, exif) == 0)
    {
      entry = exif_ifd_find (ifd0, 0x0112);
      if (! entry)
        orientation = 1;
      else if (entry->type == 3 && entry->count == 1)
        orientation = (int) exif_get16 (entry->value, exif->big);
      exif_ifd_free (ifd0);
      exif_ifd_free (exif);
    }
  free (ifd0);
  free (exif);
  return orientation;
}
