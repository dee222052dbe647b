/* BM3D Denoise for GIMP — the GEGL operation's noise estimate: measured
 * once per input and shared by every area GEGL asks for.
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
#ifndef BM3D_GEGL_ESTIMATE_H
#define BM3D_GEGL_ESTIMATE_H

#include <gegl.h>
#include <gegl-plugin.h>

#include "bm3d.h"
#include "bm3d-render.h"

/* Called from the operation's prepare (): follows the node that feeds
 * its input, so that a change there (new pixels, another node) drops
 * the estimates made on the old input.  */
void      bm3d_gegl_estimate_watch (GeglOperation       *operation);

/* The camera noise profile of the input at mipmap `level` into
 * `*profile` when `profile` is not NULL, else its white sigma (raised to
 * BM3D_ESTIMATE_FLOOR) into `*sigma`; `bounds` is the input's extent at
 * that level.  Measured as the procedure measures it, on the middle of
 * the image (bm3d_render_estimate_middle), the first time an area needs
 * it, and kept for the areas that follow until the input changes.  Safe
 * from several threads: one measures, the others wait for its result.
 * FALSE, with `error` set, when the engine cannot measure it (an image
 * under 32 x 32 pixels for camera noise).  */
gboolean  bm3d_gegl_estimate       (GeglOperation       *operation,
                                    GeglBuffer          *input,
                                    const Bm3dLayout    *layout,
                                    const GeglRectangle *bounds,
                                    gint                 level,
                                    const bm3d_params   *params,
                                    bm3d_noise_profile  *profile,
                                    gfloat              *sigma,
                                    GError             **error);

#endif /* BM3D_GEGL_ESTIMATE_H */
