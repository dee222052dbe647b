/* BM3D Denoise for GIMP — the procedure's names and parameters.
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
#ifndef BM3D_VALUES_H
#define BM3D_VALUES_H

#include <glib.h>

#define PLUG_IN_PROC    "plug-in-bm3d-denoise"
#define PLUG_IN_BINARY  "bm3d-denoise-gimp"
#define PLUG_IN_ROLE    "gimp-bm3d-denoise"

/* Each parameter's range and default sit together, so the PDB
 * description, the validation and the dialog cannot disagree.  */
#define BM3D_VALUES_SIGMA_MIN       0.0    /* 0 = estimate (not yet)      */
#define BM3D_VALUES_SIGMA_MAX       255.0
#define BM3D_VALUES_SIGMA_DEFAULT   25.0
#define BM3D_VALUES_MODE_MIN        0      /* BM3D_MODE_BM3D              */
#define BM3D_VALUES_MODE_MAX        3      /* BM3D_MODE_ISOLINE           */
#define BM3D_VALUES_MODE_DEFAULT    0
#define BM3D_VALUES_BACKEND_MIN     0      /* BM3D_BACKEND_AUTO           */
#define BM3D_VALUES_BACKEND_MAX     2      /* BM3D_BACKEND_CUDA           */
#define BM3D_VALUES_BACKEND_DEFAULT 0

/* Bump when the layout or meaning of Bm3dValues changes: values saved
 * by another version are then ignored instead of misread.  */
#define BM3D_VALUES_VERSION  1

/* Saved between runs with gimp_set_data () as raw bytes (24, no
 * implicit padding): version, mode, backend, reserved, sigma.  */
typedef struct
{
  guint32  version;
  gint32   mode;
  gint32   backend;
  guint32  reserved;
  gdouble  sigma;      /* noise deviation on the 0..255 scale */
} Bm3dValues;

G_STATIC_ASSERT (sizeof (Bm3dValues) == 24);

/* Translated names of the choices, for the dialog and messages.  */
const gchar *bm3d_values_mode_label    (gint32 mode);
const gchar *bm3d_values_backend_label (gint32 backend);

#endif /* BM3D_VALUES_H */
