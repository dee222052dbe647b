/* BM3D Denoise — where a batch's outputs go (see batch_paths.h).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "batch_paths.h"
#include "output_file.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *
format_string (const char *format, ...)
{
  va_list args;
  char *s;
  int n;

  va_start (args, format);
  n = vsnprintf (NULL, 0, format, args);
  va_end (args);
  if (n < 0 || !(s = malloc ((size_t) n + 1)))
    return NULL;
  va_start (args, format);
  vsnprintf (s, (size_t) n + 1, format, args);
  va_end (args);
  return s;
}

/* The output path of `input`: in the output folder, or beside it, with
 * the suffix before the extension.  */
char *
output_path (const BatchOptions *opt, const char *input)
{
  const char *base = path_base (input);
  const char *dot = strrchr (base, '.');
  int stem = dot && dot != base ? (int) (dot - base) : (int) strlen (base);
  const char *ext = base + stem;
  const char *suffix = opt->suffix ? opt->suffix : "";
  char *dir = opt->output_dir ? strdup (opt->output_dir)
                              : path_folder (input);
  char *path;

  if (!dir)
    return NULL;
  path = format_string ("%s%s%.*s%s%s", dir,
                        dir[0] && dir[strlen (dir) - 1] == '/' ? "" : "/",
                        stem, base, suffix, ext);
  free (dir);
  return path;
}

int
compare_file_ids (const void *a, const void *b)
{
  const FileId *x = a, *y = b;

  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  if (x->ino != y->ino)
    return x->ino < y->ino ? -1 : 1;
  return x->index - y->index;
}

int
compare_output_keys (const void *a, const void *b)
{
  const OutputKey *x = a, *y = b;
  int c = strcmp (x->key, y->key);

  return c ? c : x->index - y->index;
}

/* The first input that is the file (dev, ino), or NULL.  */
const FileId *
find_input (const FileId *inputs, int n, dev_t dev, ino_t ino)
{
  int lo = 0, hi = n;

  while (lo < hi)
    {
      int mid = lo + (hi - lo) / 2;

      if (inputs[mid].dev < dev
          || (inputs[mid].dev == dev && inputs[mid].ino < ino))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < n && inputs[lo].dev == dev && inputs[lo].ino == ino
         ? &inputs[lo] : NULL;
}

/* The output's folder resolved, plus its name: two spellings of one
 * place give one key.  */
char *
output_key (const char *output)
{
  char *dir = path_folder (output);
  char *real = dir ? realpath (dir, NULL) : NULL;
  char *key = real ? format_string ("%s/%s", real, path_base (output))
                   : strdup (output);

  free (dir);
  free (real);
  return key;
}
