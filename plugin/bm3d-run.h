/* BM3D Denoise for GIMP — the final run, shared by both front ends:
 * checks on the drawable, the estimates (sigma 0, camera noise), the
 * strips through the engine into the shadow buffer, one undo step.
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
#ifndef BM3D_RUN_H
#define BM3D_RUN_H

#include <libgimp/gimp.h>

#include "bm3d-drawable.h"
#include "bm3d-values.h"

/* The catalogues' folder: BM3D_DENOISE_LOCALEDIR (the tests point it at
 * the build's own, before they are installed), else the installed one.  */
const gchar *bm3d_run_locale_dir      (void);

/* Whether stage times go to stderr (BM3D_PLUGIN_TIMES=1, or the
 * passthrough): each final run's, and each file's of the batch.  */
gboolean     bm3d_run_times_wanted    (void);

/* gimp_progress_init and gimp_progress_update, each call and GIMP's
 * answer written to the file BM3D_PROGRESS_LOG names, when it is set.  */
gboolean     bm3d_run_progress_init   (const gchar       *message);
gboolean     bm3d_run_progress_update (gdouble            fraction);

/* FALSE, with a message for the user in `error`, when `drawable` cannot
 * be denoised: gone, indexed, or a layer group.  */
gboolean     bm3d_run_check_drawable  (Bm3dDrawable       drawable,
                                       GError           **error);

/* Starts the engine's backend for `vals` (the CUDA context) on a thread
 * of its own, so that it is ready by the time the pixels are: called as
 * the dialog opens and before the final run reads the drawable.  Cheap
 * when repeated.  */
void         bm3d_run_warm_up         (const Bm3dValues  *vals);

/* Denoises the selected part of `drawable` (its bounds; GIMP blends
 * through the mask) with `vals`: for camera noise the profile is
 * measured once, on the middle of the selection, and every strip
 * filters it; for white noise sigma 0 is estimated first.
 * One undo step; after any error the drawable is as it was.  */
gboolean     bm3d_run_denoise         (Bm3dDrawable       drawable,
                                       const Bm3dValues  *vals,
                                       GimpRunMode        run_mode,
                                       GError           **error);

/* The same for the whole of `source`, an RGB or gray buffer of integer
 * samples that is no drawable (a file read by imageio), the results
 * written into `destination` of the same extent: the same measurement,
 * strips and engine calls as a drawable of the same pixels gets.  */
gboolean     bm3d_run_denoise_buffer  (GeglBuffer        *source,
                                       GeglBuffer        *destination,
                                       gboolean           rgb,
                                       gboolean           has_alpha,
                                       const Bm3dValues  *vals,
                                       GError           **error);

#endif /* BM3D_RUN_H */
