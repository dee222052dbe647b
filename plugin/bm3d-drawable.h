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

/* Files, for the list-of-files procedure (bm3d-files.c): an image
 * object, NULL when a file could not be loaded (bm3d_pdb_error () says
 * why).  */
typedef GimpImage *Bm3dImage;

static inline Bm3dImage
bm3d_file_load (const gchar *filename)
{
  GFile     *file = g_file_new_for_path (filename);
  GimpImage *image = gimp_file_load (GIMP_RUN_NONINTERACTIVE, file);

  g_object_unref (file);
  return image;
}

static inline gboolean
bm3d_image_is_valid (Bm3dImage image)
{
  return image != NULL;
}

/* The first selected drawable, as the batch script took it; NULL when
 * none is.  */
static inline Bm3dDrawable
bm3d_image_active_drawable (Bm3dImage image)
{
  GimpDrawable **drawables = gimp_image_get_selected_drawables (image);
  GimpDrawable  *drawable = drawables ? drawables[0] : NULL;

  g_free (drawables);
  return drawable;
}

static inline void
bm3d_image_delete (Bm3dImage image)
{
  gimp_image_delete (image);
}

/* The message of the last failed PDB call.  */
static inline const gchar *
bm3d_pdb_error (void)
{
  return gimp_pdb_get_last_error (gimp_get_pdb ());
}

/* Whether `image` is `drawable` alone: its one layer, the image's size
 * at its origin, visible, opaque, in normal mode and without a mask, so
 * that the layer's pixels are what an export writes.  */
static inline gboolean
bm3d_image_is_sole_layer (Bm3dImage     image,
                          Bm3dDrawable  drawable)
{
  GimpLayer **layers = gimp_image_get_layers (image);
  gboolean    sole = layers && layers[0] && ! layers[1]
                     && GIMP_DRAWABLE (layers[0]) == drawable;
  gint        x = -1, y = -1;

  g_free (layers);
  return sole
         && gimp_drawable_get_offsets (drawable, &x, &y) && x == 0 && y == 0
         && gimp_drawable_get_width (drawable) == gimp_image_get_width (image)
         && gimp_drawable_get_height (drawable) == gimp_image_get_height (image)
         && gimp_item_get_visible (GIMP_ITEM (drawable))
         && gimp_layer_get_opacity (GIMP_LAYER (drawable)) == 100.0
         && gimp_layer_get_mode (GIMP_LAYER (drawable)) == GIMP_LAYER_MODE_NORMAL
         && ! gimp_layer_get_mask (GIMP_LAYER (drawable));
}

/* The text of `image`'s parasite `name`, NULL when it has none.  */
static inline gchar *
bm3d_image_parasite_text (Bm3dImage    image,
                          const gchar *name)
{
  GimpParasite  *parasite = gimp_image_get_parasite (image, name);
  gconstpointer  data;
  guint32        size = 0;
  gchar         *text;

  if (! parasite)
    return NULL;
  data = gimp_parasite_get_data (parasite, &size);
  text = g_strndup (data, size);
  gimp_parasite_free (parasite);
  return text;
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

/* Files, for the list-of-files procedures (bm3d-files.c): an image by
 * its id, -1 when a file could not be loaded (bm3d_pdb_error () says
 * why).  */
typedef gint32 Bm3dImage;

static inline Bm3dImage
bm3d_file_load (const gchar *filename)
{
  return gimp_file_load (GIMP_RUN_NONINTERACTIVE, filename, filename);
}

static inline gboolean
bm3d_image_is_valid (Bm3dImage image)
{
  return image != -1;
}

static inline Bm3dDrawable
bm3d_image_active_drawable (Bm3dImage image)
{
  return gimp_image_get_active_drawable (image);
}

static inline void
bm3d_image_delete (Bm3dImage image)
{
  gimp_image_delete (image);
}

/* The message of the last failed PDB call.  */
static inline const gchar *
bm3d_pdb_error (void)
{
  return gimp_get_pdb_error ();
}

static inline gboolean
bm3d_image_is_sole_layer (Bm3dImage     image,
                          Bm3dDrawable  drawable)
{
  gint     n = 0;
  gint    *layers = gimp_image_get_layers (image, &n);
  gboolean sole = n == 1 && layers[0] == drawable;
  gint     x = -1, y = -1;

  g_free (layers);
  return sole
         && gimp_drawable_offsets (drawable, &x, &y) && x == 0 && y == 0
         && gimp_drawable_width (drawable) == gimp_image_width (image)
         && gimp_drawable_height (drawable) == gimp_image_height (image)
         && gimp_item_get_visible (drawable)
         && gimp_layer_get_opacity (drawable) == 100.0
         && gimp_layer_get_mode (drawable) == GIMP_LAYER_MODE_NORMAL
         && gimp_layer_get_mask (drawable) == -1;
}

static inline gchar *
bm3d_image_parasite_text (Bm3dImage    image,
                          const gchar *name)
{
  GimpParasite *parasite = gimp_image_get_parasite (image, name);
  gchar        *text;

  if (! parasite)
    return NULL;
  text = g_strndup (gimp_parasite_data (parasite),
                    gimp_parasite_data_size (parasite));
  gimp_parasite_free (parasite);
  return text;
}

#endif

#endif /* BM3D_DRAWABLE_H */
