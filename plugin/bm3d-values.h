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

#include "bm3d.h"
#include "bm3d-options.h"

#define PLUG_IN_PROC    "plug-in-bm3d-denoise"
#define PLUG_IN_BINARY  "bm3d-denoise-gimp"
#define PLUG_IN_ROLE    "gimp-bm3d-denoise"
/* The camera-noise procedure, registered by the same executable.  */
#define PLUG_IN_CAMERA_PROC  "plug-in-bm3d-denoise-camera"
/* A list of files in one plug-in process (bm3d-files.c), white and
 * camera noise, called by the Script-Fu batch.  */
#define PLUG_IN_FILES_PROC         "plug-in-bm3d-denoise-files"
#define PLUG_IN_CAMERA_FILES_PROC  "plug-in-bm3d-denoise-camera-files"
/* The GEGL operation (bm3d-gegl-op.c): GIMP 3 keeps it on a layer as a
 * non-destructive filter.  */
#define BM3D_GEGL_OP  "bm3d:denoise"

/* Each parameter's range and default come from the engine's table of
 * options (bm3d-options.h), so the PDB description, the validation,
 * the dialog and the command cannot disagree.  What the plug-in adds:
 * sigma 0 asks for an estimate first, and the dialog opens on camera
 * noise.  The noise model's values are the engine's bm3d_noise_kind:
 * white noise of one sigma, or camera noise (a noise profile estimated
 * from the photo), scaled by a strength and, on the colour planes, a
 * chroma strength.  */
#define BM3D_VALUES_NOISE_WHITE     BM3D_NOISE_WHITE
#define BM3D_VALUES_NOISE_CAMERA    BM3D_NOISE_PROFILE
#define BM3D_VALUES_NOISE_DEFAULT   BM3D_VALUES_NOISE_CAMERA
/* The modes, for tables indexed by mode.  */
#define BM3D_VALUES_MODES           (BM3D_MODE_ISOLINE + 1)

/* The row of the engine's table of options for `id`.  */
#define BM3D_VALUES_OPTION(id)      (&bm3d_options[BM3D_OPTION_##id])

/* Bump when the layout or meaning of Bm3dValues changes: values saved
 * by another version are then ignored instead of misread.  Version 1
 * (24 bytes) had no expert options, version 2 (48 bytes) no noise
 * model.  */
#define BM3D_VALUES_VERSION  3

/* Saved between runs with gimp_set_data () as raw bytes: 64, every
 * field at a multiple of its own size, so there is no implicit padding
 * and the bytes mean the same to every build on one machine.  */
typedef struct
{
  guint32  version;
  gint32   mode;
  gint32   backend;
  gint32   fast_preview;      /* dialog: fast mode while dragging, 0/1 */
  gdouble  sigma;             /* noise deviation on the 0..255 scale   */
  gint32   search;            /* bm3d_bm3d_options, 0 = default        */
  gint32   group_max_hard;
  gint32   group_max_wiener;
  gint32   step;
  gfloat   lambda_3d;
  gfloat   chroma_scale;
  gint32   noise;             /* BM3D_VALUES_NOISE_WHITE or _CAMERA    */
  gfloat   strength;          /* camera noise: the profile's multiplier */
  gfloat   chroma_strength;   /* ... and the colour planes' on top     */
  gint32   reserved;          /* 0; keeps the size a multiple of 8     */
} Bm3dValues;

G_STATIC_ASSERT (sizeof (Bm3dValues) == 64);
G_STATIC_ASSERT (G_STRUCT_OFFSET (Bm3dValues, sigma) == 16);
G_STATIC_ASSERT (G_STRUCT_OFFSET (Bm3dValues, search) == 24);
G_STATIC_ASSERT (G_STRUCT_OFFSET (Bm3dValues, chroma_scale) == 44);
G_STATIC_ASSERT (G_STRUCT_OFFSET (Bm3dValues, noise) == 48);
G_STATIC_ASSERT (G_STRUCT_OFFSET (Bm3dValues, chroma_strength) == 56);

/* Defaults (camera noise, as the dialog first opens), and NULL when
 * `vals` can be run, else a newly allocated message naming the bad
 * parameter and its allowed range (bm3d-values.c).  */
void         bm3d_values_set_defaults  (Bm3dValues *vals);
gchar       *bm3d_values_check         (const Bm3dValues *vals);
/* Whether a run of `vals` reads the layout's `clipped`: non-local
 * means (its unclipping) and camera noise (its transform's inverse).  */
gboolean     bm3d_values_read_clipped  (const Bm3dValues *vals);

/* Translated names of the choices, for the dialog and messages.  */
const gchar *bm3d_values_mode_label    (gint32 mode);
const gchar *bm3d_values_noise_label   (gint32 noise);

/* The translated label of `value` of a choice option, "?" for none.  */
const gchar *bm3d_values_choice_label  (const bm3d_option *option,
                                        gint32             value);

#endif /* BM3D_VALUES_H */
