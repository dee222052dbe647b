/* BM3D Denoise — the engine's options in one table (bm3d-options.h).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * This program is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
 * GNU General Public License for more details.
 *
 * You should have received a copy of the GNU General Public License
 * along with this program.  If not, see <https://www.gnu.org/licenses/>.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bm3d-options.h"
#include "bm3d/bm3d_tables.h"

/* Marks a string for xgettext (po/POTFILES.in lists this file); the
 * front ends translate it, the engine never does.  */
#define N_(text) text

#define CHOICES(table) table, (int) (sizeof table / sizeof table[0])

static const bm3d_option_choice mode_choices[] =
{
  { "bm3d",      BM3D_MODE_BM3D,
    N_("BM3D (two phases; CBM3D for colour)") },
  { "bm3d-fast", BM3D_MODE_BM3D_FAST, N_("BM3D, first phase only (faster)") },
  { "nlm",       BM3D_MODE_NLM,       N_("Non-local means") },
  { "isoline",   BM3D_MODE_ISOLINE,   N_("Isoline") }
};

static const bm3d_option_choice backend_choices[] =
{
  { "auto", BM3D_BACKEND_AUTO, N_("Automatic (GPU when available)") },
  { "cpu",  BM3D_BACKEND_CPU,  N_("CPU") },
  { "cuda", BM3D_BACKEND_CUDA, N_("CUDA (NVIDIA GPU)") }
};

static const bm3d_option_choice noise_choices[] =
{
  { "white",  BM3D_NOISE_WHITE,   N_("White noise (sigma)") },
  { "camera", BM3D_NOISE_PROFILE,
    N_("Camera noise (estimated from the photo)") }
};

static const bm3d_option_choice variant_choices[] =
{
  { "hybrid", BM3D_ISOLINE_HYBRID, N_("Hybrid") },
  { "pipd",   BM3D_ISOLINE_PIPD,   N_("PI-PD alone") }
};

/* Rows in bm3d_option_id's order.  The strengths' 0, which
 * bm3d_denoise () takes as 1 (a zeroed bm3d_params), is no value a user
 * gives.  Where a help text states the range,
 * tests/engine-options checks that it states this row's.  */
