/* BM3D Denoise for GIMP — the dialog's state, shared by its
 * toolkit-neutral core (bm3d-dialog.c: requests, results, estimate,
 * the handlers; bm3d-dialog-worker.c: the worker thread;
 * bm3d-dialog-log.c: the log; bm3d-dialog-widgets.c: the widgets, from
 * the engine's table of options) and the few calls that differ between
 * the toolkits, one file each (bm3d-dialog-gtk2.c for GIMP 2.10,
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

/* What the worker does for the main thread (bm3d-dialog-worker.c).  */
typedef enum
{
  JOB_PROBE,
  JOB_PREVIEW,
  JOB_ESTIMATE
} JobKind;

struct _Job
{
  JobKind        kind;
  Dialog        *dialog;
  gint           epoch;
  gint           serial;     /* numbers the log's lines               */
  gboolean       fast;       /* a fast mode stands in for the chosen  */
  Bm3dFloatRect *input;
  GeglRectangle  core;
  bm3d_params    params;
  gint64         queued_us;
  gint64         started_us;
  gint64         done_us;

  /* Results.  */
  gboolean       ok;
  bm3d_status    status;
  bm3d_report    report;
  gchar         *message;
  guchar        *u8;         /* preview: the core, 8-bit              */
  gfloat         sigma;      /* estimate                              */
  gboolean       camera;     /* estimate: the profile, not sigma      */
  bm3d_noise_profile profile; /* estimate's result; preview's noise   */
  gboolean       cuda;       /* probe                                 */
  gchar          cuda_text[256];
  gboolean       mode_ok[BM3D_VALUES_MODES];
  gboolean       estimate_ok;
};

struct _Dialog
{
  Bm3dDrawable    drawable;
  Bm3dValues     *values;
  gboolean       *keep_editable;   /* NULL: not offered */
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
  GtkWidget      *keep_editable_toggle;  /* NULL: not offered */
  GtkWidget      *advanced;     /* the expander's table              */
  GtkAdjustment  *search_adj;
  GtkWidget      *group_hard_combo;
  GtkWidget      *group_wiener_combo;
  GtkWidget      *step_combo;
  GtkAdjustment  *lambda_adj;
  GtkAdjustment  *chroma_adj;

  /* Main thread.  */
  Bm3dFloatRect  *cache;        /* the preview's area plus context   */
  gboolean        cache_stale;
  gint            serial;
  gboolean        last_was_drag;
  guint           rest_id;
  gboolean        updating;     /* widgets being set, not by the user */
  gboolean        probed;
  gboolean        cuda;
  gchar          *cuda_text;
  gboolean        mode_ok[BM3D_VALUES_MODES];
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



/* ---- the worker thread (bm3d-dialog-worker.c) ------------------------ */

Job       *dialog_job_new              (Dialog           *d,
                                        JobKind           kind);
void       dialog_job_free             (Job              *job);
/* Hands `job` to the worker, replacing the one waiting in `slot`.  */
void       dialog_submit               (Dialog           *d,
                                        Job             **slot,
                                        Job              *job);
/* Starts the worker with the probe as its first job; stopping cancels
 * the call in flight, waits for the worker and frees what it left.  */
void       dialog_start_worker         (Dialog           *d);
void       dialog_stop_worker          (Dialog           *d);
/* The main thread's idle callback that takes the worker's results
 * (bm3d-dialog.c).  */
gboolean   dialog_deliver              (gpointer          data);

/* ---- the log (bm3d-dialog-log.c) -------------------------------------- */

void       dialog_log                  (Dialog           *d,
                                        const gchar      *format,
                                        ...) G_GNUC_PRINTF (2, 3);
void       dialog_log_geometry         (Dialog           *d);
void       dialog_write_tile           (Dialog           *d,
                                        const Job        *job);
void       dialog_open_log             (Dialog           *d);
void       dialog_start_pulse          (Dialog           *d);
void       dialog_close_log            (Dialog           *d,
                                        gint              response);

/* ---- the toolkit's calls (bm3d-dialog-gtk2.c, bm3d-dialog-gtk3.c) ---- */

/* A scale entry: a slider from `lower` to `slider_upper` and an entry
 * that takes up to `upper`.  */
typedef struct
{
  const gchar *label;         /* translated, with a mnemonic          */
  gdouble      lower;
  gdouble      upper;
  gdouble      slider_upper;
  gdouble      step;
  gdouble      page;
  gint         digits;
  gboolean     logarithmic;
  const gchar *tooltip;       /* translated                           */
} DialogScale;

void       dialog_toolkit_init         (void);
/* The buttons' order and the window GIMP's progress is in.  */
void       dialog_window_setup         (GtkWidget        *window);
GtkWidget *dialog_box_new              (gboolean          vertical,
                                        gint              spacing);
/* A table of rows and columns spaced 6 pixels apart.  */
GtkWidget *dialog_grid_new             (gint              rows,
                                        gint              columns);
/* `widget` over `width` columns from `column` on `row`; `fill` lets it
 * fill its cell's height, else it keeps its own, centred.  */
void       dialog_grid_attach          (GtkWidget        *grid,
                                        GtkWidget        *widget,
                                        gint              column,
                                        gint              row,
                                        gint              width,
                                        gboolean          fill);
/* A label with a mnemonic for `widget` in column 0, `widget` over
 * `width` columns after it, growing across when `expand`.  */
void       dialog_grid_attach_labelled (GtkWidget        *grid,
                                        gint              row,
                                        const gchar      *label,
                                        GtkWidget        *widget,
                                        gint              width,
                                        gboolean          expand);
/* A scale entry on `row` of `grid`, its label, slider and spin button
 * into `widgets` (SCALE_ENTRY_WIDGETS) for the core to show or hide
 * together; returns the adjustment its value is read from.  */
GtkAdjustment *dialog_scale_new        (GtkWidget         *grid,
                                        gint               row,
                                        const DialogScale *scale,
                                        gdouble            value,
                                        GtkWidget        **widgets);
/* The drawable's preview, PREVIEW_SIZE pixels a side.  */
GtkWidget *dialog_preview_new          (Bm3dDrawable      drawable);
void       dialog_label_align_top_left (GtkWidget        *label);

/* ---- the widgets (bm3d-dialog-widgets.c) ------------------------------ */

/* Builds d->window and every widget of the struct above from d->values,
 * connecting them to the handlers below.  */
void       dialog_build                (Dialog           *d);
/* Shows `v`'s values in the widgets without a preview per widget; the
 * caller asks for one afterwards.  */
void       dialog_show_values          (Dialog           *d,
                                        const Bm3dValues *v);

/* ---- the core's handlers and helpers (bm3d-dialog.c, and for the
 * widgets alone bm3d-dialog-widgets.c) ------------------------------ */

void       dialog_sigma_changed        (GtkAdjustment    *adj,
                                        Dialog           *d);
void       dialog_strength_changed     (GtkAdjustment    *adj,
                                        Dialog           *d);
void       dialog_chroma_strength_changed (GtkAdjustment *adj,
                                        Dialog           *d);
void       dialog_noise_changed        (GtkWidget        *combo,
                                        Dialog           *d);
void       dialog_changed              (Dialog           *d);
void       dialog_backend_changed      (GtkWidget        *combo,
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

/* Sigma for white noise, the strengths for camera noise: only the
 * sliders of the chosen noise are shown.  */
void       dialog_noise_widgets_show   (Dialog           *d);

#endif /* BM3D_DIALOG_PRIVATE_H */
