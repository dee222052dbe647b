/* BM3D Denoise for GIMP — the one path from a drawable's pixels through
 * the engine and back, shared by the final run and the dialog's preview
 * so that the preview shows what OK will do.
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
 * Reading from a drawable talks to GIMP and belongs to the main thread;
 * bm3d_render_area (), bm3d_render_estimate () and
 * bm3d_float_rect_to_u8 () touch only memory and the engine, so the
 * dialog's worker thread calls them.
 */
#ifndef BM3D_RENDER_H
#define BM3D_RENDER_H

#include <gegl.h>

#include "bm3d.h"
#include "bm3d-values.h"

/* How a drawable's pixels travel to the engine: always float, always in
 * the perceptual (gamma) encoding, whatever the image precision, and in
 * the image's own colour space, as the command denoises a file's
 * values: no conversion between spaces on the way, whose path babl
 * picks by timing it (a busy machine could then change the pixels).  */
typedef struct
{
  const Babl *format;      /* float, what the engine sees        */
  const Babl *format_u8;   /* 8-bit sRGB, what the preview draws */
  const Babl *to_u8;       /* the fish between the two           */
  gint        channels;
  gboolean    has_alpha;
  gboolean    clipped;     /* see bm3d_image_within_range () */
} Bm3dLayout;

/* A rectangle of a drawable's pixels as floats, interleaved without row
 * padding (not the engine's bm3d_pixels, an integer image).
 * Colour channels are on the 0..`scale` range (255: the engine's, 1:
 * GEGL's); alpha stays as GEGL gives it.  Reference counted: the dialog
 * shares one read among the requests of its worker thread.  */
typedef struct
{
  gint           ref_count;
  GeglRectangle  rect;       /* in drawable coordinates          */
  GeglRectangle  bounds;     /* the drawable's extent            */
  gint           channels;
  gboolean       has_alpha;
  gfloat         scale;
  gfloat        *data;
  gsize          capacity;   /* floats allocated at data         */
} Bm3dFloatRect;

/* The largest side of the sample that sigma 0, camera noise and the
 * Estimate button measure the noise on: the middle of the selection, so
 * that a huge selection costs no more than this, and the dialog and the
 * final run measure the same pixels.  */
#define BM3D_ESTIMATE_SIDE  1024

/* An estimated sigma below this (a clean or synthetic image) is raised
 * to it: the engine needs a positive sigma, and this one changes
 * nothing visible.  The procedure and the GEGL operation both apply it,
 * so that they give the same pixels.  */
#define BM3D_ESTIMATE_FLOOR 0.1

/* Whether `format` stores integers (its noise was clipped to the
 * range): the precision enums are named differently in GIMP 2.10 and
 * GIMP 3, a babl type is one name in both.  */
gboolean     bm3d_format_is_integer   (const Babl          *format);

/* The float and 8-bit formats and the channels of `layout`, for colour
 * (`rgb`) or gray pixels, with or without alpha; the float one in the
 * colour space of `source` (the pixels' own format; NULL: sRGB).  */
void         bm3d_layout_set_formats  (Bm3dLayout          *layout,
                                       gboolean             rgb,
                                       gboolean             has_alpha,
                                       const Babl          *source);

/* The engine's parameters for `vals` (noise model, sigma, mode,
 * backend, the BM3D expert options) on pixels of `layout` (whether
 * their noise was clipped).  For camera noise params->profile is left
 * NULL: the caller points it at the profile estimated on the
 * selection's sample.  */
void         bm3d_values_to_params    (const Bm3dValues    *vals,
                                       const Bm3dLayout    *layout,
                                       bm3d_params         *params);

/* The rectangle to read around `core` for `params` and an image of
 * `colour_channels` (1 or 3, alpha not counted): the engine's margin
 * on every side, the origin moved back to a multiple of the engine's
 * alignment from the drawable's origin (so that every call sees BM3D's
 * reference grid where the others see it), clipped to `bounds`.  FALSE,
 * with `error` set, when the engine refuses `params`.  */
gboolean     bm3d_context_for         (const GeglRectangle *bounds,
                                       const GeglRectangle *core,
                                       gint                 colour_channels,
                                       const bm3d_params   *params,
                                       GeglRectangle       *context,
                                       GError             **error);

/* The middle of `area`, at most BM3D_ESTIMATE_SIDE a side.  */
void         bm3d_estimate_rect       (const GeglRectangle *area,
                                       GeglRectangle       *sample);

/* Reads `rect` of `source` on the engine's scale.  Main thread only.
 * NULL, with `error` set, when memory runs out.  */
Bm3dFloatRect *bm3d_float_rect_read         (GeglBuffer          *source,
                                             const Bm3dLayout    *layout,
                                             const GeglRectangle *rect,
                                             GError             **error);
/* Pixels with room for `rect` of `channels`, their contents unset: a
 * spare for bm3d_float_rect_read_reusing () or bm3d_render_area ().  */
