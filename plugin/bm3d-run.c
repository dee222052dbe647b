/* BM3D Denoise for GIMP — the final run, shared by both front ends.
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

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libgimp/gimp.h>

#include "bm3d.h"
#include "bm3d-intl.h"
#include "bm3d-values.h"
#include "bm3d-render.h"
#include "bm3d-layout.h"
#include "bm3d-run.h"

/* The final run denoises the selection this many rows at a time, so
 * that memory follows the image's width, not its area.  The environment
 * variable BM3D_STRIP_ROWS overrides it (tests use small strips).  */
#define STRIP_ROWS      1024

#define BM3D_RUN_ERROR (g_quark_from_static_string ("bm3d-run-error"))

/* Where the final run's time goes, in seconds, printed on stderr with
 * BM3D_PLUGIN_TIMES=1 or BM3D_PLUGIN_PASSTHROUGH=1 (bench/plugin-cost.sh
 * reads it).  */
typedef struct
{
  GTimer  *timer;
  gdouble  read;     /* gegl_buffer_get from the drawable, to float  */
  gdouble  engine;   /* bm3d_render_area: the engine, or the copy    */
  gdouble  write;    /* gegl_buffer_set into the shadow, and flush   */
  gdouble  merge;    /* gimp_drawable_merge_shadow and update        */
} StageTimes;

/* The engine reports each strip's fraction; GIMP shows the whole run's.  */
typedef struct
{
  gdouble base;    /* done before the current strip     */
  gdouble share;   /* the current strip's part of it    */
  gdouble last;    /* the last fraction sent to GIMP    */
} ProgressState;


/* An environment switch: docs/environment.md lists them all.  */
const gchar *
bm3d_run_locale_dir (void)
{
  const gchar *dir = g_getenv ("BM3D_DENOISE_LOCALEDIR");

  return dir && *dir ? dir : PLUGIN_LOCALEDIR;
}


gboolean
bm3d_run_check_drawable (Bm3dDrawable   drawable,
                         GError       **error)
{
  if (! bm3d_drawable_is_valid (drawable))
    g_set_error_literal (error, BM3D_RUN_ERROR, 0,
                         _("drawable is not a valid layer, layer mask or "
                           "channel"));
  else if (gimp_drawable_is_indexed (drawable))
    g_set_error_literal (error, BM3D_RUN_ERROR, 0,
                         _("BM3D Denoise works on RGB and grayscale "
                           "images only; convert this indexed image "
                           "with Image ▸ Mode first"));
  /* A group's pixels are its children's: GIMP refuses to change them.  */
  else if (bm3d_drawable_is_group (drawable))
    g_set_error_literal (error, BM3D_RUN_ERROR, 0,
                         _("A layer group cannot be denoised; choose a "
                           "layer inside it"));
  else
    return TRUE;
  return FALSE;
}

