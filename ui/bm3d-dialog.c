/* BM3D Denoise for GIMP — the dialog: the noise (camera noise measured
 * on the photo, with strengths, or white noise of one sigma; either
 * estimated), mode, backend, expert options, and a preview rendered off
 * the main loop by the same code as the final run.  This is its
 * toolkit-neutral core; the widgets are built by bm3d-dialog-gtk2.c
 * (GIMP 2.10) or bm3d-dialog-gtk3.c (GIMP 3).
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
 * How the preview keeps up.  The main thread only reads pixels from
 * GIMP (libgimp is not thread-safe) and draws; one worker thread makes
 * every engine call, so the CUDA context it creates at start-up serves
 * the whole dialog.  Requests go into a slot the worker takes from; a
 * newer request replaces a waiting one.  Requests belong to an epoch:
 * a new epoch starts with every change except the next step of a
 * slider drag, and the worker's progress callback cancels a running
 * call of an older epoch, whose result is then dropped.  Steps of one
 * drag share an epoch, so a fast render in flight finishes and shows
 * while the slider keeps moving; the chosen mode follows REST_MS after
 * the slider rests, in a new epoch.  Results come back through an idle
 * callback.  Closing joins the worker after cancelling its call, then
 * frees whatever results were still queued.
 *
 * Camera noise.  The preview filters the noise profile estimated on the
 * same sample as the final run (the middle of the selection), so it
 * shows what OK does; the final run measures it again on that sample
 * and gets the same profile.  Until the first estimate has come, a
 * preview waits for it.  Each job carries its own copy of the profile.
 */

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>
#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include "bm3d.h"
#include "bm3d-intl.h"
#include "bm3d-values.h"
#include "bm3d-render.h"
#include "bm3d-layout.h"
#include "bm3d-dialog.h"
#include "bm3d-dialog-private.h"

/* Pixels read around the preview once, enough for every mode's context
 * at its default options, so that switching modes reads nothing.  */
#define CACHE_MARGIN     80
/* After the slider rests this long, the chosen mode replaces the fast
 * one.  */
#define REST_MS          300

/* How long OK waits for an estimate in flight: it takes milliseconds
 * once the worker has dropped its preview.  */
#define ESTIMATE_WAIT_MS 10000


/* ---- the status line --------------------------------------------------- */

static void
status_update (Dialog *d)
{
  GString *text = g_string_new (d->backend_line ? d->backend_line : "");

  if (d->preview_line)
    g_string_append_printf (text, "\n%s", d->preview_line);
  if (d->estimate_line)
    g_string_append_printf (text, "\n%s", d->estimate_line);
  gtk_label_set_text (GTK_LABEL (d->status), text->str);
  g_string_free (text, TRUE);
}

static void
set_line (gchar **line,
          gchar  *text)
{
  g_free (*line);
  *line = text;
}

/* Where the work runs and why, from the last call's report or, before
 * any, from what the probe found.  */
static gchar *
backend_text (Dialog             *d,
              const bm3d_report  *report)
{
  gint threads = g_get_num_processors ();
  gint backend = d->values->backend;

  if (report ? report->backend_used == BM3D_BACKEND_CUDA
             : (backend != BM3D_BACKEND_CPU && d->cuda))
    return g_strdup_printf (_("%s, CUDA"), d->cuda_text);

  if (backend == BM3D_BACKEND_CPU)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "CPU, %d thread — chosen",
                                         "CPU, %d threads — chosen",
                                         threads), threads);
  if (report && report->fell_back == BM3D_FALLBACK_FAILED)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "CPU, %d thread — CUDA failed: %s",
                                         "CPU, %d threads — CUDA failed: %s",
                                         threads), threads, report->message);
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "CPU, %d thread — no CUDA device: %s",
                                       "CPU, %d threads — no CUDA device: %s",
                                       threads), threads,
                          d->cuda_text ? d->cuda_text : "");
}

