/* BM3D Denoise for GIMP — the plug-in-bm3d-denoise procedure.
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

#include <math.h>
#include <string.h>

#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include "bm3d.h"
#include "bm3d-intl.h"
#include "bm3d-values.h"
#include "bm3d-dialog.h"

/* Pixels read around the area being denoised, so that block matching
 * near its edges sees real neighbours instead of mirrored ones; the same
 * overlap the engine gives its own tiles.  */
#define CONTEXT_MARGIN  48

/* The final run denoises the selection this many rows at a time, so
 * that memory follows the image's width, not its area.  The environment
 * variable BM3D_STRIP_ROWS overrides it (tests use small strips).  */
#define STRIP_ROWS      1024

#define BM3D_GIMP_ERROR (g_quark_from_static_string ("bm3d-denoise-gimp-error"))

/* How the drawable's pixels travel to the engine: always float, always
 * in the perceptual (gamma) encoding, whatever the image precision.  */
typedef struct
{
  const Babl *format;      /* float, what the engine sees        */
  const Babl *format_u8;   /* 8-bit, what the preview draws      */
  gint        channels;
  gboolean    has_alpha;
} PixelLayout;

/* The engine reports each strip's fraction; GIMP shows the whole run's.  */
typedef struct
{
  gdouble base;    /* done before the current strip     */
  gdouble share;   /* the current strip's part of it    */
  gdouble last;    /* the last fraction sent to GIMP    */
} ProgressState;


static void      query            (void);
static void      run              (const gchar       *name,
                                   gint               nparams,
                                   const GimpParam   *param,
                                   gint              *nreturn_vals,
                                   GimpParam        **return_vals);

static gboolean  denoise_drawable (gint32             drawable_id,
                                   const Bm3dValues  *vals,
                                   GimpPreview       *preview,
                                   GimpRunMode        run_mode,
                                   GError           **error);


const GimpPlugInInfo PLUG_IN_INFO =
{
  NULL,  /* init_proc  */
  NULL,  /* quit_proc  */
  query, /* query_proc */
  run,   /* run_proc   */
};

static const gchar *const mode_labels[] =
{
  N_("BM3D (two phases; CBM3D for colour)"),
  N_("BM3D, first phase only (faster)"),
  N_("Non-local means"),
  N_("Isoline")
};

static const gchar *const backend_labels[] =
{
  N_("Automatic (GPU when available)"),
  N_("CPU"),
  N_("CUDA (NVIDIA GPU)")
};

MAIN ()


const gchar *
bm3d_values_mode_label (gint32 mode)
{
  if (mode < BM3D_VALUES_MODE_MIN || mode > BM3D_VALUES_MODE_MAX)
    return "?";
  return _(mode_labels[mode]);
}

const gchar *
bm3d_values_backend_label (gint32 backend)
{
  if (backend < BM3D_VALUES_BACKEND_MIN || backend > BM3D_VALUES_BACKEND_MAX)
    return "?";
  return _(backend_labels[backend]);
}

