/* BM3D Denoise for GIMP — the batch's files read, denoised and written
 * by the project's own image library, without GIMP's loader and
 * exporters (bm3d-own.c says which files and why).
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
#ifndef BM3D_OWN_H
#define BM3D_OWN_H

#include <glib.h>

#include "bm3d-values.h"

typedef enum
{
  BM3D_OWN_DONE,             /* written                                  */
  BM3D_OWN_DECLINED,         /* not a file taken here: nothing was done,
                                GIMP's loader and export are to do it    */
  BM3D_OWN_FAILED_DENOISE,   /* read, but not denoised: `error` says why */
  BM3D_OWN_FAILED_SAVE       /* denoised, but not written (and no file
                                left): `error` says why                  */
} Bm3dOwnResult;

/* Seconds of each stage.  */
typedef struct
{
  gdouble load;
  gdouble denoise;
  gdouble save;
} Bm3dOwnTimes;

/* Denoises the file `input` with `vals` into `output` at zlib level
 * `png_level` (0..9), when it is a file imageio reads and writes with
 * all GIMP would keep.  */
Bm3dOwnResult  bm3d_own_denoise (const gchar       *input,
                                 const gchar       *output,
                                 const Bm3dValues  *vals,
                                 gint               png_level,
                                 Bm3dOwnTimes      *times,
                                 GError           **error);

#endif /* BM3D_OWN_H */