/* ---- requests ---------------------------------------------------------- */

/* The fastest mode the engine has: isoline, then NL-means, then the
 * first phase of BM3D.  -1 before the probe has answered.  */
static gint
fast_mode (Dialog *d)
{
  static const gint order[] = { BM3D_MODE_ISOLINE, BM3D_MODE_NLM,
                                BM3D_MODE_BM3D_FAST };
  guint i;

  if (! d->probed)
    return -1;
  for (i = 0; i < G_N_ELEMENTS (order); i++)
    if (d->mode_ok[order[i]])
      return order[i];
  return -1;
}

static gboolean
rect_contains (const GeglRectangle *outer,
               const GeglRectangle *inner)
{
  return inner->x >= outer->x && inner->y >= outer->y
         && inner->x + inner->width <= outer->x + outer->width
         && inner->y + inner->height <= outer->y + outer->height;
}

/* The preview's area and the context `params` need around it, read from
 * GIMP when the cache does not hold it (the main thread's only heavy
 * work: a few milliseconds for a 560 x 560 area).  */
static gboolean
cache_for (Dialog              *d,
           const GeglRectangle *core,
           const bm3d_params   *params)
{
  GeglRectangle  context, wide;
  GeglBuffer    *source;
  GError        *error = NULL;
  gint64         start;

  if (! bm3d_context_for (&d->bounds, core,
                         d->layout.channels - (d->layout.has_alpha ? 1 : 0),
                         params, &context, &error))
    {
      set_line (&d->preview_line, g_strdup (error->message));
      g_error_free (error);
      return FALSE;
    }
  if (d->cache && ! d->cache_stale && rect_contains (&d->cache->rect, &context))
    return TRUE;

  gegl_rectangle_set (&wide, core->x - CACHE_MARGIN, core->y - CACHE_MARGIN,
                      core->width + 2 * CACHE_MARGIN,
                      core->height + 2 * CACHE_MARGIN);
  gegl_rectangle_bounding_box (&wide, &wide, &context);
  gegl_rectangle_intersect (&wide, &wide, &d->bounds);

  start = g_get_monotonic_time ();
  source = gimp_drawable_get_buffer (d->drawable);
  bm3d_float_rect_unref (d->cache);
  d->cache = bm3d_float_rect_read (source, &d->layout, &wide, &error);
  g_object_unref (source);
  d->cache_stale = FALSE;
  dialog_log (d, "read x=%d y=%d width=%d height=%d ms=%.1f", wide.x,
              wide.y, wide.width, wide.height,
              (g_get_monotonic_time () - start) / 1000.0);
  if (! d->cache)
    {
      set_line (&d->preview_line, g_strdup (error->message));
      g_error_free (error);
      return FALSE;
    }
  return TRUE;
}

/* Queues a render of the preview's area.  `mode` is the chosen mode or
 * the fast one; `drag` marks the next step of a slider drag, which
 * keeps the epoch (a render in flight finishes and shows).  */
