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

#include <math.h>
#include <string.h>

#include <glib.h>

#include "bm3d-intl.h"
#include "bm3d-values.h"

static const gchar *const mode_labels[] =
{
  N_("BM3D (two phases; CBM3D for colour)"),
  N_("BM3D, first phase only (faster)"),
  N_("Non-local means"),
  N_("Isoline")
};

static const gchar *const backend_labels[] =
{
  N_("Automatic (GPU when available)"),
  N_("CPU"),
  N_("CUDA (NVIDIA GPU)")
};

static const gchar *const noise_labels[] =
{
  N_("White noise (sigma)"),
  N_("Camera noise (estimated from the photo)")
};

const gchar *
bm3d_values_mode_label (gint32 mode)
{
  if (mode < BM3D_VALUES_MODE_MIN || mode > BM3D_VALUES_MODE_MAX)
    return "?";
  return _(mode_labels[mode]);
}

const gchar *
bm3d_values_backend_label (gint32 backend)
{
  if (backend < BM3D_VALUES_BACKEND_MIN || backend > BM3D_VALUES_BACKEND_MAX)
    return "?";
  return _(backend_labels[backend]);
}

const gchar *
bm3d_values_noise_label (gint32 noise)
{
  if (noise != BM3D_VALUES_NOISE_WHITE && noise != BM3D_VALUES_NOISE_CAMERA)
    return "?";
  return _(noise_labels[noise]);
}

void
bm3d_values_set_defaults (Bm3dValues *vals)
{
  memset (vals, 0, sizeof *vals);
  vals->version = BM3D_VALUES_VERSION;
  vals->sigma = BM3D_VALUES_SIGMA_DEFAULT;
  vals->mode = BM3D_VALUES_MODE_DEFAULT;
  vals->backend = BM3D_VALUES_BACKEND_DEFAULT;
  vals->fast_preview = TRUE;
  vals->noise = BM3D_VALUES_NOISE_DEFAULT;
  vals->strength = BM3D_VALUES_STRENGTH_DEFAULT;
  vals->chroma_strength = BM3D_VALUES_STRENGTH_DEFAULT;
  /* The expert options stay 0: the published defaults.  */
}

static gboolean
power_of_two (gint v)
{
  return v > 0 && (v & (v - 1)) == 0;
}

static gboolean
strength_ok (gfloat strength)
{
  return isfinite (strength)
         && strength >= BM3D_VALUES_STRENGTH_MIN
         && strength <= BM3D_VALUES_STRENGTH_MAX;
}

/* NULL when `vals` can be run, else a message naming the bad parameter
 * and its allowed range.  The expert options only come from saved
 * values, which may be damaged: they are checked all the same.  */
gchar *
bm3d_values_check (const Bm3dValues *vals)
{
  if (! isfinite (vals->sigma)
      || vals->sigma < BM3D_VALUES_SIGMA_MIN
      || vals->sigma > BM3D_VALUES_SIGMA_MAX)
    return g_strdup_printf (_("sigma must be a number from 0 to 255 (the "
                              "noise level on a 0..255 scale); got %g"),
                            vals->sigma);

  if (vals->mode < BM3D_VALUES_MODE_MIN || vals->mode > BM3D_VALUES_MODE_MAX)
    return g_strdup_printf (_("mode must be 0 (BM3D), 1 (BM3D first phase "
                              "only), 2 (non-local means) or 3 (isoline); "
                              "got %d"), vals->mode);

  if (vals->backend < BM3D_VALUES_BACKEND_MIN
      || vals->backend > BM3D_VALUES_BACKEND_MAX)
    return g_strdup_printf (_("backend must be 0 (automatic), 1 (CPU) or "
                              "2 (CUDA); got %d"), vals->backend);

  if (! strength_ok (vals->strength))
    return g_strdup_printf (_("strength must be a number from 0.25 to 4 "
                              "(the multiple of the estimated camera "
                              "noise to remove); got %g"),
                            (double) vals->strength);

  if (! strength_ok (vals->chroma_strength))
    return g_strdup_printf (_("chroma-strength must be a number from 0.25 "
                              "to 4 (the multiple of the estimated colour "
                              "noise to remove, on top of strength); "
                              "got %g"), (double) vals->chroma_strength);

  if ((vals->noise != BM3D_VALUES_NOISE_WHITE
       && vals->noise != BM3D_VALUES_NOISE_CAMERA)
      || vals->reserved != 0
      || (vals->fast_preview != 0 && vals->fast_preview != 1)
      || (vals->search != 0
          && (vals->search < BM3D_VALUES_SEARCH_MIN
              || vals->search > BM3D_VALUES_SEARCH_MAX
              || vals->search % 2 == 0))
      || (vals->group_max_hard != 0
          && (! power_of_two (vals->group_max_hard)
              || vals->group_max_hard > BM3D_VALUES_GROUP_MAX))
      || (vals->group_max_wiener != 0
          && (! power_of_two (vals->group_max_wiener)
              || vals->group_max_wiener > BM3D_VALUES_GROUP_MAX))
      || vals->step < 0 || vals->step > BM3D_VALUES_STEP_MAX
      || ! isfinite (vals->lambda_3d)
      || (vals->lambda_3d != 0.0f
          && (vals->lambda_3d < BM3D_VALUES_LAMBDA_MIN
              || vals->lambda_3d > BM3D_VALUES_LAMBDA_MAX))
      || ! isfinite (vals->chroma_scale)
      || (vals->chroma_scale != 0.0f
          && (vals->chroma_scale < BM3D_VALUES_CHROMA_MIN
              || vals->chroma_scale > BM3D_VALUES_CHROMA_MAX)))
    return g_strdup (_("the saved expert options are out of range"));

  return NULL;
}
