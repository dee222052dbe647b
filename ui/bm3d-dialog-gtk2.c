/* BM3D Denoise for GIMP — the dialog's widgets on GTK 2 (GIMP 2.10):
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
  gimp_table_attach_aligned (GTK_TABLE (table), 0, row, label, 0.0, 0.5,
                             widget, 1, TRUE);
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

  table = gtk_table_new (7, 2, FALSE);
  gtk_table_set_col_spacings (GTK_TABLE (table), 6);
  gtk_table_set_row_spacings (GTK_TABLE (table), 6);
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

  hbox = gtk_hbox_new (FALSE, 0);
  button = gtk_button_new_with_mnemonic (_("_Defaults"));
  gimp_help_set_help_data (button,
                           _("Set every option above back to its "
                             "default."), NULL);
  g_signal_connect (button, "clicked", G_CALLBACK (dialog_advanced_reset), d);
  gtk_box_pack_end (GTK_BOX (hbox), button, FALSE, FALSE, 0);
  gtk_table_attach (GTK_TABLE (table), hbox, 0, 2, 6, 7,
                    GTK_FILL, GTK_FILL, 0, 0);

  return expander;
}

/* A scale entry's label, slider and spin button, for the core to show
 * or hide together.  */
static void
scale_entry_widgets (GtkObject  *adj,
                     GtkWidget **widgets)
{
  widgets[0] = GIMP_SCALE_ENTRY_LABEL (adj);
  widgets[1] = GIMP_SCALE_ENTRY_SCALE (adj);
  widgets[2] = GIMP_SCALE_ENTRY_SPINBUTTON (adj);
}

/* The noise rows of the main table (rows 0 to 3): the noise model and
 * Estimate, sigma for white noise, the strengths for camera noise.  */
static void
noise_widgets_new (Dialog    *d,
                   GtkWidget *table)
{
  /* Camera noise first: what a photograph has.  */
  static const gint32 noises[] = { BM3D_VALUES_NOISE_CAMERA,
                                   BM3D_VALUES_NOISE_WHITE };
  Bm3dValues *values = d->values;
  GtkObject  *adj;
  guint       i;

  d->noise_combo = gimp_int_combo_box_new (NULL, 0, NULL);
  for (i = 0; i < G_N_ELEMENTS (noises); i++)
    gimp_int_combo_box_append (GIMP_INT_COMBO_BOX (d->noise_combo),
                               GIMP_INT_STORE_VALUE, noises[i],
                               GIMP_INT_STORE_LABEL,
                               bm3d_values_noise_label (noises[i]),
                               -1);
  gimp_int_combo_box_connect (GIMP_INT_COMBO_BOX (d->noise_combo),
                              values->noise,
                              G_CALLBACK (gimp_int_combo_box_get_active),
                              &values->noise);
  g_signal_connect (d->noise_combo, "changed", G_CALLBACK (dialog_noise_changed), d);
  gimp_table_attach_aligned (GTK_TABLE (table), 0, 0, _("Noise t_ype:"),
                             0.0, 0.5, d->noise_combo, 2, FALSE);
  gimp_help_set_help_data (d->noise_combo,
                           _("Camera noise: the noise of this photograph, "
                             "measured on it (coarse grain and colour "
                             "blotches included) and removed as measured, "
                             "times the strengths.  White noise: fine, "
                             "even noise of one level (sigma), as in "
                             "synthetic tests and scans."), NULL);

  adj = gimp_scale_entry_new (GTK_TABLE (table), 0, 1,
                              _("_Noise level (sigma):"),
                              SCALE_WIDTH, SPIN_WIDTH,
                              values->sigma, SIGMA_ENTRY_MIN,
                              SIGMA_SLIDER_MAX, 0.5, 5.0, 1,
                              FALSE, SIGMA_ENTRY_MIN,
                              BM3D_VALUES_SIGMA_MAX,
                              _("How strong the noise is, on a 0 "
                                "to 255 scale: about 5 for a clean "
                                "photograph, 15 to 25 for a "
                                "high-ISO shot.  Too high smooths "
                                "real detail away."),
                              NULL);
  d->sigma_adj = GTK_ADJUSTMENT (adj);
  scale_entry_widgets (adj, d->sigma_widgets);
  d->sigma_scale = d->sigma_widgets[1];
  d->sigma_spin = d->sigma_widgets[2];
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
  gtk_table_attach (GTK_TABLE (table), d->estimate_button, 3, 4, 0, 1,
                    GTK_FILL, GTK_SHRINK, 0, 0);

  adj =
    gimp_scale_entry_new (GTK_TABLE (table), 0, 2, _("S_trength:"),
                          SCALE_WIDTH, SPIN_WIDTH, values->strength,
                          BM3D_VALUES_STRENGTH_MIN, BM3D_VALUES_STRENGTH_MAX,
                          0.05, 0.25, STRENGTH_DIGITS, TRUE, 0, 0,
                          _("How much of the measured camera noise to "
                            "remove: 1 removes it as measured, less keeps "
                            "more grain and fine detail, more smooths "
                            "harder."), NULL);
  gimp_scale_entry_set_logarithmic (adj, TRUE);
  d->strength_adj = GTK_ADJUSTMENT (adj);
  scale_entry_widgets (adj, d->strength_widgets);
  g_signal_connect (d->strength_adj, "value-changed",
                    G_CALLBACK (dialog_strength_changed), d);

  adj =
    gimp_scale_entry_new (GTK_TABLE (table), 0, 3, _("C_hroma strength:"),
                          SCALE_WIDTH, SPIN_WIDTH, values->chroma_strength,
                          BM3D_VALUES_STRENGTH_MIN, BM3D_VALUES_STRENGTH_MAX,
                          0.05, 0.25, STRENGTH_DIGITS, TRUE, 0, 0,
                          _("The same for the colour noise alone, on top "
                            "of Strength: raise it for colour blotches "
                            "that remain, lower it to keep faint "
                            "colours."), NULL);
  gimp_scale_entry_set_logarithmic (adj, TRUE);
  d->chroma_strength_adj = GTK_ADJUSTMENT (adj);
  scale_entry_widgets (adj, d->chroma_strength_widgets);
  g_signal_connect (d->chroma_strength_adj, "value-changed",
                    G_CALLBACK (dialog_chroma_strength_changed), d);
}

