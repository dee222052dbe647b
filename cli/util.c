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
#include "bm3d-options.h"

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

int
engine_option_number (bm3d_option_id id, const char *what, const char *also,
                      const char *text, double *value, char *error,
                      size_t error_len)
{
  const bm3d_option *option = &bm3d_options[id];
  char range[200];
  char *end;

  errno = 0;
  *value = strtod (text, &end);
  /* 0, where it stands for the default, is for the engine's callers:
   * the command asks for a value.  */
  if (end != text && *end == '\0' && errno == 0
      && !(*value == 0.0 && option->zero_is_default)
      && bm3d_option_accepts (option, *value))
    return 0;
  bm3d_option_range_text (option, range, sizeof range);
  snprintf (error, error_len, "invalid %s '%s': expected %s %s%s%s", what,
            text, option->type == BM3D_OPTION_ODD ? "an odd number"
                                                  : "a number",
            option->min_open ? "" : "from ", range, also);
  return -1;
}

int
engine_option_choice (bm3d_option_id id, const char *what, const char *text,
                      char *error, size_t error_len)
{
  const bm3d_option *option = &bm3d_options[id];
  int choice = bm3d_option_choice_parse (option, text);
  char names[200];

  if (choice >= 0)
    return choice;
  bm3d_option_range_text (option, names, sizeof names);
  snprintf (error, error_len, "unknown %s '%s' (expected %s)", what, text,
            names);
  return -1;
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
  const bm3d_option *variant = &bm3d_options[BM3D_OPTION_ISOLINE_VARIANT];
  double v;

  if (strcmp (name, variant->name) == 0)
    {
      int choice = engine_option_choice (BM3D_OPTION_ISOLINE_VARIANT,
                                         "isoline variant", value, error,
                                         error_len);

      if (choice < 0)
        return -1;
      params->isoline.variant = (bm3d_isoline_variant) choice;
      return 1;
    }
  if (strcmp (name, "nlm-patch") == 0)
    {
      if (engine_option_number (BM3D_OPTION_NLM_PATCH, "NL-means patch side",
                                "", value, &v, error, error_len) < 0)
        return -1;
      params->nlm.patch = (int) v;
      return 1;
    }
  if (strcmp (name, "nlm-search") == 0)
    {
      if (engine_option_number (BM3D_OPTION_NLM_SEARCH,
                                "NL-means search window", "", value, &v,
                                error, error_len) < 0)
        return -1;
      params->nlm.search = (int) v;
      return 1;
    }
  if (strcmp (name, "nlm-h") == 0)
    {
      if (engine_option_number (BM3D_OPTION_NLM_H, "NL-means h", "", value,
                                &v, error, error_len) < 0)
        return -1;
      params->nlm.h = (float) v;
      return 1;
    }
  if (strcmp (name, "nlm-gaussian") == 0)
    {
      params->nlm.gaussian = 1;
      return 1;
    }
  return 0;
}

const char *
cli_layout_name (const Image *img)
{
  static const char *const names[] = { "gray", "gray+alpha", "RGB", "RGBA" };

  return names[img->channels - 1];
}

void
cli_run_line (char *buf, size_t len, const char *file, const Image *img,
              int depth, const bm3d_params *params, int sigma_estimated,
              bm3d_backend used)
{
  char noise[96];

  if (params->noise == BM3D_NOISE_PROFILE)
    snprintf (noise, sizeof noise,
              "camera noise, strength %g, chroma strength %g",
              params->strength > 0.0f ? (double) params->strength : 1.0,
              params->chroma_strength > 0.0f
              ? (double) params->chroma_strength : 1.0);
  else
    snprintf (noise, sizeof noise, "sigma %.2f%s", (double) params->sigma,
              sigma_estimated ? " (estimated)" : "");
  snprintf (buf, len, "%s: %dx%d %s, %d bits, mode %s, %s, backend %s%s",
            file, img->width, img->height, cli_layout_name (img), depth,
            bm3d_mode_name (params->mode), noise, bm3d_backend_name (used),
            used == BM3D_BACKEND_CPU ? "" : " (GPU)");
}
