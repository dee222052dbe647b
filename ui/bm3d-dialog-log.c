/* BM3D Denoise for GIMP — the dialog's log for tests and benchmarks
 * (BM3D_DIALOG_LOG, BM3D_DIALOG_TILE in bm3d-dialog.h): events with
 * their time, widget geometry, main loop stalls, and the tiles drawn.
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

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include <glib/gstdio.h>
#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include "bm3d.h"
#include "bm3d-dialog-private.h"

/* The main loop's pulse while logging: a gap much longer than this is a
 * stall, logged.  */
#define PULSE_MS         10
#define STALL_MS         25

void
dialog_log (Dialog      *d,
            const gchar *format,
            ...)
{
  va_list args;

  if (! d->log)
    return;
  fprintf (d->log, "%.3f ",
           (g_get_monotonic_time () - d->opened_us) / 1000.0);
  va_start (args, format);
  vfprintf (d->log, format, args);
  va_end (args);
  fputc ('\n', d->log);
  fflush (d->log);
}

/* Where a widget lies on the screen, so that a test can drive it with
 * real pointer events.  */
static void
log_widget (Dialog      *d,
            const gchar *name,
            GtkWidget   *widget)
{
  GtkAllocation allocation;
  gint          x, y;

  if (! gtk_widget_get_realized (widget) || ! gtk_widget_get_visible (widget))
    return;
  gtk_widget_get_allocation (widget, &allocation);
  gdk_window_get_origin (gtk_widget_get_window (widget), &x, &y);
  if (! gtk_widget_get_has_window (widget))
    x += allocation.x, y += allocation.y;
  dialog_log (d, "geometry %s x=%d y=%d width=%d height=%d", name, x, y,
              allocation.width, allocation.height);
}

/* The labels of the buttons in `widget`, into the GString `data`.  */
static void
add_button_labels (GtkWidget *widget,
                   gpointer   data)
{
  const gchar *label = GTK_IS_BUTTON (widget)
                       ? gtk_button_get_label (GTK_BUTTON (widget)) : NULL;

  if (label)
    g_string_append_printf (data, " %s", label);
  else if (GTK_IS_CONTAINER (widget))
    gtk_container_forall (GTK_CONTAINER (widget), add_button_labels, data);
}

/* Every button the dialog shows, by its label (a stock one by its stock
 * id): the tests see which the dialog has.  */
static void
log_buttons (Dialog *d)
{
  GString *labels = g_string_new ("buttons");

  add_button_labels (d->window, labels);
  dialog_log (d, "%s", labels->str);
  g_string_free (labels, TRUE);
}

void
dialog_log_geometry (Dialog *d)
{
  /* Each noise type shows its own sliders: logged the first time each
   * is drawn.  */
  gboolean *logged = &d->geometry_logged[d->values->noise
                                         == BM3D_VALUES_NOISE_CAMERA];

  if (! d->log || *logged)
    return;
  *logged = TRUE;
  log_widget (d, "sigma-scale", d->sigma_scale);
  log_widget (d, "sigma-spin", d->sigma_spin);
  log_widget (d, "strength-scale", d->strength_widgets[1]);
  log_widget (d, "strength-spin", d->strength_widgets[2]);
  log_widget (d, "preview", gimp_preview_get_area (GIMP_PREVIEW (d->preview)));
  if (d->keep_editable_toggle)
    log_widget (d, "keep-editable", d->keep_editable_toggle);
  log_buttons (d);
}

/* A high-priority pulse: when the main loop is blocked, the pulse comes
 * late, and the delay is how long the loop did not answer.  */
static gboolean
pulse (gpointer data)
{
  Dialog *d = data;
  gint64  now = g_get_monotonic_time ();
  gint64  stall = now - d->pulse_last_us - PULSE_MS * 1000;

  if (stall > d->worst_stall_us)
    d->worst_stall_us = stall;
  if (stall > STALL_MS * 1000)
    dialog_log (d, "stall ms=%.1f", stall / 1000.0);
  d->pulse_last_us = now;
  return G_SOURCE_CONTINUE;
}

/* The tile as drawn, for the test that compares it with the final run:
 * a header, then width x height x channels bytes.  Written beside and
 * renamed, so a reader never sees half a tile.  */
void
dialog_write_tile (Dialog    *d,
                   const Job *job)
{
  gchar *partial;
  FILE  *file;
  gsize  bytes = (gsize) job->core.width * job->core.height
                 * d->layout.channels;

  if (! d->tile_path)
    return;
  partial = g_strconcat (d->tile_path, ".partial", NULL);
  file = fopen (partial, "wb");
  if (file)
    {
      gboolean ok;

      fprintf (file, "BM3D-TILE x=%d y=%d width=%d height=%d channels=%d "
               "mode=%s fast=%d sigma=%.9g noise=%s strength=%.9g "
               "chroma-strength=%.9g\n", job->core.x, job->core.y,
               job->core.width, job->core.height, d->layout.channels,
               bm3d_mode_name (job->params.mode), job->fast,
               (double) job->params.sigma,
               bm3d_noise_name (job->params.noise),
               (double) job->params.strength,
               (double) job->params.chroma_strength);
      ok = fwrite (job->u8, 1, bytes, file) == bytes;
      ok = (fclose (file) == 0) && ok;
      if (ok)
        g_rename (partial, d->tile_path);
    }
  g_free (partial);
}

/* Environment switches: docs/environment.md lists them all.  */
void
dialog_open_log (Dialog *d)
{
  const gchar *path = g_getenv ("BM3D_DIALOG_LOG");
  const gchar *tile = g_getenv ("BM3D_DIALOG_TILE");

  d->opened_us = g_get_monotonic_time ();
  if (path && *path)
    {
      d->log = g_fopen (path, "a");
      if (! d->log)
        g_printerr ("%s: cannot open %s: %s\n", PLUG_IN_PROC, path,
                    g_strerror (errno));
    }
  if (tile && *tile)
    d->tile_path = g_strdup (tile);
  dialog_log (d, "open drawable=%d width=%d height=%d channels=%d "
              "threads=%d", bm3d_drawable_id (d->drawable), d->bounds.width,
              d->bounds.height, d->layout.channels, g_get_num_processors ());
}

/* Once the dialog is up: how long the main loop fails to answer.  */
void
dialog_start_pulse (Dialog *d)
{
  if (! d->log)
    return;
  d->pulse_last_us = g_get_monotonic_time ();
  d->pulse_id = g_timeout_add_full (G_PRIORITY_HIGH, PULSE_MS, pulse, d,
                                    NULL);
}

void
dialog_close_log (Dialog *d,
                  gint    response)
{
  if (d->pulse_id)
    g_source_remove (d->pulse_id);
  if (d->log)
    {
      if (d->keep_editable)
        dialog_log (d, "close response=%d longest-stall-ms=%.1f "
                    "keep-editable=%d", response,
                    d->worst_stall_us / 1000.0, *d->keep_editable);
      else
        dialog_log (d, "close response=%d longest-stall-ms=%.1f", response,
                    d->worst_stall_us / 1000.0);
      fclose (d->log);
    }
  g_free (d->tile_path);
}
