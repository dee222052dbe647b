/* BM3D Denoise for GIMP — the drawable handle shared by the pixel path,
 * the final run and the dialog, whichever GIMP the plug-in is built for.
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
 * GIMP 2.10 names a drawable by an id, GIMP 3 by an object; the pixel
 * calls (gimp_drawable_get_buffer, get_shadow_buffer, merge_shadow,
 * update, mask_intersect, has_alpha, is_rgb, is_indexed) keep their
 * names and take either.  This header is the one place that knows which:
 * shared code holds a Bm3dDrawable and asks the item questions, whose
 * GIMP 3 forms take a GimpItem, through the helpers below.
 */
#ifndef BM3D_DRAWABLE_H
#define BM3D_DRAWABLE_H

#include <libgimp/gimp.h>

#if BM3D_GIMP_MAJOR >= 3

typedef GimpDrawable *Bm3dDrawable;

static inline gint
bm3d_drawable_id (Bm3dDrawable drawable)
{
  return gimp_item_get_id (GIMP_ITEM (drawable));
}

static inline gboolean
bm3d_drawable_is_valid (Bm3dDrawable drawable)
{
  return drawable && gimp_item_is_valid (GIMP_ITEM (drawable));
}

static inline gboolean
bm3d_drawable_is_channel (Bm3dDrawable drawable)
{
  return gimp_item_is_channel (GIMP_ITEM (drawable));
}

static inline gboolean
bm3d_drawable_is_group (Bm3dDrawable drawable)
{
  return gimp_item_is_group (GIMP_ITEM (drawable));
}

static inline gint
bm3d_drawable_width (Bm3dDrawable drawable)
{
  return gimp_drawable_get_width (drawable);
}

static inline gint
bm3d_drawable_height (Bm3dDrawable drawable)
{
  return gimp_drawable_get_height (drawable);
}

#else /* GIMP 2.10 */

typedef gint32 Bm3dDrawable;

static inline gint
bm3d_drawable_id (Bm3dDrawable drawable)
{
  return drawable;
}

static inline gboolean
bm3d_drawable_is_valid (Bm3dDrawable drawable)
{
  return gimp_item_is_valid (drawable);
}

static inline gboolean
bm3d_drawable_is_channel (Bm3dDrawable drawable)
{
  return gimp_item_is_channel (drawable);
}

static inline gboolean
bm3d_drawable_is_group (Bm3dDrawable drawable)
{
  return gimp_item_is_group (drawable);
}

static inline gint
bm3d_drawable_width (Bm3dDrawable drawable)
{
  return gimp_drawable_width (drawable);
}

static inline gint
bm3d_drawable_height (Bm3dDrawable drawable)
{
  return gimp_drawable_height (drawable);
}

#endif

#endif /* BM3D_DRAWABLE_H */
