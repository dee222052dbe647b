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
#include "bm3d-render.h"
#include "bm3d-dialog.h"

/* The final run denoises the selection this many rows at a time, so
 * that memory follows the image's width, not its area.  The environment
 * variable BM3D_STRIP_ROWS overrides it (tests use small strips).  */
#define STRIP_ROWS      1024

/* An estimate below this (a clean or synthetic image) is raised to it:
 * the engine needs a positive sigma, and this one changes nothing
 * visible.  */
#define ESTIMATE_FLOOR  0.1

#define BM3D_GIMP_ERROR (g_quark_from_static_string ("bm3d-denoise-gimp-error"))

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
                                   GimpRunMode        run_mode,
                                   GError           **error);


const GimpPlugInInfo PLUG_IN_INFO =
{
  NULL,  /* init_proc  */
  NULL,  /* quit_proc  */
  query, /* query_proc */
  run,   /* run_proc   */
};

MAIN ()


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
                                     "the image precision (0 < sigma <= 255), "
                                     "or 0: estimate it from the image "
                                     "(the middle of the selection, at "
                                     "most 1024 x 1024 pixels) first" },
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

/* Values saved by another version, or damaged, are never misread: the
 * defaults are used instead.  */
static void
values_load_last (Bm3dValues *vals)
{
  Bm3dValues saved;
  gchar     *problem;

  bm3d_values_set_defaults (vals);

  if (gimp_get_data_size (PLUG_IN_PROC) != sizeof saved)
    return;
  if (! gimp_get_data (PLUG_IN_PROC, &saved))
    return;
  if (saved.version != BM3D_VALUES_VERSION)
    return;

  problem = bm3d_values_check (&saved);
  if (problem)
    {
      g_free (problem);
      return;
    }
  *vals = saved;
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

/* The engine falling back from CUDA to the CPU is worth one notice per
 * run, not one per strip.  A dialog box only when the GPU was tried and
 * failed: a machine without one is told on stderr, not interrupted on
 * every run.  */
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

static gint
strip_rows (void)
{
  const gchar *rows = g_getenv ("BM3D_STRIP_ROWS");
  gint64       n = rows ? g_ascii_strtoll (rows, NULL, 10) : 0;

  return n > 0 && n <= G_MAXINT ? (gint) n : STRIP_ROWS;
}

/* Sigma 0: the noise level of the middle of `area`, at most
 * BM3D_ESTIMATE_SIDE a side, so that a huge selection costs no more.
 * The dialog's Estimate button measures the same sample.  */
static gboolean
estimate_sigma (GeglBuffer          *source,
                const Bm3dLayout    *layout,
                const GeglRectangle *area,
                bm3d_params         *params,
                GError             **error)
{
  GeglRectangle  sample_rect;
  Bm3dPixels    *sample;
  bm3d_report    report;
  gfloat         sigma;
  gboolean       ok;

  bm3d_estimate_rect (area, &sample_rect);
  sample = bm3d_pixels_read (source, layout, &sample_rect, error);
  if (! sample)
    return FALSE;
  ok = bm3d_render_estimate (sample, params, &sigma, &report, NULL, error);
  bm3d_pixels_unref (sample);
  if (! ok)
    return FALSE;

  params->sigma = MAX (sigma, (gfloat) ESTIMATE_FLOOR);
  /* All nine digits: the same call with this sigma gives the same
   * pixels.  */
  g_printerr ("%s: estimated noise level (sigma) %.9g\n", PLUG_IN_PROC,
              (double) params->sigma);
  return TRUE;
}

/* The final run: `area` in strips of strip_rows () rows, each read with
 * the context the engine needs around it (bm3d_context_for), so memory
 * stays at about
 *   2 x (width + 96) x (rows + 96) x channels x 4 bytes
 * here, plus the engine's buffers for one strip, whatever the height.
 * Each strip goes through bm3d_render_area (), as the preview does.
 * Results gather in the shadow buffer, merged only once every strip has
 * succeeded: after any error the drawable stays as it was.  */
static gboolean
denoise_in_strips (gint32               drawable_id,
                   GeglBuffer          *source,
                   const Bm3dLayout    *layout,
                   const GeglRectangle *area,
                   bm3d_params         *params,
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
      GeglRectangle  context;
      Bm3dPixels    *input = NULL;
      Bm3dPixels    *output = NULL;
      bm3d_report    report;

      strip.height = MIN (rows, end - strip.y);
      progress.base = (gdouble) (strip.y - area->y) / area->height;
      progress.share = (gdouble) strip.height / area->height;

      ok = (bm3d_context_for (gegl_buffer_get_extent (source), &strip,
                              layout->channels - (layout->has_alpha ? 1 : 0),
                              params, &context, error)
            && (input = bm3d_pixels_read (source, layout, &context, error))
            && bm3d_render_area (input, &strip, params, &output, &report,
                                 NULL, error));
      bm3d_pixels_unref (input);
      if (ok)
        {
          note_fall_back (&report, run_mode);
          /* Once CUDA failed, the CPU takes the strips that follow.  */
          if (report.fell_back)
            params->backend = BM3D_BACKEND_CPU;
          gegl_buffer_set (shadow, &strip, 0, layout->format,
                           bm3d_pixels_at (output, strip.x, strip.y),
                           bm3d_pixels_rowstride (output));
          /* Send the strip to GIMP now rather than keep it here.  */
          gegl_buffer_flush (shadow);
          bm3d_pixels_unref (output);
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

/* Denoises the selected part of the drawable (its bounds; GIMP blends
 * through the mask), estimating sigma first when it is 0.  */
static gboolean
denoise_drawable (gint32             drawable_id,
                  const Bm3dValues  *vals,
                  GimpRunMode        run_mode,
                  GError           **error)
{
  Bm3dLayout     layout;
  GeglRectangle  area;
  GeglBuffer    *source;
  bm3d_params    params;
  gboolean       ok = TRUE;

  if (! gimp_drawable_mask_intersect (drawable_id, &area.x, &area.y,
                                      &area.width, &area.height))
    return TRUE;

  bm3d_layout_for (drawable_id, vals->mode == BM3D_MODE_NLM, &layout);
  bm3d_values_to_params (vals, &layout, &params);
  source = gimp_drawable_get_buffer (drawable_id);

  if (vals->sigma == 0.0)
    ok = estimate_sigma (source, &layout, &area, &params, error);
  if (ok)
    ok = denoise_in_strips (drawable_id, source, &layout, &area, &params,
                            run_mode, error);

  g_object_unref (source);
  return ok;
}

/* ---- run ------------------------------------------------------------- */

/* The catalogues' folder; BM3D_DENOISE_LOCALEDIR points the tests at the
 * build's own, before they are installed.  */
static const gchar *
locale_dir (void)
{
  const gchar *dir = g_getenv ("BM3D_DENOISE_LOCALEDIR");

  return dir && *dir ? dir : PLUGIN_LOCALEDIR;
}

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

  bindtextdomain (GETTEXT_PACKAGE, locale_dir ());
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
      bm3d_values_set_defaults (&vals);
      vals.sigma = param[3].data.d_float;
      vals.mode = param[4].data.d_int32;
      vals.backend = param[5].data.d_int32;
      problem = bm3d_values_check (&vals);
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
           && ! bm3d_dialog_run (drawable_id, &vals))
    {
      values[0].data.d_status = GIMP_PDB_CANCEL;
      return;
    }
  else
    {
      gimp_progress_init (_("BM3D denoising"));
      if (denoise_drawable (drawable_id, &vals, run_mode, &error))
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
