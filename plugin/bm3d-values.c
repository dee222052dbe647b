/* BM3D Denoise for GIMP — the procedure's parameters: defaults,
 * validation and the choices' labels, shared by the procedure and the
 * dialog.
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

#include <string.h>

#include <glib.h>

#include "bm3d-intl.h"
#include "bm3d-values.h"

const gchar *
bm3d_values_choice_label (const bm3d_option *option,
                          gint32             value)
{
  const gchar *label = bm3d_option_choice_label (option, value);

  return label ? _(label) : "?";
}

const gchar *
bm3d_values_mode_label (gint32 mode)
{
  return bm3d_values_choice_label (BM3D_VALUES_OPTION (MODE), mode);
}

const gchar *
bm3d_values_noise_label (gint32 noise)
{
  return bm3d_values_choice_label (BM3D_VALUES_OPTION (NOISE), noise);
}

gboolean
bm3d_values_read_clipped (const Bm3dValues *vals)
{
  return vals->mode == BM3D_MODE_NLM
         || vals->noise == BM3D_VALUES_NOISE_CAMERA;
}

void
bm3d_values_set_defaults (Bm3dValues *vals)
{
  memset (vals, 0, sizeof *vals);
  vals->version = BM3D_VALUES_VERSION;
  vals->sigma = BM3D_VALUES_OPTION (SIGMA)->default_value;
  vals->mode = (gint32) BM3D_VALUES_OPTION (MODE)->default_value;
  vals->backend = (gint32) BM3D_VALUES_OPTION (BACKEND)->default_value;
  vals->fast_preview = TRUE;
  vals->noise = BM3D_VALUES_NOISE_DEFAULT;
  vals->strength = (gfloat) BM3D_VALUES_OPTION (STRENGTH)->default_value;
  vals->chroma_strength =
    (gfloat) BM3D_VALUES_OPTION (CHROMA_STRENGTH)->default_value;
  /* The expert options stay 0: the published defaults.  */
}

#define ACCEPTS(id, value) bm3d_option_accepts (BM3D_VALUES_OPTION (id), \
                                                 value)

/* The saved expert options, and the dialog's own state.  */
static gboolean
expert_options_ok (const Bm3dValues *vals)
{
  return ACCEPTS (NOISE, vals->noise)
         && vals->reserved == 0
         && (vals->fast_preview == 0 || vals->fast_preview == 1)
         && ACCEPTS (SEARCH, vals->search)
         && ACCEPTS (GROUP_MAX_HARD, vals->group_max_hard)
         && ACCEPTS (GROUP_MAX_WIENER, vals->group_max_wiener)
         && ACCEPTS (STEP, vals->step)
         && ACCEPTS (LAMBDA_3D, vals->lambda_3d)
         && ACCEPTS (CHROMA_SCALE, vals->chroma_scale);
}

/* NULL when `vals` can be run, else a message naming the bad parameter
 * and its allowed range.  The expert options only come from saved
 * values, which may be damaged: they are checked all the same.  */
gchar *
bm3d_values_check (const Bm3dValues *vals)
{
  const bm3d_option *sigma = BM3D_VALUES_OPTION (SIGMA);
  const bm3d_option *strength = BM3D_VALUES_OPTION (STRENGTH);
  const bm3d_option *chroma = BM3D_VALUES_OPTION (CHROMA_STRENGTH);

  /* Sigma 0: estimate it first.  */
  if (vals->sigma != 0.0 && ! bm3d_option_accepts (sigma, vals->sigma))
    return g_strdup_printf (_("sigma must be a number from 0 to %g (the "
                              "noise level on a 0..255 scale); got %g"),
                            sigma->max, vals->sigma);

  if (! ACCEPTS (MODE, vals->mode))
    return g_strdup_printf (_("mode must be 0 (BM3D), 1 (BM3D first phase "
                              "only), 2 (non-local means) or 3 (isoline); "
                              "got %d"), vals->mode);

  if (! ACCEPTS (BACKEND, vals->backend))
    return g_strdup_printf (_("backend must be 0 (automatic), 1 (CPU) or "
                              "2 (CUDA); got %d"), vals->backend);

  if (! bm3d_option_accepts (strength, vals->strength))
    return g_strdup_printf (_("strength must be a number from %g to %g "
                              "(the multiple of the estimated camera "
                              "noise to remove); got %g"),
                            strength->min, strength->max,
                            (double) vals->strength);

  if (! bm3d_option_accepts (chroma, vals->chroma_strength))
    return g_strdup_printf (_("chroma-strength must be a number from %g "
                              "to %g (the multiple of the estimated colour "
                              "noise to remove, on top of strength); "
                              "got %g"), chroma->min, chroma->max,
                            (double) vals->chroma_strength);

  if (! expert_options_ok (vals))
    return g_strdup (_("the saved expert options are out of range"));

  return NULL;
}
