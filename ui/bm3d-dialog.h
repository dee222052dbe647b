/* BM3D Denoise for GIMP — the dialog.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 */
#ifndef BM3D_DIALOG_H
#define BM3D_DIALOG_H

#include <libgimp/gimp.h>

#include "bm3d-drawable.h"
#include "bm3d-values.h"

/* Shows the dialog for `drawable`, starting from `values`; its
 * preview goes through bm3d_render_area (), as the final run does.
 * Returns TRUE when the user pressed OK; `values` then holds the
 * choice.  Nothing of the dialog (thread, timers, pixels) outlives the
 * call.
 *
 * Environment, for tests and benchmarks: BM3D_DIALOG_LOG=FILE appends
 * timestamped events (requests, tiles drawn with their latency, main
 * loop stalls, widget geometry); BM3D_DIALOG_TILE=FILE receives every
 * tile drawn (a text header, then the 8-bit pixels).
 *
 * `keep_editable` (GIMP 3, where the GEGL operation is installed)
 * offers the choice "Keep editable": the settings as a non-destructive
 * filter on the layer rather than baked pixels, starting from and
 * written back to `*keep_editable`; NULL offers none.  */
gboolean bm3d_dialog_run (Bm3dDrawable  drawable,
                          Bm3dValues   *values,
                          gboolean     *keep_editable);

#endif /* BM3D_DIALOG_H */
