/* BM3D Denoise for GIMP — the dialog's state, shared by its
 * toolkit-neutral core (bm3d-dialog.c: worker thread, jobs, estimate,
 * logging, the widgets' handlers) and the construction of its widgets,
 * one file per toolkit (bm3d-dialog-gtk2.c for GIMP 2.10,
 * bm3d-dialog-gtk3.c for GIMP 3).  Private to the dialog.
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
#ifndef BM3D_DIALOG_PRIVATE_H
#define BM3D_DIALOG_PRIVATE_H

#include <stdio.h>

#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include "bm3d.h"
#include "bm3d-drawable.h"
#include "bm3d-values.h"
#include "bm3d-render.h"

#define SCALE_WIDTH      200
#define SPIN_WIDTH       6
/* The slider covers everyday noise; the entry accepts up to 255.  */
#define SIGMA_SLIDER_MAX 100.0
#define SIGMA_ENTRY_MIN  0.1
#define STRENGTH_DIGITS  2
/* A scale entry's widgets: label, slider, spin button.  */
#define SCALE_ENTRY_WIDGETS 3

/* The preview's side in pixels (GimpPreview's "size" style property).  */
#define PREVIEW_SIZE     400

#define RESPONSE_RESET   1

/* Lines kept for the status: backend, preview (two with camera noise),
 * estimate, and one for a longer translation.  */
#define STATUS_LINES     5

typedef struct _Job    Job;
typedef struct _Dialog Dialog;

struct _Dialog
{
  Bm3dDrawable    drawable;
  Bm3dValues     *values;
  Bm3dLayout      layout;
  GeglRectangle   bounds;       /* the drawable's extent             */
  GeglRectangle   selection;    /* the area the final run changes    */

  GtkWidget      *window;
  GtkWidget      *preview;
  GtkWidget      *status;
  GtkWidget      *noise_combo;
  GtkAdjustment  *sigma_adj;
  GtkWidget      *sigma_scale;  /* the slider and the entry, whose  */
  GtkWidget      *sigma_spin;   /* places the log gives             */
  GtkAdjustment  *strength_adj;
  GtkAdjustment  *chroma_strength_adj;
  /* Each noise slider's label, slider and spin button: only those of
   * the chosen noise are shown.  */
  GtkWidget      *sigma_widgets[SCALE_ENTRY_WIDGETS];
  GtkWidget      *strength_widgets[SCALE_ENTRY_WIDGETS];
  GtkWidget      *chroma_strength_widgets[SCALE_ENTRY_WIDGETS];
  GtkWidget      *estimate_button;
  GtkWidget      *mode_combo;
  GtkWidget      *backend_combo;
  GtkWidget      *fast_toggle;
  GtkWidget      *advanced;     /* the expander's table              */
  GtkAdjustment  *search_adj;
  GtkWidget      *group_hard_combo;
  GtkWidget      *group_wiener_combo;
  GtkWidget      *step_combo;
  GtkAdjustment  *lambda_adj;
  GtkAdjustment  *chroma_adj;

  /* Main thread.  */
  Bm3dPixels     *cache;        /* the preview's area plus context   */
  gboolean        cache_stale;
  gint            serial;
  gboolean        last_was_drag;
  guint           rest_id;
  gboolean        updating;     /* widgets being set, not by the user */
  gboolean        probed;
  gboolean        cuda;
  gchar          *cuda_text;
  gboolean        mode_ok[BM3D_VALUES_MODE_MAX + 1];
  gboolean        estimate_ok;
  gboolean        estimate_on_open;
  gboolean        estimating;
  gboolean        estimate_failed;
  bm3d_noise_profile profile;   /* camera noise, once estimated      */
  gboolean        have_profile;
  gchar          *backend_line;
  gchar          *preview_line;
  gchar          *estimate_line;

  /* Shared with the worker, under `lock` (epoch: atomic).  */
  GThread        *worker;
  GMutex          lock;
  GCond           wake;
  Job            *pending_probe;
  Job            *pending_estimate;
  Job            *pending;
  gboolean        quit;
  gint            epoch;
  GQueue          done;
  guint           idle_id;

  /* Logging (environment).  */
  FILE           *log;
  gchar          *tile_path;
  gint64          opened_us;
  guint           pulse_id;
  gint64          pulse_last_us;
  gint64          worst_stall_us;
  gboolean        geometry_logged[2];  /* per noise type            */
};



/* ---- the widgets, one file per toolkit ------------------------------- */

/* Builds d->window and every widget of the struct above from d->values,
 * connecting them to the handlers below.  */
void       dialog_build                (Dialog           *d);

/* ---- the core's handlers and helpers (bm3d-dialog.c) ---------------- */

void       dialog_sigma_changed        (GtkAdjustment    *adj,
                                        Dialog           *d);
void       dialog_strength_changed     (GtkAdjustment    *adj,
                                        Dialog           *d);
void       dialog_chroma_strength_changed (GtkAdjustment *adj,
                                        Dialog           *d);
void       dialog_noise_changed        (GtkWidget        *combo,
                                        Dialog           *d);
void       dialog_changed              (Dialog           *d);
void       dialog_mode_changed         (GtkWidget        *combo,
                                        Dialog           *d);
void       dialog_backend_changed      (GtkWidget        *combo,
                                        Dialog           *d);
void       dialog_fast_toggled         (GtkToggleButton  *toggle,
                                        Dialog           *d);
void       dialog_advanced_changed     (Dialog           *d);
void       dialog_advanced_reset       (GtkButton        *button,
                                        Dialog           *d);
void       dialog_advanced_sensitivity (Dialog           *d);
void       dialog_estimate_clicked     (GtkButton        *button,
                                        Dialog           *d);
void       dialog_preview_invalidated  (Dialog           *d);
void       dialog_preview_update_changed (GimpPreview    *preview,
                                        GParamSpec       *pspec,
                                        Dialog           *d);
gboolean   dialog_mode_sensitive       (gint              value,
                                        gpointer          data);
gboolean   dialog_backend_sensitive    (gint              value,
                                        gpointer          data);

/* Widgets whose construction is the same on both toolkits.  */
GtkWidget *dialog_choice_combo_new     (const gchar    *(*label) (gint32),
                                        gint              count,
                                        gint32           *value);
GtkWidget *dialog_group_combo_new      (gint32           *value);
GtkWidget *dialog_step_combo_new       (gint32           *value);
GtkWidget *dialog_default_spin_new     (GtkAdjustment    *adj,
                                        gint              digits);
void       dialog_preview_toggle_tooltip (GimpPreview    *preview);
void       dialog_status_reserve_lines (GtkWidget        *label,
                                        gint              lines);

#endif /* BM3D_DIALOG_PRIVATE_H */
