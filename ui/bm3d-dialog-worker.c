/* BM3D Denoise for GIMP — the dialog's worker thread: every engine
 * call of the dialog (the probe, the previews, the estimates) runs on
 * it, one at a time, the newest request of each kind first; results go
 * back to the main thread through dialog_deliver ().
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
#include <libgimp/gimpui.h>

#include "bm3d.h"
#include "bm3d-render.h"
#include "bm3d-dialog-private.h"

/* The probe's tiny image: enough for every mode's smallest tile.  */
#define PROBE_SIDE       64

void
dialog_job_free (Job *job)
{
  if (! job)
    return;
  bm3d_float_rect_unref (job->input);
  g_free (job->message);
  g_free (job->u8);
  g_free (job);
}

Job *
dialog_job_new (Dialog  *d,
                JobKind  kind)
{
  Job *job = g_new0 (Job, 1);

  job->kind = kind;
  job->dialog = d;
  job->serial = ++d->serial;
  job->queued_us = g_get_monotonic_time ();
  return job;
}

/* A preview call of an older epoch stops at its next progress report.  */
static int
preview_progress (double  fraction,
                  void   *data)
{
  Job *job = data;

  (void) fraction;
  return g_atomic_int_get (&job->dialog->epoch) != job->epoch;
}

/* What the engine can do here: the CUDA device (creating its context
 * now, in the background, for the whole dialog), and which modes and
 * the estimator are built (BM3D_ERR_NOT_IMPLEMENTED says they are not).  */
static void
run_probe (Job *job)
{
  gfloat      *pixels = g_new (gfloat, PROBE_SIDE * PROBE_SIDE);
  gfloat      *out = g_new (gfloat, PROBE_SIDE * PROBE_SIDE);
  bm3d_image   in_image = { PROBE_SIDE, PROBE_SIDE, 1, 0, PROBE_SIDE, pixels };
  bm3d_image   out_image = { PROBE_SIDE, PROBE_SIDE, 1, 0, PROBE_SIDE, out };
  bm3d_params  params;
  guint32      state = 12345;
  gfloat       sigma;
  gint         i, mode;

  job->cuda = bm3d_cuda_available (job->cuda_text, sizeof job->cuda_text);
  if (job->cuda
      && ! bm3d_cuda_device_name (0, job->cuda_text, sizeof job->cuda_text))
    job->cuda = FALSE;

  /* A ramp with some texture: no mode can call it degenerate.  */
  for (i = 0; i < PROBE_SIDE * PROBE_SIDE; i++)
    {
      state = state * 1664525u + 1013904223u;
      pixels[i] = 64.0f + (i % PROBE_SIDE) + (state >> 24) / 16.0f;
    }

  bm3d_params_init (&params);
  params.sigma = 10.0f;
  for (mode = 0; mode < BM3D_VALUES_MODES; mode++)
    {
      params.mode = (bm3d_mode) mode;
      job->mode_ok[mode] = (bm3d_denoise (&in_image, &out_image, &params,
                                          NULL)
                            != BM3D_ERR_NOT_IMPLEMENTED);
    }
  job->estimate_ok = (bm3d_estimate_sigma (&in_image, &params, &sigma, NULL)
                      != BM3D_ERR_NOT_IMPLEMENTED);
  job->ok = TRUE;
  g_free (pixels);
  g_free (out);
}

static void
run_preview (Job *job)
{
  Dialog     *d = job->dialog;
  Bm3dFloatRect *output = NULL;
  GError     *error = NULL;

  if (g_atomic_int_get (&d->epoch) != job->epoch)
    {
      job->status = BM3D_ERR_CANCELLED;
      return;
    }
  job->params.progress = preview_progress;
  job->params.progress_data = job;
  job->ok = bm3d_render_area (job->input, &job->core, &job->params,
                              &output, &job->report, &job->status, &error);
  if (job->ok)
    {
      job->u8 = bm3d_float_rect_to_u8 (output, &d->layout, &job->core);
      bm3d_float_rect_unref (output);
    }
  else
    {
      job->message = g_strdup (error->message);
      g_error_free (error);
    }
}

static void
run_estimate (Job *job)
{
  GError *error = NULL;

  job->ok = (job->camera
             ? bm3d_render_estimate_profile (job->input, &job->params,
                                             &job->profile, &job->report,
                                             &job->status, &error)
             : bm3d_render_estimate (job->input, &job->params, &job->sigma,
                                     &job->report, &job->status, &error));
  if (! job->ok)
    {
      job->message = g_strdup (error->message);
      g_error_free (error);
    }
}

/* The worker keeps the main thread's priority: lowered (nice 5), it
 * lost half its speed to any other busy process, and the main thread
 * answered input no faster (0 to 2 ms either way on 2 cores).  */
static gpointer
worker_main (gpointer data)
{
  Dialog *d = data;

  for (;;)
    {
      Job **slot;
      Job  *job;

      g_mutex_lock (&d->lock);
      while (! d->quit && ! d->pending_probe && ! d->pending_estimate
             && ! d->pending)
        g_cond_wait (&d->wake, &d->lock);
      if (d->quit)
        {
          g_mutex_unlock (&d->lock);
          break;
        }
      slot = d->pending_probe ? &d->pending_probe
             : d->pending_estimate ? &d->pending_estimate : &d->pending;
      job = *slot;
      *slot = NULL;
      g_mutex_unlock (&d->lock);

      job->started_us = g_get_monotonic_time ();
      switch (job->kind)
        {
        case JOB_PROBE:    run_probe (job);    break;
        case JOB_PREVIEW:  run_preview (job);  break;
        case JOB_ESTIMATE: run_estimate (job); break;
        }
      job->done_us = g_get_monotonic_time ();

      g_mutex_lock (&d->lock);
      g_queue_push_tail (&d->done, job);
      if (! d->idle_id)
        d->idle_id = g_idle_add (dialog_deliver, d);
      g_mutex_unlock (&d->lock);
    }
  return NULL;
}

/* Hands `job` to the worker, replacing the one waiting in its slot.  */
void
dialog_submit (Dialog  *d,
               Job    **slot,
               Job     *job)
{
  Job *replaced;

  g_mutex_lock (&d->lock);
  replaced = *slot;
  *slot = job;
  g_cond_signal (&d->wake);
  g_mutex_unlock (&d->lock);

  if (replaced)
    dialog_log (d, "replaced serial=%d", replaced->serial);
  dialog_job_free (replaced);
}

void
dialog_start_worker (Dialog *d)
{
  g_mutex_init (&d->lock);
  g_cond_init (&d->wake);
  g_queue_init (&d->done);
  /* First of all: the CUDA context and the engine's abilities.  */
  d->pending_probe = dialog_job_new (d, JOB_PROBE);
  d->worker = g_thread_new ("bm3d-preview", worker_main, d);
}

/* Cancels the call in flight, waits for the worker, and frees what it
 * left: nothing of the dialog runs after this.  */
void
dialog_stop_worker (Dialog *d)
{
  Job *job;

  g_mutex_lock (&d->lock);
  d->quit = TRUE;
  g_atomic_int_inc (&d->epoch);
  g_cond_signal (&d->wake);
  g_mutex_unlock (&d->lock);
  g_thread_join (d->worker);

  if (d->idle_id)
    g_source_remove (d->idle_id);
  while ((job = g_queue_pop_head (&d->done)))
    dialog_job_free (job);
  dialog_job_free (d->pending_probe);
  dialog_job_free (d->pending_estimate);
  dialog_job_free (d->pending);
  g_mutex_clear (&d->lock);
  g_cond_clear (&d->wake);
}
