/* BM3D Denoise for GIMP — the one path from a drawable's pixels through
 * the engine and back, shared by the final run and the preview.
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

#include <string.h>

#include <gegl.h>

#include "bm3d.h"
#include "bm3d-intl.h"
#include "bm3d-values.h"
#include "bm3d-render.h"

#define BM3D_RENDER_ERROR (g_quark_from_static_string ("bm3d-render-error"))


gboolean
bm3d_format_is_integer (const Babl *format)
{
  const Babl *type = babl_format_get_type (format, 0);

  return type != babl_type ("half") && type != babl_type ("float")
         && type != babl_type ("double");
}

void
bm3d_layout_set_formats (Bm3dLayout *layout,
                         gboolean    rgb,
                         gboolean    has_alpha,
                         const Babl *source)
{
  /* babl takes a format for its space, and NULL for sRGB.  */
  layout->has_alpha = has_alpha;
  if (rgb)
    {
      layout->format = babl_format_with_space (has_alpha ? "R'G'B'A float"
                                                         : "R'G'B' float",
                                               source);
      layout->format_u8 = babl_format (has_alpha ? "R'G'B'A u8"
                                                 : "R'G'B' u8");
      layout->channels = has_alpha ? 4 : 3;
    }
  else
    {
      layout->format = babl_format_with_space (has_alpha ? "Y'A float"
                                                         : "Y' float",
                                               source);
      layout->format_u8 = babl_format (has_alpha ? "Y'A u8" : "Y' u8");
      layout->channels = has_alpha ? 2 : 1;
    }
}

void
bm3d_values_to_params (const Bm3dValues *vals,
                       const Bm3dLayout *layout,
                       bm3d_params      *params)
{
  bm3d_params_init (params);
  params->sigma = (float) vals->sigma;
  params->clipped = layout->clipped;
  params->mode = (bm3d_mode) vals->mode;
  params->backend = (bm3d_backend) vals->backend;
  params->bm3d.search = vals->search;
  params->bm3d.group_max_hard = vals->group_max_hard;
  params->bm3d.group_max_wiener = vals->group_max_wiener;
  params->bm3d.step = vals->step;
  params->bm3d.lambda_3d = vals->lambda_3d;
  params->bm3d.chroma_scale = vals->chroma_scale;
  /* Camera noise: the caller sets params->profile to the profile it
   * estimated on the selection's sample (bm3d_render_estimate_profile),
   * so that the preview and every strip of the final run filter the
   * same noise; left NULL the engine would estimate on each area.  */
  if (vals->noise == BM3D_VALUES_NOISE_CAMERA)
    {
      params->noise = BM3D_NOISE_PROFILE;
      params->strength = vals->strength;
      params->chroma_strength = vals->chroma_strength;
    }
}

/* ---- where to read --------------------------------------------------- */

static gint
align_down (gint value, gint origin, gint align)
{
  gint offset = value - origin;

  /* Towards minus infinity: the context may start before the origin,
   * and is clipped to it afterwards.  */
  if (offset >= 0)
    offset -= offset % align;
  else
    offset = -((-offset + align - 1) / align * align);
  return origin + offset;
}

gboolean
bm3d_context_for (const GeglRectangle *bounds,
                  const GeglRectangle *core,
                  gint                 colour_channels,
                  const bm3d_params   *params,
                  GeglRectangle       *context,
                  GError             **error)
{
  bm3d_report report;
  bm3d_status status;
  gint        margin, align, x0, y0, x1, y1;

  status = bm3d_context_margin (params, colour_channels, &margin, &align,
                                &report);
  if (status != BM3D_OK)
    {
      gchar *message = bm3d_render_error_message (status, &report, params);

      g_set_error_literal (error, BM3D_RENDER_ERROR, status, message);
      g_free (message);
      return FALSE;
    }

  x0 = MAX (align_down (core->x - margin, bounds->x, align), bounds->x);
  y0 = MAX (align_down (core->y - margin, bounds->y, align), bounds->y);
  x1 = MIN (core->x + core->width + margin, bounds->x + bounds->width);
  y1 = MIN (core->y + core->height + margin, bounds->y + bounds->height);

  context->x = x0;
  context->y = y0;
  context->width = x1 - x0;
  context->height = y1 - y0;
  return TRUE;
}