const bm3d_option bm3d_options[BM3D_OPTION_COUNT] =
{
  [BM3D_OPTION_SIGMA] =
  { "sigma", BM3D_OPTION_REAL, BM3D_SIGMA_MIN_EXCLUSIVE, BM3D_SIGMA_MAX,
    1, 0, 25.0,
    N_("White noise: its standard deviation on the 0..255 scale, above 0 "
       "and at most 255"),
    NULL, 0 },
  [BM3D_OPTION_MODE] =
  { "mode", BM3D_OPTION_CHOICE, BM3D_MODE_BM3D, BM3D_MODE_ISOLINE,
    0, 0, BM3D_MODE_BM3D,
    N_("bm3d: two phases, CBM3D for colour; bm3d-fast: the first phase "
       "only; nlm: non-local means; isoline"),
    CHOICES (mode_choices) },
  [BM3D_OPTION_BACKEND] =
  { "backend", BM3D_OPTION_CHOICE, BM3D_BACKEND_AUTO, BM3D_BACKEND_CUDA,
    0, 0, BM3D_BACKEND_AUTO,
    N_("auto: an NVIDIA GPU through CUDA when one is usable, else the "
       "CPU; cpu; cuda"),
    CHOICES (backend_choices) },
  [BM3D_OPTION_NOISE] =
  { "noise", BM3D_OPTION_CHOICE, BM3D_NOISE_WHITE, BM3D_NOISE_PROFILE,
    0, 0, BM3D_NOISE_WHITE,
    N_("white: white noise of one sigma; camera: a photograph's noise "
       "profile, measured on it"),
    CHOICES (noise_choices) },
  [BM3D_OPTION_STRENGTH] =
  { "strength", BM3D_OPTION_REAL, BM3D_STRENGTH_MIN, BM3D_STRENGTH_MAX,
    0, 0, 1.0,
    N_("Camera noise: the multiple of the noise measured to remove, 0.25 "
       "to 4 (1: as measured)"),
    NULL, 0 },
  [BM3D_OPTION_CHROMA_STRENGTH] =
  { "chroma-strength", BM3D_OPTION_REAL, BM3D_STRENGTH_MIN,
    BM3D_STRENGTH_MAX, 0, 0, 1.0,
    N_("Camera noise: the multiple for the colour noise, on top of "
       "strength, 0.25 to 4 (1: as measured)"),
    NULL, 0 },

  [BM3D_OPTION_SEARCH] =
  { "search", BM3D_OPTION_ODD, 9, 75, 0, 1, 0,
    N_("Side of the search window, odd, 9 to 75; 0: the default"),
    NULL, 0 },
  [BM3D_OPTION_GROUP_MAX_HARD] =
  { "group-max-hard", BM3D_OPTION_POW2, 1, BM3D_GROUP_MAX, 0, 1, 0,
    N_("Most patches in a group, first phase, a power of two up to 32; "
       "0: the default"),
    NULL, 0 },
  [BM3D_OPTION_GROUP_MAX_WIENER] =
  { "group-max-wiener", BM3D_OPTION_POW2, 1, BM3D_GROUP_MAX, 0, 1, 0,
    N_("Most patches in a group, Wiener phase, a power of two up to 32; "
       "0: the default"),
    NULL, 0 },
  [BM3D_OPTION_STEP] =
  { "step", BM3D_OPTION_INT, 1, 8, 0, 1, 0,
    N_("Distance between reference patches, 1 to 8; 0: the default"),
    NULL, 0 },
  [BM3D_OPTION_LAMBDA_3D] =
  { "lambda-3d", BM3D_OPTION_REAL, 1.0, 5.0, 0, 1, 0,
    N_("The first phase's threshold in sigmas, 1 to 5; 0: the default"),
    NULL, 0 },
  [BM3D_OPTION_CHROMA_SCALE] =
  { "chroma-scale", BM3D_OPTION_REAL, 0.25, 4.0, 0, 1, 0,
    N_("The colour planes' noise level as a multiple of the luminance's, "
       "0.25 to 4; 0: the default"),
    NULL, 0 },

  [BM3D_OPTION_NLM_PATCH] =
  { "nlm-patch", BM3D_OPTION_ODD, 1, 15, 0, 1, 0,
    N_("NL-means patch side, odd, 1 to 15; 0: the default"),
    NULL, 0 },
  [BM3D_OPTION_NLM_SEARCH] =
  { "nlm-search", BM3D_OPTION_ODD, 3, 71, 0, 1, 0,
    N_("NL-means search window side, odd, 3 to 71; 0: the default"),
    NULL, 0 },
  [BM3D_OPTION_NLM_H] =
  { "nlm-h", BM3D_OPTION_REAL, 1e-3, 1e4, 0, 1, 0,
    N_("NL-means filtering parameter on the 0..255 scale; 0: the "
       "default"),
    NULL, 0 },
  [BM3D_OPTION_NLM_GAUSSIAN] =
  { "nlm-gaussian", BM3D_OPTION_FLAG, 0, 1, 0, 0, 0,
    N_("NL-means: Gaussian-weighted patch distance"),
    NULL, 0 },

  [BM3D_OPTION_ISOLINE_VARIANT] =
  { "isoline-variant", BM3D_OPTION_CHOICE, BM3D_ISOLINE_HYBRID,
    BM3D_ISOLINE_PIPD, 0, 0, BM3D_ISOLINE_HYBRID,
    N_("hybrid: an edge detector picks mean, half-plane or PI-PD; pipd: "
       "PI-PD alone"),
    CHOICES (variant_choices) },
  [BM3D_OPTION_ISOLINE_LENGTH] =
  { "isoline-length", BM3D_OPTION_INT, 2, 64, 0, 1, 0,
    N_("Most pixels on an isoline, 2 to 64; 0: the default"),
    NULL, 0 },
  [BM3D_OPTION_ISOLINE_SEGMENT] =
  { "isoline-segment", BM3D_OPTION_INT, 2, 16, 0, 1, 0,
    N_("Pixels of an isoline's segment, 2 to 16; 0: the default"),
    NULL, 0 },
  [BM3D_OPTION_ISOLINE_T_MAX] =
  { "isoline-t-max", BM3D_OPTION_REAL, 1e-3, 1e3, 0, 1, 0,
    N_("Isoline: the test's threshold for lengthening; 0: the default"),
    NULL, 0 },
  [BM3D_OPTION_ISOLINE_T2_MAX] =
  { "isoline-t2-max", BM3D_OPTION_REAL, 1e-3, 1e3, 0, 1, 0,
    N_("Isoline, hybrid: the edge detector's threshold; 0: the default"),
    NULL, 0 }
};

