/* BM3D Denoise for GIMP — the dialog's widgets on GTK 3 (GIMP 3):
 * the preview with its status line, the controls, the advanced
 * expander.  What they do is the core's (bm3d-dialog.c).
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

#include "bm3d-intl.h"
#include "bm3d-dialog-private.h"

/* A row of the expert table: label (with mnemonic) and widget.  */
static void
advanced_row (GtkWidget   *table,
              gint         row,
              const gchar *label,
              GtkWidget   *widget,
              const gchar *tooltip)
{
  gimp_grid_attach_aligned (GTK_GRID (table), 0, row, label, 0.0, 0.5,
                            widget, 1);
  gtk_widget_set_hexpand (widget, TRUE);
  gimp_help_set_help_data (widget, tooltip, NULL);
}

static GtkWidget *
advanced_new (Dialog *d)
{
  Bm3dValues *v = d->values;
  GtkWidget  *expander;
  GtkWidget  *table;
  GtkWidget  *spin;
  GtkWidget  *button;
  GtkWidget  *hbox;

  expander = gtk_expander_new_with_mnemonic (_("_Advanced (BM3D)"));
  gimp_help_set_help_data (expander,
                           _("The BM3D parameters experts change.  "
                             "“Default” follows the published settings "
                             "for the noise level."), NULL);

  table = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (table), 6);
  gtk_grid_set_row_spacing (GTK_GRID (table), 6);
  gtk_container_set_border_width (GTK_CONTAINER (table), 6);
  gtk_container_add (GTK_CONTAINER (expander), table);
  d->advanced = table;

  /* Search window: odd sides only (snapped); 7 stands for "Default".  */
  d->search_adj = GTK_ADJUSTMENT (gtk_adjustment_new (
                    v->search ? v->search : BM3D_VALUES_SEARCH_MIN - 2,
                    BM3D_VALUES_SEARCH_MIN - 2, BM3D_VALUES_SEARCH_MAX,
                    2, 10, 0));
  spin = dialog_default_spin_new (d->search_adj, 0);
  advanced_row (table, 0, _("_Search window:"), spin,
                _("Side in pixels of the square where similar patches "
                  "are searched for, odd, 9 to 75 (default 39).  Larger "
                  "finds more matches in repetitive texture and takes "
                  "longer."));
  g_signal_connect_swapped (d->search_adj, "value-changed",
                            G_CALLBACK (dialog_advanced_changed), d);

  d->group_hard_combo = dialog_group_combo_new (&v->group_max_hard);
  advanced_row (table, 1, _("_Group size, first phase:"),
                d->group_hard_combo,
                _("Most patches stacked into one group in the "
                  "hard-threshold phase (default 16)."));
  g_signal_connect_swapped (d->group_hard_combo, "changed",
                            G_CALLBACK (dialog_changed), d);

  d->group_wiener_combo = dialog_group_combo_new (&v->group_max_wiener);
  advanced_row (table, 2, _("Group size, _Wiener phase:"),
                d->group_wiener_combo,
                _("Most patches stacked into one group in the Wiener "
                  "phase (default 32).  Not used by “first phase "
                  "only”."));
  g_signal_connect_swapped (d->group_wiener_combo, "changed",
                            G_CALLBACK (dialog_changed), d);

  d->step_combo = dialog_step_combo_new (&v->step);
  advanced_row (table, 3, _("Reference s_tep:"), d->step_combo,
                _("Distance in pixels between reference patches, in both "
                  "phases (default 3).  1 is the slowest and finest."));
  g_signal_connect_swapped (d->step_combo, "changed",
                            G_CALLBACK (dialog_changed), d);

  /* λ3D: 1.0 to 5.0 by tenths; 0.9 stands for "Default".  */
  d->lambda_adj = GTK_ADJUSTMENT (gtk_adjustment_new (
                    v->lambda_3d != 0.0f ? v->lambda_3d : 0.9,
                    0.9, BM3D_VALUES_LAMBDA_MAX, 0.1, 0.5, 0));
  spin = dialog_default_spin_new (d->lambda_adj, 1);
  advanced_row (table, 4, _("Hard _threshold (λ3D):"), spin,
                _("The first phase removes 3D transform coefficients "
                  "below this many sigmas, 1 to 5 (default 2.7, 2.8 "
                  "above sigma 40).  Higher smooths more."));
  g_signal_connect_swapped (d->lambda_adj, "value-changed",
                            G_CALLBACK (dialog_advanced_changed), d);

  /* Chroma scale: 0.25 to 4 by 0.05; 0.20 stands for "Default".  */
  d->chroma_adj = GTK_ADJUSTMENT (gtk_adjustment_new (
                    v->chroma_scale != 0.0f ? v->chroma_scale : 0.20,
                    0.20, BM3D_VALUES_CHROMA_MAX, 0.05, 0.25, 0));
  spin = dialog_default_spin_new (d->chroma_adj, 2);
  advanced_row (table, 5, _("Chroma s_igma scale:"), spin,
                _("Colour images: the noise level of the two colour "
                  "planes as a multiple of that of the luminance, 0.25 "
                  "to 4 (default 1).  Raise it for blotchy colour "
                  "noise."));
  g_signal_connect_swapped (d->chroma_adj, "value-changed",
                            G_CALLBACK (dialog_advanced_changed), d);

  hbox = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  button = gtk_button_new_with_mnemonic (_("_Defaults"));
  gimp_help_set_help_data (button,
                           _("Set every option above back to its "
                             "default."), NULL);
  g_signal_connect (button, "clicked", G_CALLBACK (dialog_advanced_reset), d);
  gtk_box_pack_end (GTK_BOX (hbox), button, FALSE, FALSE, 0);
  gtk_grid_attach (GTK_GRID (table), hbox, 0, 6, 2, 1);

  return expander;
}