static void
request_preview (Dialog   *d,
                 gint      mode,
                 gboolean  drag)
{
  GimpPreview   *preview = GIMP_PREVIEW (d->preview);
  GeglRectangle  core;
  Job           *job;

  if (! gimp_preview_get_update (preview))
    return;
  if (! bm3d_drawable_is_valid (d->drawable))
    {
      set_line (&d->preview_line,
                g_strdup (_("The layer is gone; the preview stops")));
      status_update (d);
      return;
    }

  gimp_preview_get_position (preview, &core.x, &core.y);
  gimp_preview_get_size (preview, &core.width, &core.height);
  if (core.width < 1 || core.height < 1)
    return;

  /* Camera noise before its profile: its arrival asks again
   * (profile_done).  */
  if (d->values->noise == BM3D_VALUES_NOISE_CAMERA && ! d->have_profile)
    return;

  job = dialog_job_new (d, JOB_PREVIEW);
  job->core = core;
  job->fast = (mode != d->values->mode);
  bm3d_values_to_params (d->values, &d->layout, &job->params);
  job->params.mode = (bm3d_mode) mode;
  if (job->params.noise == BM3D_NOISE_PROFILE)
    {
      job->profile = d->profile;
      job->params.profile = &job->profile;
    }

  if (! (drag && d->last_was_drag))
    g_atomic_int_inc (&d->epoch);
  d->last_was_drag = drag;
  job->epoch = g_atomic_int_get (&d->epoch);

  if (! cache_for (d, &core, &job->params))
    {
      status_update (d);
      dialog_job_free (job);
      return;
    }
  job->input = bm3d_float_rect_ref (d->cache);

  dialog_log (d, "request serial=%d epoch=%d mode=%s fast=%d sigma=%.9g "
              "x=%d y=%d width=%d height=%d noise=%s strength=%.9g "
              "chroma-strength=%.9g", job->serial, job->epoch,
              bm3d_mode_name (job->params.mode), job->fast,
              (double) job->params.sigma, core.x, core.y, core.width,
              core.height, bm3d_noise_name (job->params.noise),
              (double) job->params.strength,
              (double) job->params.chroma_strength);
  dialog_submit (d, &d->pending, job);
}

static void
request_chosen (Dialog *d)
{
  request_preview (d, d->values->mode, FALSE);
}

/* GimpPreview's "invalidated": a scroll, the Preview toggle, or GIMP's
 * 200 ms after a change.  Queues work, computes nothing; re-reads the
 * pixels, in case the drawable changed under the dialog.  */
void
dialog_preview_invalidated (Dialog *d)
{
  d->cache_stale = TRUE;
  request_chosen (d);
}

/* The Preview check button switched off: GimpPreview shows the
 * original; the render in flight is no longer wanted.  */
void
dialog_preview_update_changed (GimpPreview *preview,
                        GParamSpec  *pspec,
                        Dialog      *d)
{
  (void) pspec;
  if (gimp_preview_get_update (preview))
    return;
  if (d->rest_id)
    {
      g_source_remove (d->rest_id);
      d->rest_id = 0;
    }
  g_atomic_int_inc (&d->epoch);
}

static gboolean
rest_elapsed (gpointer data)
{
  Dialog *d = data;

  d->rest_id = 0;
  request_chosen (d);
  return G_SOURCE_REMOVE;
}

/* Any change but sigma's: the chosen mode, after GIMP's 200 ms.  */
void
dialog_changed (Dialog *d)
{
  if (d->updating)
    return;
  if (d->rest_id)
    {
      g_source_remove (d->rest_id);
      d->rest_id = 0;
    }
  gimp_preview_invalidate (GIMP_PREVIEW (d->preview));
}

/* A slider's new value, logged with how long its event waited.  */
static void
log_slider (Dialog      *d,
            const gchar *name,
            gdouble      value)
{
  guint32 event_ms;

  if (! d->log)
    return;
  event_ms = gtk_get_current_event_time ();
  /* The X server's clock is the monotonic one, in milliseconds: the
   * difference is how long the event waited for the main loop.  */
  if (event_ms != GDK_CURRENT_TIME)
    dialog_log (d, "%s value=%.9g event-age-ms=%d", name, value,
                (gint) ((guint32) (g_get_monotonic_time () / 1000)
                        - event_ms));
  else
    dialog_log (d, "%s value=%.9g", name, value);
}

static void slider_moved (Dialog *d);

void
dialog_sigma_changed (GtkAdjustment *adj,
                      Dialog        *d)
{
  d->values->sigma = gtk_adjustment_get_value (adj);
  log_slider (d, "sigma", d->values->sigma);
  slider_moved (d);
}

void
dialog_strength_changed (GtkAdjustment *adj,
                         Dialog        *d)
{
  d->values->strength = gtk_adjustment_get_value (adj);
  log_slider (d, "strength", d->values->strength);
  slider_moved (d);
}