Bm3dFloatRect *bm3d_float_rect_new_spare    (const GeglRectangle *rect,
                                             gint                 channels,
                                             GError             **error);

/* The same into `spare` (NULL, or pixels nothing else holds, such as
 * the previous strip's) when its memory is big enough, else into new
 * pixels; `spare` is consumed either way.  */
Bm3dFloatRect *bm3d_float_rect_read_reusing (Bm3dFloatRect       *spare,
                                             GeglBuffer          *source,
                                             const Bm3dLayout    *layout,
                                             const GeglRectangle *rect,
                                             GError             **error);
/* For a GEGL operation: `rect` of `source` at mipmap `level`, both in
 * that level's coordinates, with `bounds` (the input's extent there)
 * as the extent the engine's alignment counts from.  */
Bm3dFloatRect *bm3d_float_rect_read_level   (GeglBuffer          *source,
                                             const Bm3dLayout    *layout,
                                             const GeglRectangle *rect,
                                             const GeglRectangle *bounds,
                                             gint                 level,
                                             GError             **error);
Bm3dFloatRect *bm3d_float_rect_ref          (Bm3dFloatRect       *pixels);
void         bm3d_float_rect_unref        (Bm3dFloatRect       *pixels);

/* The first value of pixel (x, y), drawable coordinates inside
 * pixels->rect, and the bytes between two rows.  */
gfloat      *bm3d_float_rect_at           (const Bm3dFloatRect *pixels,
                                           gint                 x,
                                           gint                 y);
gsize        bm3d_float_rect_rowstride    (const Bm3dFloatRect *pixels);

/* Denoises `core` of `input`, which must hold the context
 * bm3d_context_for () gives (or more: the rest is left out).  On
 * success `*result` is an image of that context on GEGL's 0..1
 * scale, its core what the final run writes; `report` says what the
 * engine did.  `*result` comes in NULL, or holding an earlier result
 * that nothing else holds, whose memory is then reused when big
 * enough (and freed otherwise).  On failure `error` holds a message for the user and
 * `*status` (when non-NULL) the engine's status.  */
gboolean     bm3d_render_area         (const Bm3dFloatRect *input,
                                       const GeglRectangle *core,
                                       const bm3d_params   *params,
                                       Bm3dFloatRect      **result,
                                       bm3d_report         *report,
                                       bm3d_status         *status,
                                       GError             **error);

/* TRUE when the environment holds BM3D_PLUGIN_PASSTHROUGH=1: then
 * bm3d_render_area () copies its input through instead of denoising,
 * so that timed runs measure the plug-in's own cost (bm3d-render.c).  */
gboolean     bm3d_render_passthrough  (void);

/* Estimates the noise level of `sample` (engine scale).  */
gboolean     bm3d_render_estimate     (const Bm3dFloatRect *sample,
                                       const bm3d_params   *params,
                                       gfloat              *sigma,
                                       bm3d_report         *report,
                                       bm3d_status         *status,
                                       GError             **error);

/* Estimates the camera noise profile of `sample` (engine scale), as
 * bm3d_estimate_noise_profile () does; a sample under 32 x 32 pixels is
 * refused with a message saying so.  */
gboolean     bm3d_render_estimate_profile (const Bm3dFloatRect   *sample,
                                           const bm3d_params  *params,
                                           bm3d_noise_profile *profile,
                                           bm3d_report        *report,
                                           bm3d_status        *status,
                                           GError            **error);

/* The noise of the middle of `area` (bm3d_estimate_rect) of `source`,
 * read at mipmap `level` (0: the pixels themselves), as the procedure,
 * the dialog and the GEGL operation all measure it: the camera noise
 * profile into `*profile` when `profile` is not NULL, else the white
 * sigma, raised to BM3D_ESTIMATE_FLOOR, into `*sigma`; the engine's
 * report into `*report` when it is not NULL.  */
gboolean     bm3d_render_estimate_middle (GeglBuffer          *source,
                                          const Bm3dLayout    *layout,
                                          const GeglRectangle *area,
                                          gint                 level,
                                          const bm3d_params   *params,
                                          bm3d_noise_profile  *profile,
                                          gfloat              *sigma,
                                          bm3d_report         *report,
                                          GError             **error);

/* `rect` of `pixels` (GEGL's scale) in the layout's 8-bit format, as
 * gimp_preview_draw_buffer () takes it: rect->width * channels bytes a
 * row.  */
guchar      *bm3d_float_rect_to_u8        (const Bm3dFloatRect *pixels,
                                           const Bm3dLayout    *layout,
                                           const GeglRectangle *rect);

/* A message for the user about a failed engine call.  */
gchar       *bm3d_render_error_message (bm3d_status         status,
                                        const bm3d_report  *report,
                                        const bm3d_params  *params);

#endif /* BM3D_RENDER_H */