static void
query (void)
{
  static const GimpParamDef args[] =
  {
    { GIMP_PDB_INT32,    "run-mode", "The run mode { RUN-INTERACTIVE (0), "
                                     "RUN-NONINTERACTIVE (1), "
                                     "RUN-WITH-LAST-VALS (2) }" },
    { GIMP_PDB_IMAGE,    "image",    "Input image" },
    { GIMP_PDB_DRAWABLE, "drawable", "Layer, layer mask or channel to "
                                     "denoise (RGB or grayscale)" },
    { GIMP_PDB_FLOAT,    "sigma",    "Noise level: the standard deviation of "
                                     "the noise on a 0..255 scale whatever "
                                     "the image precision (0 < sigma <= 255; "
                                     "0 = estimate from the image, not "
                                     "available yet)" },
    { GIMP_PDB_INT32,    "mode",     "Method { BM3D, two phases, CBM3D for "
                                     "colour (0), BM3D first phase only (1), "
                                     "non-local means (2), isoline (3) }" },
    { GIMP_PDB_INT32,    "backend",  "Where to compute { automatic: CUDA GPU "
                                     "when usable, else CPU (0), CPU (1), "
                                     "CUDA (2) }" }
  };

  gimp_plugin_domain_register (GETTEXT_PACKAGE, PLUGIN_LOCALEDIR);

  gimp_install_procedure (PLUG_IN_PROC,
                          N_("Remove sensor noise with block matching "
                             "and 3D filtering (BM3D)"),
                          N_("Removes random noise while keeping edges and "
                             "fine texture.  Sigma is the noise level: how "
                             "far, on a 0 to 255 scale, pixels stray from "
                             "their true value.  Start near 5 for a clean "
                             "photograph, 15 to 25 for a high-ISO shot, and "
                             "raise it until the grain is gone; too high "
                             "smooths real detail away.  Mode 0 (BM3D) gives "
                             "the best result in two passes and treats colour "
                             "images as one (CBM3D); mode 1 runs the first "
                             "pass only, faster and a little softer.  The "
                             "backend chooses where the work is done: "
                             "automatic uses an NVIDIA GPU through CUDA when "
                             "one is usable and the CPU otherwise.  Pixels "
                             "are denoised in their perceptual (gamma) "
                             "encoding, as they look, whatever the image "
                             "precision; alpha is kept exactly, and only the "
                             "selection changes."),
                          "The BM3D Denoise for GIMP authors",
                          "The BM3D Denoise for GIMP authors",
                          "2026",
                          N_("_BM3D Denoise..."),
                          "RGB*, GRAY*",
                          GIMP_PLUGIN,
                          G_N_ELEMENTS (args), 0,
                          args, NULL);

  gimp_plugin_menu_register (PLUG_IN_PROC, "<Image>/Filters/Enhance");
}

/* ---- parameters ------------------------------------------------------ */

static void
values_set_defaults (Bm3dValues *vals)
{
  memset (vals, 0, sizeof *vals);
  vals->version = BM3D_VALUES_VERSION;
  vals->sigma = BM3D_VALUES_SIGMA_DEFAULT;
  vals->mode = BM3D_VALUES_MODE_DEFAULT;
  vals->backend = BM3D_VALUES_BACKEND_DEFAULT;
}

/* Returns NULL when `vals` can be run, else a message naming the bad
 * parameter and its allowed range.  */
static gchar *
values_check (const Bm3dValues *vals)
{
  if (! isfinite (vals->sigma)
      || vals->sigma < BM3D_VALUES_SIGMA_MIN
      || vals->sigma > BM3D_VALUES_SIGMA_MAX)
    return g_strdup_printf (_("sigma must be a number from 0 to 255 (the "
                              "noise level on a 0..255 scale); got %g"),
                            vals->sigma);

  if (vals->sigma == 0.0)
    return g_strdup (_("sigma 0 (estimate the noise level from the image) "
                       "is not available yet; give the noise level, above "
                       "0 and at most 255"));

  if (vals->mode < BM3D_VALUES_MODE_MIN || vals->mode > BM3D_VALUES_MODE_MAX)
    return g_strdup_printf (_("mode must be 0 (BM3D), 1 (BM3D first phase "
                              "only), 2 (non-local means) or 3 (isoline); "
                              "got %d"), vals->mode);

  if (vals->backend < BM3D_VALUES_BACKEND_MIN
      || vals->backend > BM3D_VALUES_BACKEND_MAX)
    return g_strdup_printf (_("backend must be 0 (automatic), 1 (CPU) or "
                              "2 (CUDA); got %d"), vals->backend);

  return NULL;
}

/* Values saved by another version, or damaged, are never misread: the
 * defaults are used instead.  */
static void
values_load_last (Bm3dValues *vals)
{
  Bm3dValues saved;
  gchar     *problem;

  values_set_defaults (vals);

  if (gimp_get_data_size (PLUG_IN_PROC) != sizeof saved)
    return;
  if (! gimp_get_data (PLUG_IN_PROC, &saved))
    return;
  if (saved.version != BM3D_VALUES_VERSION)
    return;

  problem = values_check (&saved);
  if (problem)
    {
      g_free (problem);
      return;
    }
  *vals = saved;
}

/* ---- pixels ---------------------------------------------------------- */

