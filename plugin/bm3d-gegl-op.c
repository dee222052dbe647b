/* BM3D Denoise for GIMP — the GEGL operation bm3d:denoise, a loadable
 * GEGL module: GIMP 3 keeps it on a layer as a non-destructive filter,
 * and the `gegl` command runs it on files.
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
 * The pixel path is the procedure's (bm3d-render.c): the same float
 * R'G'B'(A) / Y'(A) layout, the same engine parameters from the same
 * settings (bm3d_values_to_params), the same context around each area
 * (bm3d_context_for), the same noise estimate on the same sample (the
 * middle of the image, BM3D_ESTIMATE_SIDE a side).  So an area GEGL asks
 * for comes out as the procedure's strips do, whatever GEGL's tiles.
 */

#include "config.h"

#include "bm3d-intl.h"
#include "bm3d-values.h"

/* Ranges and defaults from the engine's table of options, as the
 * procedure's arguments take them (sigma 0: estimate first, as there).  */
#define OPTION_DEFAULT(id)  (BM3D_VALUES_OPTION (id)->default_value)
#define OPTION_MIN(id)      (BM3D_VALUES_OPTION (id)->min)
#define OPTION_MAX(id)      (BM3D_VALUES_OPTION (id)->max)

#ifdef GEGL_PROPERTIES

/* The values are the procedure's (bm3d-values.h, asserted below); the
 * order of each list is its numbering; the labels are the table of
 * options' (gpu/core/options.c), so that they read, and translate, as
 * in the dialog.  */
enum_start (bm3d_gegl_noise)
  enum_value (BM3D_GEGL_NOISE_WHITE,  "white",  N_("White noise (sigma)"))
  enum_value (BM3D_GEGL_NOISE_CAMERA, "camera",
              N_("Camera noise (estimated from the photo)"))
enum_end (Bm3dGeglNoise)

enum_start (bm3d_gegl_mode)
  enum_value (BM3D_GEGL_MODE_BM3D,      "bm3d",
              N_("BM3D (two phases; CBM3D for colour)"))
  enum_value (BM3D_GEGL_MODE_BM3D_FAST, "bm3d-fast",
              N_("BM3D, first phase only (faster)"))
  enum_value (BM3D_GEGL_MODE_NLM,       "nlm",       N_("Non-local means"))
  enum_value (BM3D_GEGL_MODE_ISOLINE,   "isoline",   N_("Isoline"))
enum_end (Bm3dGeglMode)

enum_start (bm3d_gegl_backend)
  enum_value (BM3D_GEGL_BACKEND_AUTO, "auto",
              N_("Automatic (GPU when available)"))
  enum_value (BM3D_GEGL_BACKEND_CPU,  "cpu",  N_("CPU"))
  enum_value (BM3D_GEGL_BACKEND_CUDA, "cuda", N_("CUDA (NVIDIA GPU)"))
enum_end (Bm3dGeglBackend)

property_enum (noise, _("Noise"), Bm3dGeglNoise, bm3d_gegl_noise,
               BM3D_VALUES_NOISE_DEFAULT)
  description (_("Camera noise: measured once on the middle of the "
                 "image; white noise: the given sigma"))

property_double (strength, _("Strength"), OPTION_DEFAULT (STRENGTH))
  description (_("Camera noise: the multiple of the measured noise to "
                 "remove"))
  value_range (OPTION_MIN (STRENGTH), OPTION_MAX (STRENGTH))
  ui_range (OPTION_MIN (STRENGTH), OPTION_MAX (STRENGTH))

property_double (chroma_strength, _("Chroma strength"),
                 OPTION_DEFAULT (CHROMA_STRENGTH))
  description (_("Camera noise: the multiple of the measured colour "
                 "noise to remove, on top of the strength"))
  value_range (OPTION_MIN (CHROMA_STRENGTH), OPTION_MAX (CHROMA_STRENGTH))
  ui_range (OPTION_MIN (CHROMA_STRENGTH), OPTION_MAX (CHROMA_STRENGTH))

property_double (sigma, _("Sigma"), OPTION_DEFAULT (SIGMA))
  description (_("White noise: its deviation on a 0..255 scale; 0 "
                 "measures it on the middle of the image"))
  value_range (0.0, OPTION_MAX (SIGMA))
  ui_range (0.0, 100.0)