void
dialog_chroma_strength_changed (GtkAdjustment *adj,
                                Dialog        *d)
{
  d->values->chroma_strength = gtk_adjustment_get_value (adj);
  log_slider (d, "chroma-strength", d->values->chroma_strength);
  slider_moved (d);
}

/* The noise sliders (sigma, the strengths): while one moves, the fast
 * mode now and the chosen one when it rests.  */
static void
slider_moved (Dialog *d)
{
  gint fast = fast_mode (d);

  if (d->updating)
    return;

  if (! gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (d->fast_toggle))
      || fast < 0)
    {
      dialog_changed (d);
      return;
    }

  /* While the slider moves: the fast mode now, the chosen one when it
   * rests.  When the chosen mode is the fastest, it is the one shown.  */
  request_preview (d, fast, TRUE);
  if (d->rest_id)
    g_source_remove (d->rest_id);
  d->rest_id = (fast != d->values->mode
                ? g_timeout_add (REST_MS, rest_elapsed, d) : 0);
}

/* ---- results ----------------------------------------------------------- */

static void request_estimate (Dialog *d, gboolean camera);

/* Estimate measures sigma for white noise (where the engine can) and
 * the profile for camera noise; off while a measurement runs.  */
static void
estimate_button_update (Dialog *d)
{
  gtk_widget_set_sensitive (d->estimate_button,
                            ! d->estimating
                            && (d->values->noise == BM3D_VALUES_NOISE_CAMERA
                                || d->estimate_ok));
}

static void
probe_done (Dialog *d,
            Job    *job)
{
  d->probed = TRUE;
  d->cuda = job->cuda;
  d->cuda_text = g_strdup (job->cuda_text);
  memcpy (d->mode_ok, job->mode_ok, sizeof d->mode_ok);
  d->estimate_ok = job->estimate_ok;
  dialog_log (d, "probe cuda=%d device=\"%s\" modes=%d%d%d%d estimate=%d "
              "ms=%.1f", d->cuda, d->cuda_text, d->mode_ok[0],
              d->mode_ok[1], d->mode_ok[2], d->mode_ok[3], d->estimate_ok,
              (job->done_us - job->started_us) / 1000.0);

  /* Setting the functions again re-evaluates every entry.  */
  gimp_int_combo_box_set_sensitivity (GIMP_INT_COMBO_BOX (d->mode_combo),
                                      dialog_mode_sensitive, d, NULL);
  gimp_int_combo_box_set_sensitivity (GIMP_INT_COMBO_BOX (d->backend_combo),
                                      dialog_backend_sensitive, d, NULL);

  estimate_button_update (d);
  if (! d->estimate_ok)
    gimp_help_set_help_data (d->estimate_button,
                             _("Estimating the noise level is not "
                               "available in this build yet."), NULL);

  if (! d->preview_line)
    set_line (&d->backend_line, backend_text (d, NULL));
  status_update (d);

  if (d->estimate_on_open)
    {
      d->estimate_on_open = FALSE;
      if (d->estimate_ok)
        request_estimate (d, FALSE);
    }
}

/* Whether `core` is the preview's area now.  */
static gboolean
preview_shows (Dialog              *d,
               const GeglRectangle *core)
{
  GimpPreview   *preview = GIMP_PREVIEW (d->preview);
  GeglRectangle  now;

  gimp_preview_get_position (preview, &now.x, &now.y);
  gimp_preview_get_size (preview, &now.width, &now.height);
  return gegl_rectangle_equal (&now, core);
}

/* The preview's line: the mode, how long it took, and for camera noise
 * how the mode used the profile.  Modes without a transform (non-local
 * means, isoline) filter the white noise that stands for it, as the
 * engine reported deriving it.  */