static void
pixel_layout_for (gint32 drawable_id, PixelLayout *layout)
{
  /* Layer masks and channels are gray whatever the image.  */
  gboolean rgb = (gimp_drawable_is_rgb (drawable_id)
                  && ! gimp_item_is_channel (drawable_id));

  layout->has_alpha = gimp_drawable_has_alpha (drawable_id);
  if (rgb)
    {
      layout->format = babl_format (layout->has_alpha ? "R'G'B'A float"
                                                      : "R'G'B' float");
      layout->format_u8 = babl_format (layout->has_alpha ? "R'G'B'A u8"
                                                         : "R'G'B' u8");
      layout->channels = layout->has_alpha ? 4 : 3;
    }
  else
    {
      layout->format = babl_format (layout->has_alpha ? "Y'A float"
                                                      : "Y' float");
      layout->format_u8 = babl_format (layout->has_alpha ? "Y'A u8"
                                                         : "Y' u8");
      layout->channels = layout->has_alpha ? 2 : 1;
    }
}

/* The area to change: the preview's visible part, or the selection's
 * bounds within the drawable.  FALSE when there is nothing to do.  */
static gboolean
area_to_denoise (gint32         drawable_id,
                 GimpPreview   *preview,
                 GeglRectangle *core)
{
  if (preview)
    {
      gimp_preview_get_position (preview, &core->x, &core->y);
      gimp_preview_get_size (preview, &core->width, &core->height);
      return core->width > 0 && core->height > 0;
    }

  return gimp_drawable_mask_intersect (drawable_id, &core->x, &core->y,
                                       &core->width, &core->height);
}

static void
area_with_context (const GeglRectangle *bounds,
                   const GeglRectangle *core,
                   GeglRectangle       *context)
{
  gint x0 = MAX (core->x - CONTEXT_MARGIN, bounds->x);
  gint y0 = MAX (core->y - CONTEXT_MARGIN, bounds->y);
  gint x1 = MIN (core->x + core->width + CONTEXT_MARGIN,
                 bounds->x + bounds->width);
  gint y1 = MIN (core->y + core->height + CONTEXT_MARGIN,
                 bounds->y + bounds->height);

  context->x = x0;
  context->y = y0;
  context->width = x1 - x0;
  context->height = y1 - y0;
}

/* Colour channels between GEGL's 0..1 and the engine's 0..255.  Alpha is
 * never touched, so it leaves exactly as it came.  */
static void
scale_colour (gfloat            *data,
              gsize              pixels,
              const PixelLayout *layout,
              gfloat             factor,
              gboolean           divide)
{
  gint colour = layout->channels - (layout->has_alpha ? 1 : 0);
  gsize p;
  gint c;

  for (p = 0; p < pixels; p++, data += layout->channels)
    for (c = 0; c < colour; c++)
      data[c] = divide ? data[c] / factor : data[c] * factor;
}

static void
draw_to_preview (GimpPreview         *preview,
                 const PixelLayout   *layout,
                 const gfloat        *first,
                 gsize                rowstride,
                 const GeglRectangle *core)
{
  const Babl *fish = babl_fish (layout->format, layout->format_u8);
  gsize       row_u8 = (gsize) core->width * layout->channels;
  guchar     *buf = g_new (guchar, row_u8 * core->height);
  gint        y;

  for (y = 0; y < core->height; y++)
    babl_process (fish, (const gchar *) first + y * rowstride,
                  buf + y * row_u8, core->width);

  gimp_preview_draw_buffer (preview, buf, row_u8);
  g_free (buf);
}

/* ---- the engine ------------------------------------------------------ */

static int
progress_update (double fraction, void *data)
{
  ProgressState *state = data;
  gdouble        overall = state->base + state->share * fraction;

  /* Each update is a round trip to GIMP: send whole percents only.  */
  if (fraction >= 1.0 || overall - state->last >= 0.01)
    {
      gimp_progress_update (overall);
      state->last = overall;
    }

  /* GIMP 2.10 gives a plug-in no way to see its progress cancelled: the
   * core ends the plug-in instead.  Nothing has been merged by then, so
   * the drawable stays as it was.  */
  return 0;
}