static int
progress_update (double fraction, void *data)
{
  ProgressState *state = data;
  gdouble        overall = state->base + state->share * fraction;

  /* Each update is a round trip to GIMP: send whole percents only.  */
  if (fraction >= 1.0 || overall - state->last >= 0.01)
    {
      bm3d_run_progress_update (overall);
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

/* Camera noise that could not be measured: what the engine did instead,
 * once per run.  */
static void
note_unmeasured (const bm3d_report *report,
                 GimpRunMode        run_mode)
{
  static gboolean noted = FALSE;

  if (! report->noise_unmeasured || noted)
    return;
  noted = TRUE;
  if (run_mode == GIMP_RUN_NONINTERACTIVE)
    g_printerr ("%s: %s\n", PLUG_IN_PROC, report->notice);
  else
    g_message ("%s", report->notice);
}

/* An environment switch: docs/environment.md lists them all.  */
gboolean
bm3d_run_times_wanted (void)
{
  const gchar *value = g_getenv ("BM3D_PLUGIN_TIMES");

  return (value && strcmp (value, "1") == 0) || bm3d_render_passthrough ();
}

/* BM3D_PROGRESS_LOG (a file; an environment switch, docs/environment.md):
 * every call to GIMP's progress API, with the value sent and GIMP's
 * answer, one line each, appended as it happens:
 *   PID init MESSAGE -> 1
 *   PID update 0.250000 -> 1
 * The tests read it to see the bar started and brought to its end, and
 * to know when the final run is under way.  */
static void
progress_log (const gchar *what,
              gboolean     answer)
{
  const gchar *name = g_getenv ("BM3D_PROGRESS_LOG");
  FILE        *log;

  if (! name || ! *name || ! (log = fopen (name, "a")))
    return;
  fprintf (log, "%ld %s -> %d\n", (long) getpid (), what, answer ? 1 : 0);
  fclose (log);
}

gboolean
bm3d_run_progress_init (const gchar *message)
{
  gboolean  answer = gimp_progress_init (message);
  gchar    *what = g_strdup_printf ("init %s", message);

  progress_log (what, answer);
  g_free (what);
  return answer;
}

gboolean
bm3d_run_progress_update (gdouble fraction)
{
  gboolean answer = gimp_progress_update (fraction);
  gchar    what[64];

  g_snprintf (what, sizeof what, "update %.6f", fraction);
  progress_log (what, answer);
  return answer;
}

/* Seconds since the last lap.  */
static gdouble
lap (StageTimes *times)
{
  gdouble seconds = g_timer_elapsed (times->timer, NULL);

  g_timer_start (times->timer);
  return seconds;
}

/* The rows of the final run's strips over `area`: STRIP_ROWS, or the
 * environment switch BM3D_STRIP_ROWS (docs/environment.md lists them
 * all).  Where the engine may spread a strip over several GPUs (two or
 * more usable, the CPU not asked for), a strip holds at least
 * BM3D_SPLIT_MIN_PIXELS, the least the engine splits: a 100 MP photo
 * then runs in four strips, each on every GPU, where strips of 1024 rows
 * would each run on one.  The memory then follows that many pixels
 * rather than the width.  */
static gint
strip_rows (const GeglRectangle *area, const bm3d_params *params)
{
  const gchar *rows = g_getenv ("BM3D_STRIP_ROWS");
  gint64       n = rows ? g_ascii_strtoll (rows, NULL, 10) : 0;

  if (n > 0 && n <= G_MAXINT)
    return (gint) n;
  if (params->backend != BM3D_BACKEND_CPU && area->width > 0
      && bm3d_cuda_device_count () >= 2)
    {
      n = ((gint64) BM3D_SPLIT_MIN_PIXELS + area->width - 1) / area->width;
      if (n > STRIP_ROWS)
        return (gint) MIN (n, G_MAXINT);
    }
  return STRIP_ROWS;
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
  gfloat sigma;

  if (! bm3d_render_estimate_middle (source, layout, area, 0, params, NULL,
                                     &sigma, NULL, error))
    return FALSE;
  params->sigma = sigma;
  /* All nine digits: the same call with this sigma gives the same
   * pixels.  */
  g_printerr ("%s: estimated noise level (sigma) %.9g\n", PLUG_IN_PROC,
              (double) params->sigma);
  return TRUE;
}

/* Camera noise: the profile of the middle of `area`, the same sample
 * sigma 0 reads and the dialog's Estimate button measures, so that one
 * profile serves every strip and the preview showed what this run
 * does.  */
static gboolean
estimate_profile (GeglBuffer          *source,
                  const Bm3dLayout    *layout,
                  const GeglRectangle *area,
                  bm3d_params         *params,
                  bm3d_noise_profile  *profile,
                  GimpRunMode          run_mode,
                  GError             **error)
{
  bm3d_report report;
  gfloat      luma, chroma;

  /* The report says whether the noise could be measured at all.  */
  if (! bm3d_render_estimate_middle (source, layout, area, 0, params,
                                     profile, NULL, &report, error))
    return FALSE;

  note_unmeasured (&report, run_mode);
  params->profile = profile;
  bm3d_noise_profile_levels (profile, &luma, &chroma);
  /* No white sigma: BM3D filters the profile itself, and the modes
   * that take one from it (non-local means, isoline) cap it.  */
  g_printerr ("%s: estimated camera noise: luma %.4g, chroma %.4g\n",
              PLUG_IN_BINARY, (double) luma, (double) chroma);
  return TRUE;
}

/* The largest context any strip of `area` reads, in `largest`: FALSE
 * when the engine refuses `params` (the strips' loop then says why).  */
static gboolean
largest_context (GeglBuffer          *source,
                 const Bm3dLayout    *layout,
                 const GeglRectangle *area,
                 gint                 rows,
                 const bm3d_params   *params,
                 GeglRectangle       *largest)
{
  GeglRectangle strip = *area;
  GeglRectangle context;
  gint          end = area->y + area->height;

  largest->x = largest->y = largest->width = largest->height = 0;
  for (strip.y = area->y; strip.y < end; strip.y += rows)
    {
      strip.height = MIN (rows, end - strip.y);
      if (! bm3d_context_for (gegl_buffer_get_extent (source), &strip,
                              layout->channels - (layout->has_alpha ? 1 : 0),
                              params, &context, NULL))
        return FALSE;
      if ((gint64) context.width * context.height
          > (gint64) largest->width * largest->height)
        *largest = context;
    }
  return TRUE;
}

/* The final run: `area` in strips of strip_rows () rows, each read with
 * the context the engine needs around it (bm3d_context_for), so memory
 * stays at about
 *   2 x (width + 96) x (rows + 96) x channels x 4 bytes
 * here, plus the engine's buffers for one strip, whatever the height.
 * Each strip goes through bm3d_render_area (), as the preview does.
 * Results gather in `shadow`.  */
static gboolean
denoise_in_strips (GeglBuffer          *source,
                   GeglBuffer          *shadow,
                   const Bm3dLayout    *layout,
                   const GeglRectangle *area,
                   bm3d_params         *params,
                   GimpRunMode          run_mode,
                   StageTimes          *times,
                   GError             **error)
{
  ProgressState  progress = { 0.0, 0.0, 0.0 };
  GeglRectangle  strip = *area;
  gint           rows = strip_rows (area, params);
  gint           end = area->y + area->height;
  gboolean       ok = TRUE;
  /* One input and one output serve every strip, made for the largest
   * context at once.  */
  Bm3dFloatRect *input = NULL;
  Bm3dFloatRect *output = NULL;
  GeglRectangle  largest;

  params->progress = progress_update;
  params->progress_data = &progress;
  if (largest_context (source, layout, area, rows, params, &largest))
    ok = ((input = bm3d_float_rect_new_spare (&largest, layout->channels,
                                              error))
          && (output = bm3d_float_rect_new_spare (&largest, layout->channels,
                                                  error)));

  for (strip.y = area->y; ok && strip.y < end; strip.y += rows)
    {
      GeglRectangle  context;
      bm3d_report    report;

      strip.height = MIN (rows, end - strip.y);
      progress.base = (gdouble) (strip.y - area->y) / area->height;
      progress.share = (gdouble) strip.height / area->height;

      lap (times);
      ok = (bm3d_context_for (gegl_buffer_get_extent (source), &strip,
                              layout->channels - (layout->has_alpha ? 1 : 0),
                              params, &context, error)
            && (input = bm3d_float_rect_read_reusing (input, source, layout,
                                                      &context, error)));
      times->read += lap (times);
      ok = ok && bm3d_render_area (input, &strip, params, &output, &report,
                                   NULL, error);
      times->engine += lap (times);
      if (ok)
        {
          note_fall_back (&report, run_mode);
          note_unmeasured (&report, run_mode);
          /* Once CUDA failed, the CPU takes the strips that follow;
           * not when another GPU took a failed one's band.  */
          if (report.fell_back && report.fell_back != BM3D_FALLBACK_DEVICE)
            params->backend = BM3D_BACKEND_CPU;
          gegl_buffer_set (shadow, &strip, 0, layout->format,
                           bm3d_float_rect_at (output, strip.x, strip.y),
                           bm3d_float_rect_rowstride (output));
          /* Send the strip to GIMP now rather than keep it here.  */
          gegl_buffer_flush (shadow);
          times->write += lap (times);
        }
    }
  bm3d_float_rect_unref (input);
  bm3d_float_rect_unref (output);
  return ok;
}

/* The strips into the drawable's shadow buffer, merged once every strip
 * has succeeded: after any error the drawable stays as it was.  */
static gboolean
denoise_drawable (Bm3dDrawable         drawable,
                  GeglBuffer          *source,
                  const Bm3dLayout    *layout,
                  const GeglRectangle *area,
                  bm3d_params         *params,
                  GimpRunMode          run_mode,
                  StageTimes          *times,
                  GError             **error)
{
  GeglBuffer *shadow = gimp_drawable_get_shadow_buffer (drawable);
  gboolean    ok;

  ok = denoise_in_strips (source, shadow, layout, area, params, run_mode,
                          times, error);
  g_object_unref (shadow);
  if (! ok)
    {
      gimp_drawable_free_shadow (drawable);
      return FALSE;
    }

  /* One undo step, blended through the selection mask.  */
  lap (times);
  gimp_drawable_merge_shadow (drawable, TRUE);
  gimp_drawable_update (drawable, area->x, area->y,
                        area->width, area->height);
  times->merge += lap (times);
  return TRUE;
}

void
bm3d_run_warm_up (const Bm3dValues *vals)
{
  bm3d_params params;

  bm3d_params_init (&params);
  params.backend = (bm3d_backend) vals->backend;
  bm3d_backend_warm_up (&params);
}

/* The engine's parameters for `vals`, with the noise measured in the
 * middle of `area` of `source` when `vals` asks for it (`profile` then
 * holds camera noise's profile).  */
static gboolean
params_for (GeglBuffer          *source,
            const Bm3dLayout    *layout,
            const GeglRectangle *area,
            const Bm3dValues    *vals,
            GimpRunMode          run_mode,
            bm3d_params         *params,
            bm3d_noise_profile  *profile,
            GError             **error)
{
  bm3d_values_to_params (vals, layout, params);
  /* A strip large enough (BM3D_SPLIT_MIN_PIXELS) is spread over every
   * GPU.  */
  params->n_devices = BM3D_ALL_DEVICES;
  if (vals->noise == BM3D_VALUES_NOISE_CAMERA)
    return estimate_profile (source, layout, area, params, profile,
                             run_mode, error);
  if (vals->sigma == 0.0)
    return estimate_sigma (source, layout, area, params, error);
  return TRUE;
}

/* The stage times on stderr when asked for.  */
static void
tell_times (const GeglRectangle *area,
            const StageTimes    *times)
{
  if (bm3d_run_times_wanted ())
    g_printerr ("%s: %d x %d: read %.3f s, %s %.3f s, write %.3f s, "
                "merge %.3f s\n", PLUG_IN_BINARY, area->width,
                area->height, times->read,
                bm3d_render_passthrough () ? "copy" : "engine",
                times->engine, times->write, times->merge);
}

gboolean
bm3d_run_denoise (Bm3dDrawable       drawable,
                  const Bm3dValues  *vals,
                  GimpRunMode        run_mode,
                  GError           **error)
{
  Bm3dLayout         layout;
  GeglRectangle      area;
  GeglBuffer        *source;
  bm3d_params        params;
  bm3d_noise_profile profile;
  gboolean           ok;

  if (! gimp_drawable_mask_intersect (drawable, &area.x, &area.y,
                                      &area.width, &area.height))
    return TRUE;

  bm3d_run_warm_up (vals);
  bm3d_layout_for (drawable, bm3d_values_read_clipped (vals), &layout);
  source = gimp_drawable_get_buffer (drawable);
  ok = params_for (source, &layout, &area, vals, run_mode, &params,
                   &profile, error);
  if (ok)
    {
      StageTimes times = { g_timer_new (), 0.0, 0.0, 0.0, 0.0 };

      ok = denoise_drawable (drawable, source, &layout, &area, &params,
                             run_mode, &times, error);
      if (ok)
        tell_times (&area, &times);
      g_timer_destroy (times.timer);
    }
  g_object_unref (source);
  return ok;
}

gboolean
bm3d_run_denoise_buffer (GeglBuffer        *source,
                         GeglBuffer        *destination,
                         gboolean           rgb,
                         gboolean           has_alpha,
                         const Bm3dValues  *vals,
                         GError           **error)
{
  const GeglRectangle *area = gegl_buffer_get_extent (source);
  Bm3dLayout           layout;
  bm3d_params          params;
  bm3d_noise_profile   profile;
  gboolean             ok;

  bm3d_run_warm_up (vals);
  bm3d_layout_set_formats (&layout, rgb, has_alpha,
                           gegl_buffer_get_format (source));
  layout.to_u8 = babl_fish (layout.format, layout.format_u8);
  /* Integer samples, whose noise was clipped whenever the settings say
   * it may have been: what bm3d_layout_for () judges of a drawable of
   * integers.  */
  layout.clipped = bm3d_values_read_clipped (vals);
  ok = params_for (source, &layout, area, vals, GIMP_RUN_NONINTERACTIVE,
                   &params, &profile, error);
  if (ok)
    {
      StageTimes times = { g_timer_new (), 0.0, 0.0, 0.0, 0.0 };

      ok = denoise_in_strips (source, destination, &layout, area, &params,
                              GIMP_RUN_NONINTERACTIVE, &times, error);
      if (ok)
        tell_times (area, &times);
      g_timer_destroy (times.timer);
    }
  return ok;
}