void
bm3d_estimate_rect (const GeglRectangle *area,
                    GeglRectangle       *sample)
{
  sample->width = MIN (area->width, BM3D_ESTIMATE_SIDE);
  sample->height = MIN (area->height, BM3D_ESTIMATE_SIDE);
  sample->x = area->x + (area->width - sample->width) / 2;
  sample->y = area->y + (area->height - sample->height) / 2;
}

/* ---- pixels ---------------------------------------------------------- */

/* Colour channels between GEGL's 0..1 and another scale.  Alpha is never
 * touched, so it leaves exactly as it came.  The two moves the plug-in
 * makes, 1 -> 255 after a read and 255 -> 1 before a write, have loops
 * of their own with the constant in them, which the compiler vectorises;
 * they compute what the general loop does bit for bit (v / 1 * 255 is
 * v * 255, v / 255 * 1 is v / 255).  */
static void
rescale_colour (Bm3dFloatRect *pixels,
                gfloat      scale)
{
  gint    colour = pixels->channels - (pixels->has_alpha ? 1 : 0);
  gsize   n = (gsize) pixels->rect.width * pixels->rect.height;
  gfloat *data = pixels->data;
  gsize   p;
  gint    c;

  if (scale == pixels->scale)
    return;
  if (! pixels->has_alpha && pixels->scale == 1.0f && scale == 255.0f)
    {
      n *= pixels->channels;
      for (p = 0; p < n; p++)
        data[p] *= 255.0f;
    }
  else if (! pixels->has_alpha && pixels->scale == 255.0f && scale == 1.0f)
    {
      n *= pixels->channels;
      for (p = 0; p < n; p++)
        data[p] /= 255.0f;
    }
  else
    {
      for (p = 0; p < n; p++, data += pixels->channels)
        for (c = 0; c < colour; c++)
          data[c] = data[c] / pixels->scale * scale;
    }
  pixels->scale = scale;
}

/* New pixels for `rect`, or `spare` (NULL, or pixels nothing else
 * holds) made over for it when its memory is big enough: the final run
 * reuses one input and one output for all its strips, which spares the
 * system's page faults on a fresh allocation per strip.  `spare` is
 * consumed either way.  */
static Bm3dFloatRect *
pixels_new_reusing (Bm3dFloatRect       *spare,
                    const GeglRectangle *rect,
                    const GeglRectangle *bounds,
                    gint                 channels,
                    gboolean             has_alpha,
                    GError             **error)
{
  gsize       size = (gsize) rect->width * rect->height * channels;
  Bm3dFloatRect *pixels;

  if (spare && spare->ref_count == 1 && spare->capacity >= size)
    pixels = spare;
  else
    {
      bm3d_float_rect_unref (spare);
      pixels = g_new0 (Bm3dFloatRect, 1);
      pixels->ref_count = 1;
      pixels->capacity = size;
      pixels->data = g_try_new (gfloat, size);
      if (! pixels->data)
        {
          g_free (pixels);
          g_set_error (error, BM3D_RENDER_ERROR, BM3D_ERR_OUT_OF_MEMORY,
                       _("Not enough memory to denoise a %d × %d area; "
                         "select a smaller part of the image"),
                       rect->width, rect->height);
          return NULL;
        }
    }
  pixels->rect = *rect;
  pixels->bounds = *bounds;
  pixels->channels = channels;
  pixels->has_alpha = has_alpha;
  pixels->scale = 1.0f;
  return pixels;
}

Bm3dFloatRect *
bm3d_float_rect_new_spare (const GeglRectangle *rect,
                           gint                 channels,
                           GError             **error)
{
  return pixels_new_reusing (NULL, rect, rect, channels, FALSE, error);
}

Bm3dFloatRect *
bm3d_float_rect_read (GeglBuffer          *source,
                      const Bm3dLayout    *layout,
                      const GeglRectangle *rect,
                      GError             **error)
{
  return bm3d_float_rect_read_reusing (NULL, source, layout, rect, error);
}

/* `rect` of `source` at GEGL's `scale`, into `spare` when it fits,
 * as a Bm3dFloatRect within `bounds`.  */