static gchar *
preview_text (const Job *job,
              gdouble    latency_ms)
{
  const gchar *mode = bm3d_values_mode_label (job->params.mode);
  gchar       *base, *text;
  gchar       *noise = NULL;

  base = job->fast
         ? g_strdup_printf (_("Preview while dragging: %s, %.0f ms"), mode,
                            latency_ms)
         : g_strdup_printf (_("Preview: %s, %.0f ms"), mode, latency_ms);
  if (job->params.noise != BM3D_NOISE_PROFILE)
    return base;

  if (job->report.noise_unmeasured)
    noise = g_strdup (job->report.notice);
  else if (job->params.mode == BM3D_MODE_BM3D
           || job->params.mode == BM3D_MODE_BM3D_FAST)
    noise = g_strdup (_("the camera noise profile"));
  else
    noise = g_strdup_printf (_("white noise of sigma %.1f from the camera "
                               "noise profile"),
                             (double) job->report.white_sigma);
  /* TRANSLATORS: the preview line, then how it filtered camera noise.  */
  text = g_strdup_printf (_("%s; %s"), base, noise);
  g_free (base);
  g_free (noise);
  return text;
}

static void
preview_done (Dialog *d,
              Job    *job)
{
  gdouble engine_ms = (job->done_us - job->started_us) / 1000.0;
  gdouble latency_ms;

  if (job->epoch != g_atomic_int_get (&d->epoch)
      || job->status == BM3D_ERR_CANCELLED)
    {
      dialog_log (d, "dropped serial=%d epoch=%d reason=%s", job->serial,
                  job->epoch, job->status == BM3D_ERR_CANCELLED
                  ? "cancelled" : "stale");
      return;
    }
  if (! job->ok)
    {
      dialog_log (d, "failed serial=%d status=%s", job->serial,
                  bm3d_status_string (job->status));
      set_line (&d->preview_line, g_strdup (job->message));
      status_update (d);
      return;
    }
  /* Switched off meanwhile: GimpPreview shows the original.  */
  if (! gimp_preview_get_update (GIMP_PREVIEW (d->preview))
      || ! bm3d_drawable_is_valid (d->drawable))
    return;
  /* GimpScrolledPreview takes a resize or a scroll at once but says so
   * only 200 ms later, and the steps of a drag keep their epoch: a
   * result for another rectangle would be drawn at the new size, read
   * past its buffer.  The "invalidated" to come asks for the new one.  */
  if (! preview_shows (d, &job->core))
    {
      dialog_log (d, "dropped serial=%d epoch=%d reason=moved", job->serial,
                  job->epoch);
      return;
    }

  gimp_preview_draw_buffer (GIMP_PREVIEW (d->preview), job->u8,
                            job->core.width * d->layout.channels);
  latency_ms = (g_get_monotonic_time () - job->queued_us) / 1000.0;
  dialog_log (d, "drawn serial=%d epoch=%d mode=%s fast=%d backend=%s "
              "sigma=%.9g width=%d height=%d engine-ms=%.1f "
              "latency-ms=%.1f noise=%s strength=%.9g chroma-strength=%.9g",
              job->serial, job->epoch,
              bm3d_mode_name (job->params.mode), job->fast,
              bm3d_backend_name (job->report.backend_used),
              (double) job->params.sigma, job->core.width,
              job->core.height, engine_ms, latency_ms,
              bm3d_noise_name (job->params.noise),
              (double) job->params.strength,
              (double) job->params.chroma_strength);
  dialog_write_tile (d, job);
  dialog_log_geometry (d);

  set_line (&d->backend_line, backend_text (d, &job->report));
  set_line (&d->preview_line, preview_text (job, latency_ms));
  status_update (d);
}

/* The estimated levels of camera noise, as the status line shows them.  */
static gchar *
profile_text (const bm3d_noise_profile *profile)
{
  gfloat luma, chroma;

  bm3d_noise_profile_levels (profile, &luma, &chroma);
  if (profile->channels == 1)
    return g_strdup_printf (_("Camera noise measured: %.1f"), (double) luma);
  return g_strdup_printf (_("Camera noise measured: luma %.1f, chroma %.1f"),
                          (double) luma, (double) chroma);
}

