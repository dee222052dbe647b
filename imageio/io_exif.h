/* BM3D Denoise — EXIF directories, for the TIFF files (not public).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * An image's EXIF block (ImageMetadata.exif) is a little TIFF structure:
 * IFD0 with the camera's descriptive tags and a pointer to the EXIF IFD.
 * In a TIFF file those tags sit in the file's own IFD0 and the EXIF IFD
 * is a directory of the file.  io_tiff.c reads the directory into an
 * ExifIfd and builds the block (exif_block_build), and on writing parses
 * the block (exif_block_parse) and appends its EXIF IFD to the file.  */
#ifndef BM3D_IO_EXIF_H
#define BM3D_IO_EXIF_H

#include <stddef.h>
#include <stdint.h>

#define EXIF_TAG_EXIF_IFD 34665
#define EXIF_MAX_ENTRIES  512
#define EXIF_MAX_BYTES    ((size_t) 4 << 20)

/* One entry; `value` holds `size` bytes (at least 4 allocated) in the
 * byte order of the directory it came from.  */
typedef struct
{
  uint16_t        tag;
  uint16_t        type;
  uint32_t        count;
  uint32_t        size;
  unsigned char  *value;
} ExifEntry;

typedef struct
{
  int        big;               /* big-endian ("MM")                   */
  int        n;
  ExifEntry  entries[EXIF_MAX_ENTRIES];
} ExifIfd;

/* Reads `n` bytes at `offset` of a source; 0, or -1 past its end.  */
typedef int (*ExifReadFunc) (void *source, uint64_t offset, void *buf,
                             size_t n);

/* Reads the directory at `offset` of a source of `size` bytes.  Entries
 * of unknown types or whose values lie outside the source are left out.
 * Returns 0, or -1 when the directory itself is unreadable (`ifd` then
 * holds what was read: free it).  */
int   exif_read_ifd        (ExifReadFunc read, void *source, uint64_t size,
                            int big, uint64_t offset, ExifIfd *ifd);
void  exif_ifd_free        (ExifIfd *ifd);
const ExifEntry *exif_ifd_find (const ExifIfd *ifd, unsigned tag);

/* Appends a copy of an entry (`size` == count x the type's size).  */
int   exif_ifd_add         (ExifIfd *ifd, unsigned tag, unsigned type,
                            uint32_t count, const void *value, size_t size);

/* Is `tag` a pointer to another directory?  */
int   exif_tag_is_pointer  (unsigned tag);

/* The block's IFD0 and EXIF IFD (empty when absent).  Returns -1 when
 * the block is not a TIFF structure at all.  */
int   exif_block_parse     (const unsigned char *block, size_t len,
                            ExifIfd *ifd0, ExifIfd *exif);

/* A block of IFD0 (pointers left out) and the EXIF IFD, in exif->big's
 * byte order; *block NULL when both are empty.  Returns -1 when out of
 * memory.  */
int   exif_block_build     (const ExifIfd *ifd0, const ExifIfd *exif,
                            unsigned char **block, size_t *len);

/* Bytes exif_ifd_write () writes for `ifd` (pointers left out), and the
 * writing itself into `out`, which lies at offset `at` of its file; a
 * non-zero `pointer_value` keeps the EXIF IFD pointer with that value.  */
size_t exif_ifd_size       (const ExifIfd *ifd);
void  exif_ifd_write       (const ExifIfd *ifd, int big, unsigned char *out,
                            uint64_t at, uint32_t pointer_value);

/* Numbers in a directory's byte order.  */
unsigned  exif_get16       (const unsigned char *p, int big);
uint32_t  exif_get32       (const unsigned char *p, int big);
void      exif_put32       (unsigned char *p, uint32_t v, int big);

#endif /* BM3D_IO_EXIF_H */