static gchar *
engine_error_message (bm3d_status        status,
                      const bm3d_report *report,
                      const Bm3dValues  *vals)
{
  const gchar *detail = report->message[0] ? report->message
                                           : bm3d_status_string (status);

  switch (status)
    {
    case BM3D_ERR_NOT_IMPLEMENTED:
      return g_strdup_printf (_("The mode “%s” is not implemented yet; "
                                "choose BM3D (mode 0) or BM3D first phase "
                                "only (mode 1)"),
                              bm3d_values_mode_label (vals->mode));
    case BM3D_ERR_BACKEND_UNAVAILABLE:
      return g_strdup_printf (_("The CUDA backend cannot be used (%s); "
                                "choose the automatic or the CPU backend"),
                              detail);
    case BM3D_ERR_OUT_OF_MEMORY:
      return g_strdup_printf (_("Not enough memory to denoise this area "
                                "(%s); select a smaller part of the image"),
                              detail);
    case BM3D_ERR_CANCELLED:
      return g_strdup (_("Denoising was cancelled"));
    default:
      return g_strdup_printf (_("Denoising failed: %s"), detail);
    }
}

/* The engine falling back from CUDA to the CPU is worth one notice per
 * run, not one per preview update.  A dialog box only when the GPU was
 * tried and failed: a machine without one is told on stderr, not
 * interrupted on every run.  */
static void
note_fall_back (const bm3d_report *report,
                GimpRunMode        run_mode)
{
  static gboolean noted = FALSE;

  if (! report->fell_back || noted)
    return;
  noted = TRUE;

  if (run_mode == GIMP_RUN_NONINTERACTIVE
      || report->fell_back != BM3D_FALLBACK_FAILED)
    g_printerr ("%s: %s\n", PLUG_IN_PROC, report->message);
  else
    g_message (_("The GPU could not be used, so the CPU did the work "
                 "instead.\n%s"), report->message);
}

/* Denoises `core` of `source`, read with up to CONTEXT_MARGIN pixels
 * of context around it, into `out`, a new float image of that context
 * area on GEGL's 0..1 scale; `core_start` points at the core's first
 * pixel in it.  Memory held: `out` and one more copy for the input,
 * plus the engine's own buffers during the call.  When CUDA failed and
 * the CPU took over, `params` keeps the CPU for the calls that follow.  */
