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
 */

#include "config.h"

#include <libgimp/gimp.h>

#include "bm3d-layout.h"

/* Whether the drawable's noise was clipped, by the engine's rule
 * (bm3d_image_within_range): integer precisions hold nothing else; a
 * float drawable when every colour value lies within 0..1, as after a
 * conversion from an integer precision.  Judged once on the whole
 * drawable, so that the preview, the strips and the final run agree.  */
static gboolean
drawable_within_range (Bm3dDrawable      drawable,
                       const Bm3dLayout *layout)
{
  const gint  colour = layout->channels - (layout->has_alpha ? 1 : 0);
  GeglBuffer *buffer;
  GeglBufferIterator *it;
  gboolean    inside = TRUE;

  if (bm3d_format_is_integer (gimp_drawable_get_format (drawable)))
    return TRUE;
  buffer = gimp_drawable_get_buffer (drawable);
  it = gegl_buffer_iterator_new (buffer, NULL, 0, layout->format,
                                 GEGL_ACCESS_READ, GEGL_ABYSS_NONE, 1);
  while (inside && gegl_buffer_iterator_next (it))
    {
      const gfloat *px = it->items[0].data;
      gint          i, c;

      for (i = 0; i < it->length && inside; i++, px += layout->channels)
        for (c = 0; c < colour; c++)
          if (! (px[c] >= 0.0f && px[c] <= 1.0f))
            inside = FALSE;
    }
  if (! inside)
    gegl_buffer_iterator_stop (it);
  g_object_unref (buffer);
  return inside;
}

void
bm3d_layout_for (Bm3dDrawable  drawable,
                 gboolean      judge_clipped,
                 Bm3dLayout   *layout)
{
  /* Layer masks and channels are gray whatever the image.  */
  gboolean rgb = (gimp_drawable_is_rgb (drawable)
                  && ! bm3d_drawable_is_channel (drawable));

  bm3d_layout_set_formats (layout, rgb, gimp_drawable_has_alpha (drawable),
                           gimp_drawable_get_format (drawable));
  /* Made here, on the main thread; used by the preview's worker.  */
  layout->to_u8 = babl_fish (layout->format, layout->format_u8);
  layout->clipped = judge_clipped && drawable_within_range (drawable, layout);
}
