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
#include <libgimp/gimpui.h>

#include "bm3d-values.h"

/* Renders `values` into `preview`, the same code as the final run.
 * Returns NULL on success, else a newly allocated message for the
 * dialog to show under the preview.  */
typedef gchar *(*Bm3dPreviewFunc) (gint32             drawable_id,
                                   const Bm3dValues  *values,
                                   GimpPreview       *preview);

/* Shows the dialog for `drawable_id`, starting from `values`.  Returns
 * TRUE when the user pressed OK; `values` then holds the choice.  */
gboolean bm3d_dialog_run (gint32           drawable_id,
                          Bm3dValues      *values,
                          Bm3dPreviewFunc  render);

#endif /* BM3D_DIALOG_H */