/* Over the window GIMP shows progress in.  gimp-console has none, and
 * gimp_window_set_transient () then fails an assertion: skip it.  */
static void
set_transient (GtkWindow *window)
{
  GBytes *handle = gimp_progress_get_window_handle ();

  if (handle && g_bytes_get_size (handle) > 0)
    gimp_window_set_transient_for (window, handle);
  if (handle)
    g_bytes_unref (handle);
}

/* GimpPreview sizes its area from its "size" style property, which GTK 3
 * reads from CSS.  */
static void
preview_set_size (GtkWidget *preview)
{
  GtkCssProvider *css = gtk_css_provider_new ();

  gtk_css_provider_load_from_data (css,
                                   "* { -GimpPreview-size: "
                                   G_STRINGIFY (PREVIEW_SIZE) "; }",
                                   -1, NULL);
  gtk_style_context_add_provider (gtk_widget_get_style_context (preview),
                                  GTK_STYLE_PROVIDER (css),
                                  GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_unref (css);
}

/* A scale entry of the noise rows on `row` of `table`; its widgets
 * (the entry itself, its slider, its spin button) go into `widgets`
 * for the core to show or hide together.  */
static GtkAdjustment *
noise_scale_new (GtkWidget   *table,
                 gint         row,
                 const gchar *label,
                 gdouble      value,
                 const gchar *tooltip,
                 GtkWidget  **widgets)
{
  GtkWidget *entry;

  entry = gimp_scale_entry_new (label, value, BM3D_VALUES_STRENGTH_MIN,
                                BM3D_VALUES_STRENGTH_MAX, STRENGTH_DIGITS);
  gimp_label_spin_set_increments (GIMP_LABEL_SPIN (entry), 0.05, 0.25);
  gimp_scale_entry_set_logarithmic (GIMP_SCALE_ENTRY (entry), TRUE);
  gimp_help_set_help_data (entry, tooltip, NULL);
  gtk_widget_set_size_request (gimp_scale_entry_get_range
                               (GIMP_SCALE_ENTRY (entry)), SCALE_WIDTH, -1);
  gtk_grid_attach (GTK_GRID (table), entry, 0, row, 3, 1);
  widgets[0] = entry;
  widgets[1] = gimp_scale_entry_get_range (GIMP_SCALE_ENTRY (entry));
  widgets[2] = gimp_label_spin_get_spin_button (GIMP_LABEL_SPIN (entry));
  return gtk_spin_button_get_adjustment (GTK_SPIN_BUTTON (widgets[2]));
}

/* The noise choice on row 0, camera noise first: what a photograph
 * has.  */
static void
noise_combo_new (Dialog    *d,
                 GtkWidget *table)
{
  static const gint32 noises[] = { BM3D_VALUES_NOISE_CAMERA,
                                   BM3D_VALUES_NOISE_WHITE };
  guint i;

  d->noise_combo = gimp_int_combo_box_new (NULL, 0, NULL);
  for (i = 0; i < G_N_ELEMENTS (noises); i++)
    gimp_int_combo_box_append (GIMP_INT_COMBO_BOX (d->noise_combo),
                               GIMP_INT_STORE_VALUE, noises[i],
                               GIMP_INT_STORE_LABEL,
                               bm3d_values_noise_label (noises[i]),
                               -1);
  /* The value is written before the core's handler reads it.  */
  gimp_int_combo_box_set_active (GIMP_INT_COMBO_BOX (d->noise_combo),
                                 d->values->noise);
  g_signal_connect (d->noise_combo, "changed",
                    G_CALLBACK (gimp_int_combo_box_get_active),
                    &d->values->noise);
  g_signal_connect (d->noise_combo, "changed",
                    G_CALLBACK (dialog_noise_changed), d);
  gimp_grid_attach_aligned (GTK_GRID (table), 0, 0, _("Noise t_ype:"),
                            0.0, 0.5, d->noise_combo, 2);
  gimp_help_set_help_data (d->noise_combo,
                           _("Camera noise: the noise of this photograph, "
                             "measured on it (coarse grain and colour "
                             "blotches included) and removed as measured, "
                             "times the strengths.  White noise: fine, "
                             "even noise of one level (sigma), as in "
                             "synthetic tests and scans."), NULL);
}

/* The choice bm3d_dialog_offer_keep_editable () asks for, when it did:
 * one dialog per plug-in run.  */
static gboolean *keep_editable_choice = NULL;

void
bm3d_dialog_offer_keep_editable (gboolean *keep_editable)
{
  keep_editable_choice = keep_editable;
}

static void
keep_editable_toggled (GtkToggleButton *toggle,
                       gboolean        *keep_editable)
{
  *keep_editable = gtk_toggle_button_get_active (toggle);
}

static void
keep_editable_new (GtkWidget *table,
                   gint       row)
{
  GtkWidget *toggle;

  if (! keep_editable_choice)
    return;
  toggle = gtk_check_button_new_with_mnemonic (_("_Keep editable"));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle),
                                *keep_editable_choice);
  g_signal_connect (toggle, "toggled", G_CALLBACK (keep_editable_toggled),
                    keep_editable_choice);
  gimp_help_set_help_data (toggle,
                           _("Add BM3D to the layer as a non-destructive "
                             "filter: it stays editable from the layer's "
                             "filter list, can be switched off and merged "
                             "later.  Off: the layer's pixels are changed "
                             "now."), NULL);
  gtk_grid_attach (GTK_GRID (table), toggle, 0, row, 4, 1);
}