static void
profile_done (Dialog *d,
              Job    *job)
{
  gfloat luma, chroma;

  if (! job->ok)
    {
      set_line (&d->estimate_line, g_strdup (job->message));
      if (d->values->noise == BM3D_VALUES_NOISE_CAMERA && ! d->have_profile)
        set_line (&d->preview_line, NULL);
      status_update (d);
      return;
    }
  d->profile = job->profile;
  d->have_profile = TRUE;
  bm3d_noise_profile_levels (&d->profile, &luma, &chroma);
  dialog_log (d, "estimate-profile luma=%.9g chroma=%.9g sigma-white=%.9g "
              "ms=%.1f", (double) luma, (double) chroma,
              (double) d->profile.sigma_white,
              (job->done_us - job->started_us) / 1000.0);
  /* Nothing measured: the status line says so and what the filter does
   * instead, not a level that looks measured.  */
  set_line (&d->estimate_line, job->report.noise_unmeasured
                               ? g_strdup (job->report.notice)
                               : profile_text (&d->profile));
  status_update (d);

  /* The preview waited for it, or showed the old profile.  */
  if (d->values->noise == BM3D_VALUES_NOISE_CAMERA)
    request_chosen (d);
}

static void
estimate_done (Dialog *d,
               Job    *job)
{
  d->estimating = FALSE;
  estimate_button_update (d);
  if (job->camera)
    {
      profile_done (d, job);
      return;
    }
  d->estimate_failed = ! job->ok;
  /* Camera noise was chosen while this sigma was measured: its profile
   * comes next.  */
  if (d->values->noise == BM3D_VALUES_NOISE_CAMERA && ! d->have_profile)
    request_estimate (d, TRUE);
  if (! job->ok)
    {
      set_line (&d->estimate_line, g_strdup (job->message));
      status_update (d);
      return;
    }
  dialog_log (d, "estimate sigma=%.9g ms=%.1f", (double) job->sigma,
              (job->done_us - job->started_us) / 1000.0);
  set_line (&d->estimate_line,
            g_strdup_printf (_("Estimated noise level: %.1f"),
                             (double) job->sigma));
  status_update (d);
  gtk_adjustment_set_value (d->sigma_adj,
                            MAX (job->sigma, SIGMA_ENTRY_MIN));
}

/* The idle callback: results of the worker, on the main thread.  */
gboolean
dialog_deliver (gpointer data)
{
  Dialog *d = data;
  GQueue  done = G_QUEUE_INIT;
  Job    *job;

  g_mutex_lock (&d->lock);
  done = d->done;
  g_queue_init (&d->done);
  d->idle_id = 0;
  g_mutex_unlock (&d->lock);

  while ((job = g_queue_pop_head (&done)))
    {
      switch (job->kind)
        {
        case JOB_PROBE:    probe_done (d, job);    break;
        case JOB_PREVIEW:  preview_done (d, job);  break;
        case JOB_ESTIMATE: estimate_done (d, job); break;
        }
      dialog_job_free (job);
    }
  return G_SOURCE_REMOVE;
}

/* ---- the Estimate button ----------------------------------------------- */

/* The same sample as sigma 0 and camera noise in the final run: the
 * middle of the selection, at most BM3D_ESTIMATE_SIDE a side.
 * `camera`: the noise profile, else sigma.  */
