/* BM3D Denoise — small helpers shared by the command line and the
 * benchmarks.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

uint64_t
splitmix64 (uint64_t *state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* (0, 1]: never 0, so the logarithm of Box-Muller stays finite.  */
static double
splitmix_uniform (uint64_t *state)
{
  return ((splitmix64 (state) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

void
add_gaussian_noise (float *v, size_t n, double sigma, uint64_t seed)
{
  uint64_t state = seed;

  for (size_t i = 0; i < n; i += 2)
    {
      double r = sqrt (-2.0 * log (splitmix_uniform (&state)));
      double a = 2.0 * M_PI * splitmix_uniform (&state);

      v[i] += (float) (sigma * r * cos (a));
      if (i + 1 < n)
        v[i + 1] += (float) (sigma * r * sin (a));
    }
}

double
psnr_of_squared_error (double squared_error, size_t samples)
{
  if (squared_error == 0.0)
    return INFINITY;
  return 10.0 * log10 (255.0 * 255.0 / (squared_error / samples));
}

bm3d_image
engine_view (const Image *img)
{
  bm3d_image view;

  view.width = img->width;
  view.height = img->height;
  view.channels = img->channels;
  view.has_alpha = img->has_alpha;
  view.stride = (size_t) img->width * img->channels;
  view.data = img->data;
  return view;
}

/* ---- the modes' expert options ----------------------------------------- */

static int
parse_odd (const char *text, int lo, int hi, int *value)
{
  char *end;
  long v;

  errno = 0;
  v = strtol (text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || v < lo || v > hi
      || v % 2 == 0)
    return -1;
  *value = (int) v;
  return 0;
}

int
engine_option_takes_value (const char *name)
{
  return strcmp (name, "nlm-gaussian") != 0;
}

bm3d_mode
engine_option_mode (const char *name)
{
  return strncmp (name, "nlm-", 4) == 0 ? BM3D_MODE_NLM : BM3D_MODE_ISOLINE;
}

int
engine_option_set (bm3d_params *params, const char *name, const char *value,
                   char *error, size_t error_len)
{
  if (strcmp (name, "isoline-variant") == 0)
    {
      int v = bm3d_isoline_variant_parse (value);

      if (v < 0)
        {
          snprintf (error, error_len, "unknown isoline variant '%s' "
                    "(expected hybrid or pipd)", value);
          return -1;
        }
      params->isoline.variant = (bm3d_isoline_variant) v;
      return 1;
    }
  if (strcmp (name, "nlm-patch") == 0)
    {
      if (parse_odd (value, 1, 15, &params->nlm.patch) < 0)
        {
          snprintf (error, error_len, "invalid NL-means patch side '%s': "
                    "expected an odd number from 1 to 15", value);
          return -1;
        }
      return 1;
    }
  if (strcmp (name, "nlm-search") == 0)
    {
      if (parse_odd (value, 3, 71, &params->nlm.search) < 0)
        {
          snprintf (error, error_len, "invalid NL-means search window '%s': "
                    "expected an odd number from 3 to 71", value);
          return -1;
        }
      return 1;
    }
  if (strcmp (name, "nlm-h") == 0)
    {
      char *end;
      double h;

      errno = 0;
      h = strtod (value, &end);
      if (end == value || *end != '\0' || errno != 0 || !isfinite (h)
          || h <= 0.0 || h > 10000.0)
        {
          snprintf (error, error_len, "invalid NL-means h '%s': expected a "
                    "number above 0", value);
          return -1;
        }
      params->nlm.h = (float) h;
      return 1;
    }
  if (strcmp (name, "nlm-gaussian") == 0)
    {
      params->nlm.gaussian = 1;
      return 1;
    }
  return 0;
}