static gboolean
denoise_area (GeglBuffer           *source,
              const PixelLayout    *layout,
              const GeglRectangle  *core,
              bm3d_params          *params,
              const Bm3dValues     *vals,
              GimpRunMode           run_mode,
              bm3d_image           *out,
              const gfloat        **core_start,
              GError              **error)
{
  GeglRectangle  context;
  bm3d_image     in;
  bm3d_report    report;
  bm3d_status    status;
  gsize          pixels;

  area_with_context (gegl_buffer_get_extent (source), core, &context);
  pixels = (gsize) context.width * context.height;

  memset (&in, 0, sizeof in);
  in.width = context.width;
  in.height = context.height;
  in.channels = layout->channels;
  in.has_alpha = layout->has_alpha;
  in.stride = (size_t) context.width * layout->channels;
  *out = in;
  in.data = g_try_new (gfloat, pixels * layout->channels);
  out->data = g_try_new (gfloat, pixels * layout->channels);
  if (! in.data || ! out->data)
    {
      g_free (in.data);
      g_clear_pointer (&out->data, g_free);
      g_set_error (error, BM3D_GIMP_ERROR, 0,
                   _("Not enough memory to denoise a %d × %d area; select "
                     "a smaller part of the image"),
                   context.width, context.height);
      return FALSE;
    }

  gegl_buffer_get (source, &context, 1.0, layout->format, in.data,
                   GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  scale_colour (in.data, pixels, layout, 255.0f, FALSE);

  status = bm3d_denoise (&in, out, params, &report);
  g_free (in.data);

  if (status != BM3D_OK)
    {
      gchar *message = engine_error_message (status, &report, vals);

      g_set_error_literal (error, BM3D_GIMP_ERROR, status, message);
      g_free (message);
      g_clear_pointer (&out->data, g_free);
      return FALSE;
    }
  note_fall_back (&report, run_mode);
  if (report.fell_back)
    params->backend = BM3D_BACKEND_CPU;

  scale_colour (out->data, pixels, layout, 255.0f, TRUE);
  *core_start = out->data + (gsize) (core->y - context.y) * out->stride
                + (gsize) (core->x - context.x) * layout->channels;
  return TRUE;
}

static gint
strip_rows (void)
{
  const gchar *rows = g_getenv ("BM3D_STRIP_ROWS");
  gint64       n = rows ? g_ascii_strtoll (rows, NULL, 10) : 0;

  return n > 0 && n <= G_MAXINT ? (gint) n : STRIP_ROWS;
}

/* The final run: `area` in strips of strip_rows () rows, each read with
 * its own context, so memory stays at about
 *   2 x (width + 96) x (rows + 96) x channels x 4 bytes
 * here, plus the engine's buffers for one strip, whatever the height.
 * Results gather in the shadow buffer, merged only once every strip has
 * succeeded: after any error the drawable stays as it was.  */
static gboolean
denoise_in_strips (gint32               drawable_id,
                   GeglBuffer          *source,
                   const PixelLayout   *layout,
                   const GeglRectangle *area,
                   bm3d_params         *params,
                   const Bm3dValues    *vals,
                   GimpRunMode          run_mode,
                   GError             **error)
{
  GeglBuffer    *shadow = gimp_drawable_get_shadow_buffer (drawable_id);
  ProgressState  progress = { 0.0, 0.0, 0.0 };
  GeglRectangle  strip = *area;
  gint           rows = strip_rows ();
  gint           end = area->y + area->height;
  gboolean       ok = TRUE;

  params->progress = progress_update;
  params->progress_data = &progress;

  for (strip.y = area->y; ok && strip.y < end; strip.y += rows)
    {
      bm3d_image    out;
      const gfloat *core_start;

      strip.height = MIN (rows, end - strip.y);
      progress.base = (gdouble) (strip.y - area->y) / area->height;
      progress.share = (gdouble) strip.height / area->height;

      ok = denoise_area (source, layout, &strip, params, vals, run_mode,
                         &out, &core_start, error);
      if (ok)
        {
          gegl_buffer_set (shadow, &strip, 0, layout->format, core_start,
                           out.stride * sizeof (gfloat));
          /* Send the strip to GIMP now rather than keep it here.  */
          gegl_buffer_flush (shadow);
          g_free (out.data);
        }
    }
  g_object_unref (shadow);

  if (! ok)
    {
      gimp_drawable_free_shadow (drawable_id);
      return FALSE;
    }

  /* One undo step, blended through the selection mask.  */
  gimp_drawable_merge_shadow (drawable_id, TRUE);
  gimp_drawable_update (drawable_id, area->x, area->y,
                        area->width, area->height);
  return TRUE;
}

/* Denoises the selected part of the drawable, or, with a preview, the
 * part the preview shows in one piece: the same denoise_area (), so
 * the preview tells the truth.  */
static gboolean
denoise_drawable (gint32             drawable_id,
                  const Bm3dValues  *vals,
                  GimpPreview       *preview,
                  GimpRunMode        run_mode,
                  GError           **error)
{
  PixelLayout    layout;
  GeglRectangle  area;
  GeglBuffer    *source;
  bm3d_params    params;
  bm3d_image     out;
  const gfloat  *core_start;
  gboolean       ok;

  if (! area_to_denoise (drawable_id, preview, &area))
    return TRUE;

  pixel_layout_for (drawable_id, &layout);
  bm3d_params_init (&params);
  params.sigma = (float) vals->sigma;
  params.mode = (bm3d_mode) vals->mode;
  params.backend = (bm3d_backend) vals->backend;
  source = gimp_drawable_get_buffer (drawable_id);

  if (preview)
    {
      ok = denoise_area (source, &layout, &area, &params, vals, run_mode,
                         &out, &core_start, error);
      if (ok)
        {
          draw_to_preview (preview, &layout, core_start,
                           out.stride * sizeof (gfloat), &area);
          g_free (out.data);
        }
    }
  else
    ok = denoise_in_strips (drawable_id, source, &layout, &area, &params,
                            vals, run_mode, error);

  g_object_unref (source);
  return ok;
}

static gchar *
render_preview (gint32            drawable_id,
                const Bm3dValues *vals,
                GimpPreview      *preview)
{
  GError *error = NULL;
  gchar  *message;

  if (denoise_drawable (drawable_id, vals, preview, GIMP_RUN_INTERACTIVE,
                        &error))
    return NULL;

  message = g_strdup (error->message);
  g_error_free (error);
  return message;
}

/* ---- run ------------------------------------------------------------- */

static void
set_error_return (GimpParam         *values,
                  gint              *nreturn_vals,
                  GimpPDBStatusType  status,
                  const gchar       *message)
{
  static gchar *kept = NULL;

  /* The message must outlive run (): GIMP reads it afterwards.  */
  g_free (kept);
  kept = g_strdup (message);

  values[0].data.d_status = status;
  values[1].type = GIMP_PDB_STRING;
  values[1].data.d_string = kept;
  *nreturn_vals = 2;
}

static void
run (const gchar      *name,
     gint              nparams,
     const GimpParam  *param,
     gint             *nreturn_vals,
     GimpParam       **return_vals)
{
  static GimpParam  values[2];
  GimpRunMode       run_mode;
  gint32            drawable_id;
  Bm3dValues        vals;
  gchar            *problem = NULL;
  GError           *error = NULL;

  bindtextdomain (GETTEXT_PACKAGE, PLUGIN_LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  gegl_init (NULL, NULL);

  *nreturn_vals = 1;
  *return_vals = values;
  values[0].type = GIMP_PDB_STATUS;
  values[0].data.d_status = GIMP_PDB_SUCCESS;

  run_mode = param[0].data.d_int32;
  drawable_id = nparams >= 3 ? param[2].data.d_drawable : -1;

  switch (run_mode)
    {
    case GIMP_RUN_NONINTERACTIVE:
      if (nparams != 6)
        {
          set_error_return (values, nreturn_vals, GIMP_PDB_CALLING_ERROR,
                            _("plug-in-bm3d-denoise takes 6 arguments: "
                              "run-mode, image, drawable, sigma, mode, "
                              "backend"));
          return;
        }
      values_set_defaults (&vals);
      vals.sigma = param[3].data.d_float;
      vals.mode = param[4].data.d_int32;
      vals.backend = param[5].data.d_int32;
      problem = values_check (&vals);
      if (problem)
        {
          set_error_return (values, nreturn_vals, GIMP_PDB_CALLING_ERROR,
                            problem);
          g_free (problem);
          return;
        }
      break;

    case GIMP_RUN_INTERACTIVE:
    case GIMP_RUN_WITH_LAST_VALS:
      values_load_last (&vals);
      break;

    default:
      values[0].data.d_status = GIMP_PDB_CALLING_ERROR;
      return;
    }

  if (! gimp_item_is_valid (drawable_id))
    {
      set_error_return (values, nreturn_vals, GIMP_PDB_CALLING_ERROR,
                        _("drawable is not a valid layer, layer mask or "
                          "channel"));
      return;
    }

  if (gimp_drawable_is_indexed (drawable_id))
    {
      problem = g_strdup (_("BM3D Denoise works on RGB and grayscale "
                            "images only; convert this indexed image "
                            "with Image ▸ Mode first"));
    }
  else if (gimp_item_is_group (drawable_id))
    {
      /* A group's pixels are its children's: GIMP refuses to change them.  */
      problem = g_strdup (_("A layer group cannot be denoised; choose a "
                            "layer inside it"));
    }
  else if (run_mode == GIMP_RUN_INTERACTIVE
           && ! bm3d_dialog_run (drawable_id, &vals, render_preview))
    {
      values[0].data.d_status = GIMP_PDB_CANCEL;
      return;
    }
  else
    {
      gimp_progress_init (_("BM3D denoising"));
      if (denoise_drawable (drawable_id, &vals, NULL, run_mode, &error))
        {
          gimp_progress_update (1.0);
          if (run_mode != GIMP_RUN_NONINTERACTIVE)
            gimp_displays_flush ();
          /* As GIMP's own filters do: only a choice made in the dialog
           * becomes the next run's starting point.  */
          if (run_mode == GIMP_RUN_INTERACTIVE)
            gimp_set_data (PLUG_IN_PROC, &vals, sizeof vals);
        }
      else
        {
          problem = g_strdup (error->message);
          g_error_free (error);
        }
    }

  if (problem)
    {
      /* Interactive: tell the user once.  Batch: the caller gets the
       * message with the status.  */
      if (run_mode == GIMP_RUN_NONINTERACTIVE)
        set_error_return (values, nreturn_vals, GIMP_PDB_EXECUTION_ERROR,
                          problem);
      else
        {
          gimp_message (problem);
          values[0].data.d_status = GIMP_PDB_EXECUTION_ERROR;
        }
      g_free (problem);
    }
}