static void
request_estimate (Dialog   *d,
                  gboolean  camera)
{
  GeglRectangle  sample;
  GeglBuffer    *source;
  GError        *error = NULL;
  Job           *job;

  if (d->estimating || ! bm3d_drawable_is_valid (d->drawable))
    return;

  job = dialog_job_new (d, JOB_ESTIMATE);
  job->camera = camera;
  bm3d_values_to_params (d->values, &d->layout, &job->params);
  bm3d_estimate_rect (&d->selection, &sample);
  source = gimp_drawable_get_buffer (d->drawable);
  job->input = bm3d_float_rect_read (source, &d->layout, &sample, &error);
  g_object_unref (source);
  if (! job->input)
    {
      set_line (&d->estimate_line, g_strdup (error->message));
      g_error_free (error);
      status_update (d);
      dialog_job_free (job);
      return;
    }

  d->estimating = TRUE;
  estimate_button_update (d);
  set_line (&d->estimate_line,
            g_strdup (camera ? _("Measuring the camera noise…")
                             : _("Estimating the noise level…")));
  status_update (d);
  dialog_log (d, "request-estimate serial=%d width=%d height=%d camera=%d",
              job->serial, sample.width, sample.height, camera);
  dialog_submit (d, &d->pending_estimate, job);
}

void
dialog_estimate_clicked (GtkButton *button,
                         Dialog    *d)
{
  (void) button;
  request_estimate (d, d->values->noise == BM3D_VALUES_NOISE_CAMERA);
}