property_enum (mode, _("Mode"), Bm3dGeglMode, bm3d_gegl_mode,
               (gint) OPTION_DEFAULT (MODE))
  description (_("The denoising algorithm"))

property_enum (backend, _("Backend"), Bm3dGeglBackend, bm3d_gegl_backend,
               (gint) OPTION_DEFAULT (BACKEND))
  description (_("Where the work runs: an NVIDIA GPU when one is usable "
                 "(automatic), else the CPU"))

#else

#define GEGL_OP_AREA_FILTER
#define GEGL_OP_NAME     bm3d_gegl_denoise
#define GEGL_OP_C_SOURCE bm3d-gegl-op.c

#include <gegl-op.h>

#include <string.h>

#include "bm3d.h"
#include "bm3d-render.h"
#include "bm3d-gegl-estimate.h"

/* The catalogue of the labels above, bound when GEGL loads the module:
 * before its class installs them.  Only where the host has not bound it:
 * the plug-in loads GEGL's modules too, after binding the catalogue it
 * was told to use (BM3D_DENOISE_LOCALEDIR, GIMP 3's plug-in folder),
 * and keeps that choice.  An unbound domain answers the default folder,
 * which a domain never bound here stands for.  */
static void __attribute__ ((constructor))
bind_catalogue (void)
{
  const char *ours  = bindtextdomain (GETTEXT_PACKAGE, NULL);
  const char *fresh = bindtextdomain (GETTEXT_PACKAGE "-unbound", NULL);

  if (! ours || ! fresh || strcmp (ours, fresh) == 0)
    bindtextdomain (GETTEXT_PACKAGE, PLUGIN_LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
}

G_STATIC_ASSERT ((gint) BM3D_GEGL_NOISE_WHITE
                 == (gint) BM3D_VALUES_NOISE_WHITE);
G_STATIC_ASSERT ((gint) BM3D_GEGL_NOISE_CAMERA
                 == (gint) BM3D_VALUES_NOISE_CAMERA);
G_STATIC_ASSERT ((gint) BM3D_GEGL_MODE_BM3D
                 == (gint) BM3D_MODE_BM3D);
G_STATIC_ASSERT ((gint) BM3D_GEGL_MODE_ISOLINE
                 == (gint) BM3D_MODE_ISOLINE);
G_STATIC_ASSERT ((gint) BM3D_GEGL_BACKEND_CUDA
                 == (gint) BM3D_BACKEND_CUDA);

/* Whether the input holds gray or colour, with or without alpha, asked
 * of its format; nothing connected reads as RGBA.  */
static void
layout_for_source (const Babl *source,
                   Bm3dLayout *layout)
{
  gboolean    gray = FALSE;
  gboolean    has_alpha = TRUE;

  memset (layout, 0, sizeof *layout);
  if (source)
    {
      gray = (babl_get_model_flags (babl_format_get_model (source))
              & BABL_MODEL_FLAG_GRAY) != 0;
      has_alpha = babl_format_has_alpha (source);
      /* Integer pixels hold clipped noise only (bm3d_image_within_range's
       * rule); the settings that read the flag (bm3d_values_read_clipped
       * ()) get it, the others ignore it.  */
      layout->clipped = bm3d_format_is_integer (source);
    }
  bm3d_layout_set_formats (layout, ! gray, has_alpha, source);
}

/* The settings as the procedure holds them, the expert options at
 * their defaults.  */
static void
values_from_properties (GeglProperties *o,
                        Bm3dValues     *vals)
{
  bm3d_values_set_defaults (vals);
  vals->noise = o->noise;
  vals->strength = o->strength;
  vals->chroma_strength = o->chroma_strength;
  vals->sigma = o->sigma;
  vals->mode = o->mode;
  vals->backend = o->backend;
}

/* The widest context `params` may need whatever sigma the noise turns
 * out to have (an estimate is made in process (), and the engine's
 * margins grow with sigma above 40): the context of sigma 255 or of the
 * sigma given, whichever is wider.  */
static void
widest_context (bm3d_params *params,
                gint         colour_channels,
                gint        *margin,
                gint        *align)
{
  const gfloat sigmas[2] = { OPTION_MAX (SIGMA),
                             params->sigma > 0.0f
                             ? params->sigma : OPTION_DEFAULT (SIGMA) };
  gint         i, m, a;

  *margin = 0;
  *align = 1;
  for (i = 0; i < 2; i++)
    {
      params->sigma = sigmas[i];
      if (bm3d_context_margin (params, colour_channels, &m, &a, NULL)
          == BM3D_OK)
        {
          *margin = MAX (*margin, m);
          *align = MAX (*align, a);
        }
    }
}

/* The margin GEGL reads around each area it asks for: the engine's
 * context, and on the left and top the `align` - 1 pixels before it as
 * well, so that the context can start on the engine's alignment from
 * the image's origin (bm3d_context_for).  */
static void
prepare (GeglOperation *operation)
{
  GeglOperationAreaFilter *area = GEGL_OPERATION_AREA_FILTER (operation);
  GeglProperties          *o = GEGL_PROPERTIES (operation);
  Bm3dLayout               layout;
  Bm3dValues               vals;
  bm3d_params              params;
  gint                     margin = 0, align = 1;

  layout_for_source (gegl_operation_get_source_format (operation, "input"),
                     &layout);
  values_from_properties (o, &vals);
  bm3d_values_to_params (&vals, &layout, &params);
  widest_context (&params, layout.channels - (layout.has_alpha ? 1 : 0),
                  &margin, &align);
  area->left = area->top = margin + align - 1;
  area->right = area->bottom = margin;

  gegl_operation_set_format (operation, "input", layout.format);
  gegl_operation_set_format (operation, "output", layout.format);
  bm3d_gegl_estimate_watch (operation);
}

/* The input's extent: a denoiser adds no pixels around its input, as
 * the area filter's default (the input grown by the margins) would.  */
static GeglRectangle
get_bounding_box (GeglOperation *operation)
{
  const GeglRectangle *box;
  GeglRectangle        none = { 0, 0, 0, 0 };

  box = gegl_operation_source_get_bounding_box (operation, "input");
  return box ? *box : none;
}

/* The input's extent at mipmap `level`, in that level's coordinates.  */
static GeglRectangle
bounds_at_level (GeglOperation *operation,
                 gint           level)
{
  const GeglRectangle *box;
  GeglRectangle        bounds = { 0, 0, 0, 0 };
  gint                 x1, y1;

  box = gegl_operation_source_get_bounding_box (operation, "input");
  if (! box)
    return bounds;
  x1 = box->x + box->width;
  y1 = box->y + box->height;
  bounds.x = box->x >> level;
  bounds.y = box->y >> level;
  bounds.width = ((x1 + (1 << level) - 1) >> level) - bounds.x;
  bounds.height = ((y1 + (1 << level) - 1) >> level) - bounds.y;
  return bounds;
}

/* The engine's progress, passed to GEGL's only where a GEGL user on the
 * main loop's thread can take it (GIMP's main thread); GEGL gives an
 * operation no way to be cancelled part-way (GIMP stops between the
 * areas it asks for).  */
static int
report_progress (double  fraction,
                 void   *data)
{
  if (g_main_context_is_owner (g_main_context_default ()))
    gegl_operation_progress (data, fraction, "");
  return 0;
}

/* Says once per process why an area came out unchanged.  */
static void
warn_once (const gchar *message)
{
  static gsize warned = 0;

  if (g_once_init_enter (&warned))
    {
      g_printerr ("bm3d:denoise: %s; the input is passed through\n",
                  message);
      g_once_init_leave (&warned, 1);
    }
}

/* Mipmap levels (GIMP's canvas zoomed out below 100%): the area is
 * denoised at that level with the noise model scaled to it, not at
 * level 0.  Level 0 would denoise every full-resolution pixel behind a
 * zoomed-out view (a 12 MP photo shown whole: the whole BM3D run, a
 * minute and more on two cores) on each redraw, which is what the
 * levels exist to avoid.  A level's pixels are averages of 2^n x 2^n
 * pixels, which leave white noise 2^n times weaker: sigma is divided
 * so; camera noise is measured again on the level's own pixels, where
 * its correlation has shrunk as well.  At 100% and above (level 0) the
 * result is the procedure's.  */
static gboolean
denoise_area (GeglOperation       *operation,
              GeglBuffer          *input,
              GeglBuffer          *output,
              const GeglRectangle *roi,
              gint                 level,
              GError             **error)
{
  GeglProperties     *o = GEGL_PROPERTIES (operation);
  GeglRectangle       bounds = bounds_at_level (operation, level);
  GeglRectangle       context;
  Bm3dLayout          layout;
  Bm3dValues          vals;
  bm3d_params         params;
  bm3d_noise_profile  profile;
  bm3d_report         report;
  Bm3dFloatRect      *pixels = NULL, *result = NULL;
  gboolean            ok;

  layout_for_source (gegl_operation_get_source_format (operation, "input"),
                     &layout);
  values_from_properties (o, &vals);
  bm3d_values_to_params (&vals, &layout, &params);
  if (vals.noise == BM3D_VALUES_NOISE_CAMERA)
    {
      ok = bm3d_gegl_estimate (operation, input, &layout, &bounds, level,
                               &params, &profile, NULL, error);
      params.profile = &profile;
    }
  else if (vals.sigma == 0.0)
    ok = bm3d_gegl_estimate (operation, input, &layout, &bounds, level,
                             &params, NULL, &params.sigma, error);
  else
    {
      params.sigma = (float) (vals.sigma / (1 << level));
      ok = TRUE;
    }
  params.progress = report_progress;
  params.progress_data = operation;

  ok = ok && bm3d_context_for (&bounds, roi,
                               layout.channels - (layout.has_alpha ? 1 : 0),
                               &params, &context, error)
          && (pixels = bm3d_float_rect_read_level (input, &layout,
                                                   &context, &bounds, level,
                                                   error))
          && bm3d_render_area (pixels, roi, &params, &result, &report, NULL,
                               error);
  if (ok)
    gegl_buffer_set (output, roi, level, layout.format,
                     bm3d_float_rect_at (result, roi->x, roi->y),
                     bm3d_float_rect_rowstride (result));
  bm3d_float_rect_unref (pixels);
  bm3d_float_rect_unref (result);
  return ok;
}

static gboolean
process (GeglOperation       *operation,
         GeglBuffer          *input,
         GeglBuffer          *output,
         const GeglRectangle *roi,
         gint                 level)
{
  GError *error = NULL;

  if (roi->width <= 0 || roi->height <= 0)
    return TRUE;
  if (denoise_area (operation, input, output, roi, level, &error))
    return TRUE;

  /* A refused area (camera noise on a tiny zoomed-out level, a CUDA
   * backend asked for where there is none) shows the input rather than
   * a hole.  */
  warn_once (error ? error->message : "denoising failed");
  g_clear_error (&error);
  gegl_buffer_copy (input, roi, GEGL_ABYSS_NONE, output, roi);
  return TRUE;
}

static void
gegl_op_class_init (GeglOpClass *klass)
{
  GeglOperationClass       *operation_class = GEGL_OPERATION_CLASS (klass);
  GeglOperationFilterClass *filter_class = GEGL_OPERATION_FILTER_CLASS (klass);

  operation_class->prepare = prepare;
  operation_class->get_bounding_box = get_bounding_box;
  filter_class->process = process;
  /* The engine spreads one area over every core itself (OpenMP, or the
   * GPU); GEGL cutting it into one piece per thread would add a margin
   * to each piece and run the pieces' engines against each other.  */
  operation_class->threaded = FALSE;

  /* No gimp:menu-path: GIMP 3's one menu entry stays Filters > Enhance >
   * BM3D Denoise..., the procedure's dialog, which attaches this
   * operation; it is edited later from the layer's filter list.  */
  gegl_operation_class_set_keys (operation_class,
    "name",        BM3D_GEGL_OP,
    "title",       _("BM3D Denoise"),
    "categories",  "enhance:noise-reduction",
    "description", _("Removes camera or white noise with BM3D (block "
                     "matching and 3D filtering), or with non-local "
                     "means or the isoline filter; the same pixels as "
                     "the BM3D Denoise procedure and the bm3d-denoise "
                     "command"),
    NULL);
}

#endif