void
dialog_build (Dialog *d)
{
  GtkWidget *main_hbox;
  GtkWidget *preview_vbox;
  GtkWidget *controls_vbox;
  GtkWidget *table;
  GtkWidget *sigma;
  GtkWidget *spin;

  gimp_ui_init (PLUG_IN_BINARY);

  d->window = gimp_dialog_new (_("BM3D Denoise"), PLUG_IN_ROLE,
                              NULL, 0,
                              gimp_standard_help_func, PLUG_IN_PROC,
                              _("_Reset"),  RESPONSE_RESET,
                              _("_Cancel"), GTK_RESPONSE_CANCEL,
                              _("_OK"),     GTK_RESPONSE_OK,
                              NULL);
  gimp_dialog_set_alternative_button_order (GTK_DIALOG (d->window),
                                           RESPONSE_RESET,
                                           GTK_RESPONSE_OK,
                                           GTK_RESPONSE_CANCEL,
                                           -1);
  set_transient (GTK_WINDOW (d->window));

  /* The preview and its status on the left, the controls on the right:
   * with the expert options open the dialog still fits a laptop's
   * screen.  */
  main_hbox = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_container_set_border_width (GTK_CONTAINER (main_hbox), 12);
  gtk_box_pack_start (GTK_BOX (gtk_dialog_get_content_area
                               (GTK_DIALOG (d->window))),
                      main_hbox, TRUE, TRUE, 0);
  preview_vbox = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_box_pack_start (GTK_BOX (main_hbox), preview_vbox, TRUE, TRUE, 0);
  controls_vbox = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_box_pack_start (GTK_BOX (main_hbox), controls_vbox, FALSE, FALSE, 0);

  d->preview = gimp_drawable_preview_new_from_drawable (d->drawable);
  preview_set_size (d->preview);
  gtk_box_pack_start (GTK_BOX (preview_vbox), d->preview, TRUE, TRUE, 0);
  g_signal_connect_swapped (d->preview, "invalidated",
                            G_CALLBACK (dialog_preview_invalidated), d);
  dialog_preview_toggle_tooltip (GIMP_PREVIEW (d->preview));
  g_signal_connect (d->preview, "notify::update",
                    G_CALLBACK (dialog_preview_update_changed), d);

  d->status = gtk_label_new ("");
  gtk_label_set_line_wrap (GTK_LABEL (d->status), TRUE);
  gtk_label_set_xalign (GTK_LABEL (d->status), 0.0);
  gtk_label_set_yalign (GTK_LABEL (d->status), 0.0);
  gimp_label_set_attributes (GTK_LABEL (d->status),
                             PANGO_ATTR_SCALE, PANGO_SCALE_SMALL, -1);
  dialog_status_reserve_lines (d->status, STATUS_LINES);
  gtk_box_pack_start (GTK_BOX (preview_vbox), d->status, FALSE, FALSE, 0);

  table = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (table), 6);
  gtk_grid_set_row_spacing (GTK_GRID (table), 6);
  gtk_box_pack_start (GTK_BOX (controls_vbox), table, FALSE, FALSE, 0);

  noise_combo_new (d, table);

  /* The entry takes up to 255, the slider covers everyday noise.  */
  sigma = gimp_scale_entry_new (_("_Noise level (sigma):"), d->values->sigma,
                                SIGMA_ENTRY_MIN, BM3D_VALUES_SIGMA_MAX, 1);
  gimp_scale_entry_set_bounds (GIMP_SCALE_ENTRY (sigma), SIGMA_ENTRY_MIN,
                               SIGMA_SLIDER_MAX, FALSE);
  gimp_label_spin_set_increments (GIMP_LABEL_SPIN (sigma), 0.5, 5.0);
  gimp_help_set_help_data (sigma,
                           _("How strong the noise is, on a 0 to 255 "
                             "scale: about 5 for a clean photograph, 15 to "
                             "25 for a high-ISO shot.  Too high smooths "
                             "real detail away."), NULL);
  gtk_widget_set_size_request (gimp_scale_entry_get_range
                               (GIMP_SCALE_ENTRY (sigma)), SCALE_WIDTH, -1);
  gtk_grid_attach (GTK_GRID (table), sigma, 0, 1, 3, 1);
  spin = gimp_label_spin_get_spin_button (GIMP_LABEL_SPIN (sigma));
  d->sigma_adj = gtk_spin_button_get_adjustment (GTK_SPIN_BUTTON (spin));
  d->sigma_scale = gimp_scale_entry_get_range (GIMP_SCALE_ENTRY (sigma));
  d->sigma_spin = spin;
  d->sigma_widgets[0] = sigma;
  d->sigma_widgets[1] = d->sigma_scale;
  d->sigma_widgets[2] = spin;
  g_signal_connect (d->sigma_adj, "value-changed",
                    G_CALLBACK (dialog_sigma_changed), d);

  d->estimate_button = gtk_button_new_with_mnemonic (_("_Estimate"));
  gimp_help_set_help_data (d->estimate_button,
                           _("Measure the noise of the image (the middle "
                             "of the selection): for camera noise its "
                             "profile, which the preview then uses; for "
                             "white noise its level, which the slider is "
                             "set to."), NULL);
  gtk_widget_set_sensitive (d->estimate_button, FALSE);
  g_signal_connect (d->estimate_button, "clicked",
                    G_CALLBACK (dialog_estimate_clicked), d);
  gtk_widget_set_valign (d->estimate_button, GTK_ALIGN_CENTER);
  gtk_grid_attach (GTK_GRID (table), d->estimate_button, 3, 0, 1, 1);

  d->strength_adj =
    noise_scale_new (table, 2, _("S_trength:"), d->values->strength,
                     _("How much of the measured camera noise to "
                       "remove: 1 removes it as measured, less keeps "
                       "more grain and fine detail, more smooths "
                       "harder."), d->strength_widgets);
  g_signal_connect (d->strength_adj, "value-changed",
                    G_CALLBACK (dialog_strength_changed), d);

  d->chroma_strength_adj =
    noise_scale_new (table, 3, _("C_hroma strength:"),
                     d->values->chroma_strength,
                     _("The same for the colour noise alone, on top "
                       "of Strength: raise it for colour blotches "
                       "that remain, lower it to keep faint "
                       "colours."), d->chroma_strength_widgets);
  g_signal_connect (d->chroma_strength_adj, "value-changed",
                    G_CALLBACK (dialog_chroma_strength_changed), d);

  d->mode_combo = dialog_choice_combo_new (bm3d_values_mode_label,
                                           BM3D_VALUES_MODE_MAX + 1,
                                           &d->values->mode);
  gimp_int_combo_box_set_sensitivity (GIMP_INT_COMBO_BOX (d->mode_combo),
                                      dialog_mode_sensitive, d, NULL);
  g_signal_connect (d->mode_combo, "changed",
                    G_CALLBACK (dialog_mode_changed), d);
  gimp_grid_attach_aligned (GTK_GRID (table), 0, 4, _("_Mode:"),
                            0.0, 0.5, d->mode_combo, 2);
  gimp_help_set_help_data (d->mode_combo,
                           _("BM3D gives the best result in two phases; "
                             "its first phase alone is about twice as "
                             "fast and a little softer.  Non-local means "
                             "and isoline are faster still, where this "
                             "build has them."), NULL);

  d->backend_combo = dialog_choice_combo_new (bm3d_values_backend_label,
                                              BM3D_VALUES_BACKEND_MAX + 1,
                                              &d->values->backend);
  gimp_int_combo_box_set_sensitivity (GIMP_INT_COMBO_BOX (d->backend_combo),
                                      dialog_backend_sensitive, d, NULL);
  g_signal_connect (d->backend_combo, "changed",
                    G_CALLBACK (dialog_backend_changed), d);
  gimp_grid_attach_aligned (GTK_GRID (table), 0, 5, _("_Backend:"),
                            0.0, 0.5, d->backend_combo, 2);
  gimp_help_set_help_data (d->backend_combo,
                           _("Where the work is done: an NVIDIA GPU "
                             "through CUDA when one is usable, else every "
                             "CPU core.  The line under the preview says "
                             "which ran, and why."), NULL);

  d->fast_toggle = gtk_check_button_new_with_mnemonic
                    (_("_Fast preview while dragging"));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (d->fast_toggle),
                                d->values->fast_preview);
  g_signal_connect (d->fast_toggle, "toggled",
                    G_CALLBACK (dialog_fast_toggled), d);
  gimp_help_set_help_data (d->fast_toggle,
                           _("While the noise level slider moves, preview "
                             "with the fastest mode available, and with "
                             "the chosen mode once it rests."), NULL);
  gtk_grid_attach (GTK_GRID (table), d->fast_toggle, 0, 6, 4, 1);
  keep_editable_new (table, 7);

  gtk_box_pack_start (GTK_BOX (controls_vbox), advanced_new (d),
                      FALSE, FALSE, 0);
  dialog_advanced_sensitivity (d);
}