static gboolean
wait_expired (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* OK while the noise level is being estimated (Estimate pressed, or a
 * saved "estimate" when the dialog opened): the user asked for that
 * level, so the final run waits for it rather than silently use the
 * slider's old one; when it does not come, the user is told.  */
static void
finish_estimate (Dialog *d)
{
  gboolean  expired = FALSE;
  guint     timer;
  Job      *preview;

  /* Camera noise: the final run measures the profile itself, on the
   * sample the dialog measured.  */
  if (d->values->noise == BM3D_VALUES_NOISE_CAMERA)
    return;
  if (! d->estimating && ! d->estimate_on_open)
    return;

  /* Previews are of no use now: the worker turns to the estimate.  */
  g_mutex_lock (&d->lock);
  preview = d->pending;
  d->pending = NULL;
  g_mutex_unlock (&d->lock);
  dialog_job_free (preview);
  g_atomic_int_inc (&d->epoch);

  /* The estimate sets the slider; that must not ask for a preview.  */
  d->updating = TRUE;
  gtk_widget_set_sensitive (d->window, FALSE);
  dialog_log (d, "wait-estimate");
  timer = g_timeout_add (ESTIMATE_WAIT_MS, wait_expired, &expired);
  while ((d->estimating || d->estimate_on_open) && ! expired)
    g_main_context_iteration (NULL, TRUE);
  if (! expired)
    g_source_remove (timer);
  d->updating = FALSE;

  if (d->estimating || d->estimate_on_open)
    g_message (_("The noise level estimate did not finish in time and was "
                 "not applied; the image was denoised at noise level "
                 "%.1f."), d->values->sigma);
  else if (d->estimate_failed)
    g_message (_("The noise level could not be estimated (%s) and the "
                 "image was denoised at noise level %.1f."),
               d->estimate_line ? d->estimate_line : "?",
               d->values->sigma);
}

/* A scale entry's three widgets: label, slider, spin button.  */
static void
scale_entry_set_visible (GtkWidget **widgets,
                         gboolean    visible)
{
  gint i;

  for (i = 0; i < SCALE_ENTRY_WIDGETS; i++)
    gtk_widget_set_visible (widgets[i], visible);
}

/* Sigma for white noise, the strengths for camera noise: only the
 * sliders of the chosen noise are shown.  */
void
dialog_noise_widgets_show (Dialog *d)
{
  gboolean camera = d->values->noise == BM3D_VALUES_NOISE_CAMERA;

  gint     i;

  scale_entry_set_visible (d->sigma_widgets, ! camera);
  scale_entry_set_visible (d->strength_widgets, camera);
  scale_entry_set_visible (d->chroma_strength_widgets, camera);
  /* Chroma strength acts on colour planes a gray drawable lacks.  */
  if (d->layout.channels - (d->layout.has_alpha ? 1 : 0) == 1)
    for (i = 0; i < SCALE_ENTRY_WIDGETS; i++)
      gtk_widget_set_sensitive (d->chroma_strength_widgets[i], FALSE);
  estimate_button_update (d);
}

/* The noise model chosen: camera noise needs its profile first (the
 * preview waits for it), white noise has its sigma.  */
void
dialog_noise_changed (GtkWidget *combo,
                      Dialog    *d)
{
  (void) combo;
  dialog_noise_widgets_show (d);
  dialog_log (d, "noise %s", d->values->noise == BM3D_VALUES_NOISE_CAMERA
                             ? "camera" : "white");
  if (d->updating)
    return;
  if (d->values->noise == BM3D_VALUES_NOISE_CAMERA && ! d->have_profile)
    request_estimate (d, TRUE);
  dialog_changed (d);
}

void
dialog_backend_changed (GtkWidget *combo,
                 Dialog    *d)
{
  (void) combo;
  if (d->probed)
    {
      set_line (&d->backend_line, backend_text (d, NULL));
      status_update (d);
    }
  dialog_changed (d);
}

static void
reset_all (Dialog *d)
{
  Bm3dValues v;

  bm3d_values_set_defaults (&v);
  dialog_show_values (d, &v);
  set_line (&d->estimate_line,
            d->have_profile ? profile_text (&d->profile) : NULL);
  if (v.noise == BM3D_VALUES_NOISE_CAMERA && ! d->have_profile)
    request_estimate (d, TRUE);
  if (d->probed)
    set_line (&d->backend_line, backend_text (d, NULL));
  status_update (d);
  dialog_changed (d);
}

/* ---- opening and closing ----------------------------------------------- */

gboolean
bm3d_dialog_run (Bm3dDrawable  drawable,
                 Bm3dValues   *values,
                 gboolean     *keep_editable)
{
  Dialog      d;
  gint        response;

  memset (&d, 0, sizeof d);
  d.drawable = drawable;
  d.values = values;
  d.keep_editable = keep_editable;

  /* NL-means may run as the chosen mode or as the fast preview.  */
  bm3d_layout_for (drawable, TRUE, &d.layout);
  gegl_rectangle_set (&d.bounds, 0, 0, bm3d_drawable_width (drawable),
                      bm3d_drawable_height (drawable));
  if (! gimp_drawable_mask_intersect (drawable, &d.selection.x,
                                      &d.selection.y, &d.selection.width,
                                      &d.selection.height))
    d.selection = d.bounds;
  /* Sigma 0 (estimate) saved last: estimate when the dialog opens.  */
  if (values->sigma == 0.0)
    {
      d.estimate_on_open = TRUE;
      values->sigma = BM3D_VALUES_OPTION (SIGMA)->default_value;
    }

  dialog_open_log (&d);
  dialog_start_worker (&d);

  dialog_build (&d);
  gtk_widget_show_all (d.window);
  dialog_noise_widgets_show (&d);
  /* Camera noise: its profile first; the preview waits for it.  */
  if (values->noise == BM3D_VALUES_NOISE_CAMERA)
    request_estimate (&d, TRUE);
  dialog_start_pulse (&d);

  while ((response = gimp_dialog_run (GIMP_DIALOG (d.window)))
         == RESPONSE_RESET)
    reset_all (&d);

  if (d.rest_id)
    g_source_remove (d.rest_id);
  if (response == GTK_RESPONSE_OK)
    finish_estimate (&d);
  dialog_stop_worker (&d);
  dialog_close_log (&d, response);
  gtk_widget_destroy (d.window);

  bm3d_float_rect_unref (d.cache);
  g_free (d.cuda_text);
  g_free (d.backend_line);
  g_free (d.preview_line);
  g_free (d.estimate_line);
  return response == GTK_RESPONSE_OK;
}
