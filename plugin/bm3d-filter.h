/* BM3D Denoise for GIMP — GIMP 3's "Keep editable": the procedure's
 * settings as the GEGL operation bm3d:denoise, a non-destructive filter
 * on the layer, instead of changed pixels.
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
#ifndef BM3D_FILTER_H
#define BM3D_FILTER_H

#include <libgimp/gimp.h>

#include "bm3d-values.h"

/* The procedure's last arguments: "keep-editable" (off by default, so
 * that a script's call without it changes the pixels as before) and the
 * dialog's own choice, an auxiliary argument that starts on.  */
void      bm3d_filter_add_arguments (GimpProcedure       *procedure);

/* Before the dialog: whether to offer it the choice (GIMP has the
 * operation), with `*keep_editable` the dialog's last choice there.  */
gboolean  bm3d_filter_offer         (GimpProcedureConfig *config,
                                     gboolean            *keep_editable);

/* After the dialog's OK: the choice into the config GIMP saves.  */
void      bm3d_filter_to_config     (gboolean             keep_editable,
                                     GimpProcedureConfig *config);

/* Adds `vals` to `drawable` as the filter bm3d:denoise, which GIMP
 * renders, saves in the XCF and lets the user edit, switch off or merge
 * later.  The filter has the main settings (noise, strengths, sigma,
 * mode, backend); the expert options stay at their defaults there.
 * FALSE, with `error` set, when the operation is not installed.  */
gboolean  bm3d_filter_attach        (GimpDrawable        *drawable,
                                     const Bm3dValues    *vals,
                                     GError             **error);

#endif /* BM3D_FILTER_H */