static Bm3dFloatRect *
read_at (Bm3dFloatRect       *spare,
         GeglBuffer          *source,
         const Bm3dLayout    *layout,
         const GeglRectangle *rect,
         const GeglRectangle *bounds,
         gdouble              scale,
         GError             **error)
{
  Bm3dFloatRect *pixels = pixels_new_reusing (spare, rect, bounds,
                                              layout->channels,
                                              layout->has_alpha, error);

  if (! pixels)
    return NULL;
  gegl_buffer_get (source, rect, scale, layout->format, pixels->data,
                   GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  rescale_colour (pixels, 255.0f);
  return pixels;
}

Bm3dFloatRect *
bm3d_float_rect_read_reusing (Bm3dFloatRect       *spare,
                              GeglBuffer          *source,
                              const Bm3dLayout    *layout,
                              const GeglRectangle *rect,
                              GError             **error)
{
  return read_at (spare, source, layout, rect,
                  gegl_buffer_get_extent (source), 1.0, error);
}

Bm3dFloatRect *
bm3d_float_rect_read_level (GeglBuffer          *source,
                            const Bm3dLayout    *layout,
                            const GeglRectangle *rect,
                            const GeglRectangle *bounds,
                            gint                 level,
                            GError             **error)
{
  /* GEGL reads mipmap level n as the scale 1 / 2^n, in that level's
   * coordinates.  */
  return read_at (NULL, source, layout, rect, bounds, 1.0 / (1 << level),
                  error);
}

Bm3dFloatRect *
bm3d_float_rect_ref (Bm3dFloatRect *pixels)
{
  g_atomic_int_inc (&pixels->ref_count);
  return pixels;
}

void
bm3d_float_rect_unref (Bm3dFloatRect *pixels)
{
  if (pixels && g_atomic_int_dec_and_test (&pixels->ref_count))
    {
      g_free (pixels->data);
      g_free (pixels);
    }
}

gfloat *
bm3d_float_rect_at (const Bm3dFloatRect *pixels,
                    gint                 x,
                    gint                 y)
{
  return pixels->data
         + ((gsize) (y - pixels->rect.y) * pixels->rect.width
            + (gsize) (x - pixels->rect.x)) * pixels->channels;
}

gsize
bm3d_float_rect_rowstride (const Bm3dFloatRect *pixels)
{
  return (gsize) pixels->rect.width * pixels->channels * sizeof (gfloat);
}

static gboolean
rect_contains (const GeglRectangle *outer,
               const GeglRectangle *inner)
{
  return inner->x >= outer->x && inner->y >= outer->y
         && inner->x + inner->width <= outer->x + outer->width
         && inner->y + inner->height <= outer->y + outer->height;
}

/* The engine's view of `rect` of `pixels`: no copy.  */
static bm3d_image
image_view (const Bm3dFloatRect *pixels,
            const GeglRectangle *rect)
{
  bm3d_image image;

  image.width = rect->width;
  image.height = rect->height;
  image.channels = pixels->channels;
  image.has_alpha = pixels->has_alpha;
  image.stride = (size_t) pixels->rect.width * pixels->channels;
  image.data = bm3d_float_rect_at (pixels, rect->x, rect->y);
  return image;
}

/* ---- the engine ------------------------------------------------------ */

/* BM3D_PLUGIN_PASSTHROUGH=1 (exactly "1", from the environment only: no
 * argument, setting or dialog reaches it) makes bm3d_render_area () copy
 * its input to its output instead of calling the engine.  Everything
 * else (the drawable read, the conversions, the strips, the shadow
 * buffer, the merge) runs as in a denoise, so a timed run with it on
 * measures the plug-in's own cost.  Said on stderr once per process, so
 * that a result left unchanged is never a mystery.  An environment
 * switch: docs/environment.md lists them all.  */
gboolean
bm3d_render_passthrough (void)
{
  static gsize state = 0;   /* 0 unknown, 1 off, 2 on */

  if (g_once_init_enter (&state))
    {
      const gchar *value = g_getenv ("BM3D_PLUGIN_PASSTHROUGH");
      gboolean     on = value && strcmp (value, "1") == 0;

      if (on)
        g_printerr ("%s: %s\n", PLUG_IN_BINARY,
                    _("BM3D_PLUGIN_PASSTHROUGH=1: the pixels are read and "
                      "written back without denoising"));
      g_once_init_leave (&state, on ? 2 : 1);
    }
  return state == 2;
}

/* The passthrough's stand-in for bm3d_denoise (): `in` copied to `out`,
 * row by row (both are views into wider strips).  */
static bm3d_status
copy_through (const bm3d_image *in,
              bm3d_image       *out)
{
  gsize row = (gsize) in->width * in->channels * sizeof (gfloat);
  gint  y;

  for (y = 0; y < in->height; y++)
    memcpy (out->data + (gsize) y * out->stride,
            in->data + (gsize) y * in->stride, row);
  return BM3D_OK;
}

gchar *
bm3d_render_error_message (bm3d_status        status,
                           const bm3d_report *report,
                           const bm3d_params *params)
{
  const gchar *detail = report->message[0] ? report->message
                                           : bm3d_status_string (status);

  switch (status)
    {
    case BM3D_ERR_NOT_IMPLEMENTED:
      return g_strdup_printf (_("The mode “%s” is not implemented yet; "
                                "choose BM3D (mode 0) or BM3D first phase "
                                "only (mode 1)"),
                              bm3d_values_mode_label (params->mode));
    case BM3D_ERR_BACKEND_UNAVAILABLE:
      return g_strdup_printf (_("The CUDA backend cannot be used (%s); "
                                "choose the automatic or the CPU backend"),
                              detail);
    case BM3D_ERR_OUT_OF_MEMORY:
      return g_strdup_printf (_("Not enough memory to denoise this area "
                                "(%s); select a smaller part of the image"),
                              detail);
    case BM3D_ERR_INVALID_ARGUMENT:
      return g_strdup_printf (_("Invalid expert option: %s"), detail);
    case BM3D_ERR_CANCELLED:
      return g_strdup (_("Denoising was cancelled"));
    default:
      return g_strdup_printf (_("Denoising failed: %s"), detail);
    }
}

static void
set_engine_error (GError            **error,
                  bm3d_status         status,
                  const bm3d_report  *report,
                  const bm3d_params  *params)
{
  gchar *message = bm3d_render_error_message (status, report, params);

  g_set_error_literal (error, BM3D_RENDER_ERROR, status, message);
  g_free (message);
}

gboolean
bm3d_render_area (const Bm3dFloatRect *input,
                  const GeglRectangle *core,
                  const bm3d_params   *params,
                  Bm3dFloatRect      **result,
                  bm3d_report         *report,
                  bm3d_status         *status_out,
                  GError             **error)
{
  GeglRectangle  context;
  bm3d_image     in, out;
  bm3d_status    status;
  Bm3dFloatRect *spare = *result;
  Bm3dFloatRect *output;
  GError        *local = NULL;

  *result = NULL;
  memset (report, 0, sizeof *report);
  if (status_out)
    *status_out = BM3D_ERR_INVALID_ARGUMENT;
  if (! bm3d_context_for (&input->bounds, core,
                         input->channels - (input->has_alpha ? 1 : 0),
                         params, &context, &local))
    {
      bm3d_float_rect_unref (spare);
      if (status_out)
        *status_out = (bm3d_status) local->code;
      g_propagate_error (error, local);
      return FALSE;
    }
  /* The caller read a context at least this big; a bigger one (the
   * preview keeps one for every mode) is cut to this one, since what
   * the engine sees beyond it would change the result.  */
  if (! rect_contains (&input->rect, &context) || input->scale != 255.0f)
    {
      bm3d_float_rect_unref (spare);
      g_return_val_if_reached (FALSE);
    }

  output = pixels_new_reusing (spare, &context, &input->bounds,
                               input->channels, input->has_alpha, error);
  if (! output)
    {
      if (status_out)
        *status_out = BM3D_ERR_OUT_OF_MEMORY;
      return FALSE;
    }
  output->scale = 255.0f;

  in = image_view (input, &context);
  out = image_view (output, &context);
  if (bm3d_render_passthrough ())
    status = copy_through (&in, &out);
  else
    status = bm3d_denoise (&in, &out, params, report);
  if (status_out)
    *status_out = status;
  if (status != BM3D_OK)
    {
      set_engine_error (error, status, report, params);
      bm3d_float_rect_unref (output);
      return FALSE;
    }

  rescale_colour (output, 1.0f);
  *result = output;
  return TRUE;
}

gboolean
bm3d_render_estimate (const Bm3dFloatRect *sample,
                      const bm3d_params   *params,
                      gfloat              *sigma,
                      bm3d_report         *report,
                      bm3d_status         *status_out,
                      GError             **error)
{
  bm3d_image  in = image_view (sample, &sample->rect);
  bm3d_status status;

  g_return_val_if_fail (sample->scale == 255.0f, FALSE);

  status = bm3d_estimate_sigma (&in, params, sigma, report);
  if (status_out)
    *status_out = status;
  if (status == BM3D_ERR_NOT_IMPLEMENTED)
    {
      g_set_error_literal (error, BM3D_RENDER_ERROR, status,
                           _("Estimating the noise level is not "
                             "implemented yet; give the noise level "
                             "(sigma), above 0 and at most 255"));
      return FALSE;
    }
  if (status != BM3D_OK)
    {
      g_set_error (error, BM3D_RENDER_ERROR, status,
                   _("The noise level could not be estimated: %s"),
                   report->message[0] ? report->message
                                      : bm3d_status_string (status));
      return FALSE;
    }
  return TRUE;
}

gboolean
bm3d_render_estimate_profile (const Bm3dFloatRect *sample,
                              const bm3d_params   *params,
                              bm3d_noise_profile  *profile,
                              bm3d_report         *report,
                              bm3d_status         *status_out,
                              GError             **error)
{
  bm3d_image  in = image_view (sample, &sample->rect);
  bm3d_status status;

  g_return_val_if_fail (sample->scale == 255.0f, FALSE);

  status = bm3d_estimate_noise_profile (&in, params, profile, report);
  if (status_out)
    *status_out = status;
  if (status == BM3D_ERR_INVALID_SIZE)
    {
      g_set_error (error, BM3D_RENDER_ERROR, status,
                   _("The camera noise cannot be estimated on a %d × %d "
                     "selection (32 × 32 pixels at least); select a larger "
                     "area or choose white noise"),
                   sample->rect.width, sample->rect.height);
      return FALSE;
    }
  if (status != BM3D_OK)
    {
      g_set_error (error, BM3D_RENDER_ERROR, status,
                   _("The camera noise could not be estimated: %s"),
                   report->message[0] ? report->message
                                      : bm3d_status_string (status));
      return FALSE;
    }
  return TRUE;
}

gboolean
bm3d_render_estimate_middle (GeglBuffer          *source,
                             const Bm3dLayout    *layout,
                             const GeglRectangle *area,
                             gint                 level,
                             const bm3d_params   *params,
                             bm3d_noise_profile  *profile,
                             gfloat              *sigma,
                             bm3d_report         *report,
                             GError             **error)
{
  GeglRectangle  sample_rect;
  Bm3dFloatRect *sample;
  bm3d_report    scratch;
  gboolean       ok;

  if (! report)
    report = &scratch;

  bm3d_estimate_rect (area, &sample_rect);
  sample = bm3d_float_rect_read_level (source, layout, &sample_rect, area,
                                       level, error);
  if (! sample)
    return FALSE;
  if (profile)
    ok = bm3d_render_estimate_profile (sample, params, profile, report,
                                       NULL, error);
  else if ((ok = bm3d_render_estimate (sample, params, sigma, report, NULL,
                                       error)))
    *sigma = MAX (*sigma, (gfloat) BM3D_ESTIMATE_FLOOR);
  bm3d_float_rect_unref (sample);
  return ok;
}

guchar *
bm3d_float_rect_to_u8 (const Bm3dFloatRect *pixels,
                       const Bm3dLayout    *layout,
                       const GeglRectangle *rect)
{
  gsize   row_u8 = (gsize) rect->width * layout->channels;
  guchar *buffer = g_new (guchar, row_u8 * rect->height);
  gint    y;

  g_return_val_if_fail (pixels->scale == 1.0f, buffer);
  for (y = 0; y < rect->height; y++)
    babl_process (layout->to_u8,
                  bm3d_float_rect_at (pixels, rect->x, rect->y + y),
                  buffer + y * row_u8, rect->width);
  return buffer;
}