const bm3d_option *
bm3d_option_find (const char *name)
{
  for (int i = 0; name && i < BM3D_OPTION_COUNT; i++)
    if (strcmp (bm3d_options[i].name, name) == 0)
      return &bm3d_options[i];
  return NULL;
}

static int
is_power_of_two (double v)
{
  int exponent;

  return v >= 1.0 && v == floor (v) && frexp (v, &exponent) == 0.5;
}

int
bm3d_option_accepts (const bm3d_option *option, double value)
{
  if (!isfinite (value))
    return 0;
  if (value == 0.0 && option->zero_is_default)
    return 1;
  if (option->type == BM3D_OPTION_CHOICE)
    return bm3d_option_choice_nick (option, (int) value) != NULL
           && value == floor (value);
  if (value < option->min || value > option->max
      || (option->min_open && value == option->min))
    return 0;
  switch (option->type)
    {
    case BM3D_OPTION_INT:
    case BM3D_OPTION_FLAG:
      return value == floor (value);
    case BM3D_OPTION_ODD:
      return value == floor (value) && fmod (value, 2.0) == 1.0;
    case BM3D_OPTION_POW2:
      return is_power_of_two (value);
    default:
      return 1;
    }
}

int
bm3d_option_range_text (const bm3d_option *option, char *text,
                        size_t text_len)
{
  size_t used = 0;
  int n;

  if (option->type != BM3D_OPTION_CHOICE)
    return snprintf (text, text_len, option->min_open
                     ? "above %g and at most %g" : "%g to %g",
                     option->min, option->max);
  if (text_len)
    text[0] = '\0';
  for (int i = 0; i < option->n_choices; i++)
    {
      const char *sep = i == 0 ? ""
                        : i == option->n_choices - 1 ? " or " : ", ";

      n = snprintf (text + (used < text_len ? used : text_len),
                    used < text_len ? text_len - used : 0, "%s%s", sep,
                    option->choices[i].nick);
      used += (size_t) n;
    }
  return (int) used;
}

int
bm3d_option_choice_parse (const bm3d_option *option, const char *nick)
{
  for (int i = 0; nick && i < option->n_choices; i++)
    if (strcmp (option->choices[i].nick, nick) == 0)
      return option->choices[i].value;
  return -1;
}

static const bm3d_option_choice *
choice_of (const bm3d_option *option, int value)
{
  for (int i = 0; i < option->n_choices; i++)
    if (option->choices[i].value == value)
      return &option->choices[i];
  return NULL;
}

const char *
bm3d_option_choice_nick (const bm3d_option *option, int value)
{
  const bm3d_option_choice *choice = choice_of (option, value);

  return choice ? choice->nick : NULL;
}

const char *
bm3d_option_choice_label (const bm3d_option *option, int value)
{
  const bm3d_option_choice *choice = choice_of (option, value);

  return choice ? choice->label : NULL;
}
