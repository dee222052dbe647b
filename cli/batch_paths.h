/* BM3D Denoise — where a batch's outputs go: each input's output path,
 * and what tells two spellings of one file apart, so that the batch
 * (plan_jobs in batch.c) refuses an output that is an input or that two
 * inputs share.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef BM3D_BATCH_PATHS_H
#define BM3D_BATCH_PATHS_H

#include <sys/types.h>

#include "batch.h"

/* An input file as the file system knows it, and its place in the
 * batch.  */
typedef struct
{
  dev_t  dev;
  ino_t  ino;
  int    index;
} FileId;

/* An output's key (output_key ()) and the input it is for.  */
typedef struct
{
  char  *key;
  int    index;
} OutputKey;

/* A new string, printf style, or NULL out of memory.  */
char          *format_string       (const char *format, ...)
  __attribute__ ((format (printf, 1, 2)));

/* The output path of `input` (a new string, or NULL out of memory).  */
char          *output_path         (const BatchOptions *opt,
                                    const char *input);

/* qsort orders: by file (device, inode), then by place; by key, then
 * by place.  */
int            compare_file_ids    (const void *a, const void *b);
int            compare_output_keys (const void *a, const void *b);

/* In `inputs` sorted by compare_file_ids, the first that is the file
 * (dev, ino), or NULL.  */
const FileId  *find_input          (const FileId *inputs, int n, dev_t dev,
                                    ino_t ino);

/* A new string naming `output` whatever the spelling of its folder.  */
char          *output_key          (const char *output);

#endif /* BM3D_BATCH_PATHS_H */
