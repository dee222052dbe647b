/* Small helpers shared by the engine's and the file readers' unit
 * tests: TAP output, a reproducible noise generator, PSNR and a file's
 * bytes.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef ENGINE_TAP_H
#define ENGINE_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAP_UNUSED __attribute__ ((unused))

static int tap_count;
static int tap_failed;

static void tap_ok (int ok, const char *format, ...)
  __attribute__ ((format (printf, 2, 3)));

static TAP_UNUSED void
tap_ok (int ok, const char *format, ...)
{
  va_list args;

  tap_count++;
  if (!ok)
    tap_failed++;
  printf ("%sok %d - ", ok ? "" : "not ", tap_count);
  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  printf ("\n");
  fflush (stdout);
}

/* tap_ok () for a check with a known failure: when `todo` (why it
 * fails) is not NULL, a failure is printed with " # TODO why" (TAP's
 * expected failure) and not counted.  */
static void tap_ok_todo (int ok, const char *todo, const char *format, ...)
  __attribute__ ((format (printf, 3, 4)));

static TAP_UNUSED void
tap_ok_todo (int ok, const char *todo, const char *format, ...)
{
  va_list args;

  tap_count++;
  if (!ok && !todo)
    tap_failed++;
  printf ("%sok %d - ", ok ? "" : "not ", tap_count);
  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  if (!ok && todo)
    printf (" # TODO %s", todo);
  printf ("\n");
  fflush (stdout);
}

static void tap_diag (const char *format, ...)
  __attribute__ ((format (printf, 1, 2)));

static TAP_UNUSED void
tap_diag (const char *format, ...)
{
  va_list args;

  printf ("# ");
  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  printf ("\n");
}

/* Print the plan at the end ("1..N" may close the stream in TAP).  */
static TAP_UNUSED int
tap_done (void)
{
  printf ("1..%d\n", tap_count);
  return tap_failed ? 1 : 0;
}

/* A progress callback that cancels at its first call.  */
static TAP_UNUSED int
cancel_at_once (double fraction, void *data)
{
  (void) fraction;
  (void) data;
  return 1;
}

/* SplitMix64 with Box-Muller: the same noise on every platform.  */
static TAP_UNUSED uint64_t
rng_next (uint64_t *state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static TAP_UNUSED double
rng_uniform (uint64_t *state)
{
  return ((rng_next (state) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

static TAP_UNUSED double
rng_gauss (uint64_t *state)
{
  double r = sqrt (-2.0 * log (rng_uniform (state)));

  return r * cos (2.0 * M_PI * rng_uniform (state));
}

/* PSNR of `got` against `ref` over n samples (every `step`-th value
 * starting at `first`), `got` clipped to 0..255.  */
static TAP_UNUSED double
psnr_strided (const float *ref, const float *got, size_t n, size_t step,
              size_t first)
{
  double se = 0.0;
  size_t count = 0;

  for (size_t i = first; i < n; i += step)
    {
      double v = got[i] < 0.0f ? 0.0 : got[i] > 255.0f ? 255.0 : got[i];
      double d = v - ref[i];

      se += d * d;
      count++;
    }
  if (se == 0.0)
    return INFINITY;
  return 10.0 * log10 (255.0 * 255.0 * count / se);
}

/* The whole of the file at `path` in a buffer of malloc's (one byte
 * longer, so that an empty file is not NULL), its size in `*len`; NULL
 * and 0 when it cannot be read.  */
static TAP_UNUSED unsigned char *
read_whole_file (const char *path, size_t *len)
{
  FILE *fp = fopen (path, "rb");
  unsigned char *data = NULL;
  long n = -1;

  *len = 0;
  if (!fp)
    return NULL;
  if (fseek (fp, 0, SEEK_END) == 0 && (n = ftell (fp)) >= 0
      && fseek (fp, 0, SEEK_SET) == 0 && (data = malloc ((size_t) n + 1))
      && fread (data, 1, (size_t) n, fp) != (size_t) n)
    {
      free (data);
      data = NULL;
    }
  fclose (fp);
  if (data)
    *len = (size_t) n;
  return data;
}

#endif /* ENGINE_TAP_H */
