/* BM3D Denoise for GIMP — a list of files denoised in one plug-in
 * process: the procedure plug-in-bm3d-denoise-files (and in GIMP 2.10
 * plug-in-bm3d-denoise-camera-files), which the Script-Fu batch scripts
 * call so that GIMP starts the plug-in (and CUDA) once for the whole
 * batch.
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
#ifndef BM3D_FILES_H
#define BM3D_FILES_H

#include <glib.h>

#include "bm3d-values.h"

/* Where each file of a list goes: OUT-DIR/its name, unless that would
 * overwrite a file of the list (an input, or the output of an earlier
 * file of the same name), when `refusal` says why and nothing is
 * written for it.  */
typedef struct
{
  const gchar *input;
  gchar       *output;
  gchar       *refusal;   /* NULL: go ahead */
} Bm3dFilePlan;

/* The plan for `n_files` `files` into `out_dir`: an array of
 * Bm3dFilePlan, freed with bm3d_files_plan_free ().  NULL, with `error`
 * set, when `out_dir` is not a folder.  Pure GLib: no GIMP call.  */
GArray      *bm3d_files_plan          (const gchar *const *files,
                                       gint                n_files,
                                       const gchar        *out_dir,
                                       GError            **error);
void         bm3d_files_plan_free     (GArray             *plan);

/* Loads each file, denoises its active drawable with `vals` as
 * plug-in-bm3d-denoise (or -camera) does on one image, and saves it
 * under `out_dir`, same name and format, with the settings of
 * bm3d-save.h (PNG at zlib level `png_level`, or at the writer's default
 * for BM3D_SAVE_PNG_LEVEL_DEFAULT).  A file that cannot be
 * read, denoised or written, or that would overwrite an input, is told
 * on one line (BM3D batch: FILE: why) and the others go on; an indexed
 * image is skipped with a line, as the batch script always did.  Returns the
 * number of files that failed, or -1 with `error` set when the batch
 * cannot start.  */
gint         bm3d_files_denoise       (const gchar *const *files,
                                       gint                n_files,
                                       const gchar        *out_dir,
                                       const Bm3dValues   *vals,
                                       gint                png_level,
                                       GError            **error);

#endif /* BM3D_FILES_H */