void
dialog_build (Dialog *d)
{
  GtkWidget *main_hbox;
  GtkWidget *preview_vbox;
  GtkWidget *controls_vbox;
  GtkWidget *table;

  gimp_ui_init (PLUG_IN_BINARY, FALSE);

  d->window = gimp_dialog_new (_("BM3D Denoise"), PLUG_IN_ROLE,
                              NULL, 0,
                              gimp_standard_help_func, PLUG_IN_PROC,
                              _("_Reset"),  RESPONSE_RESET,
                              _("_Cancel"), GTK_RESPONSE_CANCEL,
                              _("_OK"),     GTK_RESPONSE_OK,
                              NULL);
  gtk_dialog_set_alternative_button_order (GTK_DIALOG (d->window),
                                           RESPONSE_RESET,
                                           GTK_RESPONSE_OK,
                                           GTK_RESPONSE_CANCEL,
                                           -1);
  gimp_window_set_transient (GTK_WINDOW (d->window));

  /* The preview and its status on the left, the controls on the right:
   * with the expert options open the dialog still fits a laptop's
   * screen.  */
  main_hbox = gtk_hbox_new (FALSE, 12);
  gtk_container_set_border_width (GTK_CONTAINER (main_hbox), 12);
  gtk_box_pack_start (GTK_BOX (gtk_dialog_get_content_area
                               (GTK_DIALOG (d->window))),
                      main_hbox, TRUE, TRUE, 0);
  preview_vbox = gtk_vbox_new (FALSE, 12);
  gtk_box_pack_start (GTK_BOX (main_hbox), preview_vbox, TRUE, TRUE, 0);
  controls_vbox = gtk_vbox_new (FALSE, 12);
  gtk_box_pack_start (GTK_BOX (main_hbox), controls_vbox, FALSE, FALSE, 0);

  /* GimpPreview sizes its area from the "size" style property.  */
  gtk_rc_parse_string ("style \"bm3d-denoise-preview\"\n"
                       "{ GimpPreview::size = " G_STRINGIFY (PREVIEW_SIZE)
                       " }\n"
                       "widget \"*.bm3d-denoise-preview\" "
                       "style : highest \"bm3d-denoise-preview\"\n");
  d->preview = gimp_drawable_preview_new_from_drawable_id (d->drawable);
  gtk_widget_set_name (d->preview, "bm3d-denoise-preview");
  gtk_box_pack_start (GTK_BOX (preview_vbox), d->preview, TRUE, TRUE, 0);
  g_signal_connect_swapped (d->preview, "invalidated",
                            G_CALLBACK (dialog_preview_invalidated), d);
  dialog_preview_toggle_tooltip (GIMP_PREVIEW (d->preview));
  g_signal_connect (d->preview, "notify::update",
                    G_CALLBACK (dialog_preview_update_changed), d);

  d->status = gtk_label_new ("");
  gtk_label_set_line_wrap (GTK_LABEL (d->status), TRUE);
  gtk_misc_set_alignment (GTK_MISC (d->status), 0.0, 0.0);
  gimp_label_set_attributes (GTK_LABEL (d->status),
                             PANGO_ATTR_SCALE, PANGO_SCALE_SMALL, -1);
  dialog_status_reserve_lines (d->status, STATUS_LINES);
  gtk_box_pack_start (GTK_BOX (preview_vbox), d->status, FALSE, FALSE, 0);

  table = gtk_table_new (7, 4, FALSE);
  gtk_table_set_col_spacings (GTK_TABLE (table), 6);
  gtk_table_set_row_spacings (GTK_TABLE (table), 6);
  gtk_box_pack_start (GTK_BOX (controls_vbox), table, FALSE, FALSE, 0);

  noise_widgets_new (d, table);

  d->mode_combo = dialog_choice_combo_new (bm3d_values_mode_label,
                                           BM3D_VALUES_MODE_MAX + 1,
                                           &d->values->mode);
  gimp_int_combo_box_set_sensitivity (GIMP_INT_COMBO_BOX (d->mode_combo),
                                      dialog_mode_sensitive, d, NULL);
  g_signal_connect (d->mode_combo, "changed",
                    G_CALLBACK (dialog_mode_changed), d);
  gimp_table_attach_aligned (GTK_TABLE (table), 0, 4, _("_Mode:"),
                             0.0, 0.5, d->mode_combo, 2, FALSE);
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
  gimp_table_attach_aligned (GTK_TABLE (table), 0, 5, _("_Backend:"),
                             0.0, 0.5, d->backend_combo, 2, FALSE);
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
  gtk_table_attach (GTK_TABLE (table), d->fast_toggle, 0, 4, 6, 7,
                    GTK_FILL, GTK_FILL, 0, 0);

  gtk_box_pack_start (GTK_BOX (controls_vbox), advanced_new (d),
                      FALSE, FALSE, 0);
  dialog_advanced_sensitivity (d);
}
