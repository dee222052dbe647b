/* BM3D Denoise for GIMP — a drawable's pixel layout, asked of GIMP.
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
 *
 * Apart from bm3d-render.h, which knows GEGL and the engine only, so
 * that the GEGL operation (bm3d-gegl-op.c) shares the pixel path
 * without linking libgimp.
 */
#ifndef BM3D_LAYOUT_H
#define BM3D_LAYOUT_H

#include <libgimp/gimp.h>

#include "bm3d-drawable.h"
#include "bm3d-render.h"

/* The layout of `drawable`.  `clipped` is judged only when
 * `judge_clipped` (settings that read it may run:
 * bm3d_values_read_clipped ()): for a float drawable that reads the
 * whole of it.  Otherwise it is FALSE.  */
void         bm3d_layout_for          (Bm3dDrawable         drawable,
                                       gboolean             judge_clipped,
                                       Bm3dLayout          *layout);

#endif /* BM3D_LAYOUT_H */
