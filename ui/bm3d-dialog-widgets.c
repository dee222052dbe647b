/* BM3D Denoise for GIMP — the dialog's widgets, built the same on both
 * toolkits from the engine's table of options (bm3d-options.h: ranges,
 * defaults, the choices and their labels) and the tooltips: the noise
 * model and its sliders, the mode, the backend, the advanced expander;
 * and the helpers and handlers that only touch widgets.  The calls that
 * differ between GTK 2 and GTK 3 are in bm3d-dialog-gtk2.c and
 * bm3d-dialog-gtk3.c.
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

#include <string.h>

#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include "bm3d-intl.h"
#include "bm3d-dialog-private.h"

gboolean
dialog_mode_sensitive (gint     value,
                       gpointer data)
{
  Dialog *d = data;

  return ! d->probed || value < 0 || value >= BM3D_VALUES_MODES
         || d->mode_ok[value];
}

gboolean
dialog_backend_sensitive (gint     value,
                          gpointer data)
{
  Dialog *d = data;

  return ! d->probed || value != BM3D_BACKEND_CUDA || d->cuda;
}

/* The combo shows `*value` and writes the user's choice there.  Not
 * gimp_int_combo_box_connect (), whose arguments differ between GIMP
 * 2.10 and 3.  */
static void
combo_bind (GtkWidget *combo,
            gint32    *value)
{
  G_STATIC_ASSERT (sizeof (gint32) == sizeof (gint));

  gimp_int_combo_box_set_active (GIMP_INT_COMBO_BOX (combo), *value);
  g_signal_connect (combo, "changed",
                    G_CALLBACK (gimp_int_combo_box_get_active), value);
}

/* A combo of the choices of `option` (a choice of the engine's table),
 * in the table's order, bound to `value`.  */
static GtkWidget *
choice_combo_new (const bm3d_option *option,
                  gint32            *value)
{
  GtkWidget *combo = gimp_int_combo_box_new (NULL, 0, NULL);
  gint       i;

  for (i = 0; i < option->n_choices; i++)
    gimp_int_combo_box_append (GIMP_INT_COMBO_BOX (combo),
                               GIMP_INT_STORE_VALUE,
                               option->choices[i].value,
                               GIMP_INT_STORE_LABEL,
                               _(option->choices[i].label),
                               -1);
  combo_bind (combo, value);
  return combo;
}

/* The expert options apply to the BM3D modes alone.  */
void
dialog_advanced_sensitivity (Dialog *d)
{
  gtk_widget_set_sensitive (d->advanced,
                            d->values->mode == BM3D_MODE_BM3D
                            || d->values->mode == BM3D_MODE_BM3D_FAST);
}

static void
mode_changed (GtkWidget *combo,
              Dialog    *d)
{
  (void) combo;
  dialog_advanced_sensitivity (d);
  dialog_changed (d);
}

static void
fast_toggled (GtkToggleButton *toggle,
              Dialog          *d)
{
  d->values->fast_preview = gtk_toggle_button_get_active (toggle);
}

/* Spin buttons whose lowest value means "the default": they show the
 * word, read it back, and snap to their steps, so no value between
 * steps (an even search window) can be entered.  */
static gboolean
default_spin_output (GtkSpinButton *spin,
                     gpointer       data)
{
  GtkAdjustment *adj = gtk_spin_button_get_adjustment (spin);

  (void) data;
  if (gtk_adjustment_get_value (adj)
      < gtk_adjustment_get_lower (adj)
        + gtk_adjustment_get_step_increment (adj) / 2)
    {
      if (strcmp (gtk_entry_get_text (GTK_ENTRY (spin)), _("Default")))
        gtk_entry_set_text (GTK_ENTRY (spin), _("Default"));
      return TRUE;
    }
  return FALSE;
}

static gint
default_spin_input (GtkSpinButton *spin,
                    gdouble       *value,
                    gpointer       data)
{
  const gchar *text = gtk_entry_get_text (GTK_ENTRY (spin));

  (void) data;
  if (*text == '\0' || g_strcmp0 (text, _("Default")) == 0)
    {
      *value = gtk_adjustment_get_lower (gtk_spin_button_get_adjustment (spin));
      return TRUE;
    }
  return FALSE;
}

static GtkWidget *
default_spin_new (GtkAdjustment *adj,
                  gint           digits)
{
  GtkWidget *spin = gtk_spin_button_new (adj, 1.0, digits);

  gtk_spin_button_set_snap_to_ticks (GTK_SPIN_BUTTON (spin), TRUE);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), FALSE);
  gtk_entry_set_width_chars (GTK_ENTRY (spin), 8);
  g_signal_connect (spin, "output", G_CALLBACK (default_spin_output), NULL);
  g_signal_connect (spin, "input", G_CALLBACK (default_spin_input), NULL);
  return spin;
}

/* From a default-spin's adjustment to an option: 0 for the default,
 * else the value rounded to the spin's steps.  */
static gdouble
default_spin_option (GtkAdjustment *adj)
{
  gdouble lower = gtk_adjustment_get_lower (adj);
  gdouble step = gtk_adjustment_get_step_increment (adj);
  gdouble value = gtk_adjustment_get_value (adj);

  if (value < lower + step / 2)
    return 0.0;
  return lower + step * (gint) ((value - lower) / step + 0.5);
}

/* A default-spin's option, within the option's range: rounded to the
 * steps (1.0 and 0.25), not a hair below or above them.  */
static gfloat
expert_value (GtkAdjustment     *adj,
              const bm3d_option *option)
{
  gdouble value = default_spin_option (adj);

  if (value == 0.0)
    return 0.0f;
  return (gfloat) CLAMP (value, option->min, option->max);
}

static void
advanced_changed (Dialog *d)
{
  Bm3dValues *v = d->values;

  v->search = (gint32) (default_spin_option (d->search_adj) + 0.5);
  v->lambda_3d = expert_value (d->lambda_adj, BM3D_VALUES_OPTION (LAMBDA_3D));
  v->chroma_scale = expert_value (d->chroma_adj,
                                  BM3D_VALUES_OPTION (CHROMA_SCALE));
  dialog_changed (d);
}

/* A combo of "Default" (0) and every value `option` takes: the powers
 * of two of a group size, each step.  */
static GtkWidget *
values_combo_new (const bm3d_option *option,
                  gint32            *value)
{
  GtkWidget *combo = gimp_int_combo_box_new (_("Default"), 0, NULL);
  gint       n;

  for (n = (gint) option->min; n <= option->max; n++)
    if (bm3d_option_accepts (option, n))
      {
        gchar *label = g_strdup_printf ("%d", n);

        gimp_int_combo_box_append (GIMP_INT_COMBO_BOX (combo),
                                   GIMP_INT_STORE_VALUE, n,
                                   GIMP_INT_STORE_LABEL, label, -1);
        g_free (label);
      }
  combo_bind (combo, value);
  return combo;
}

/* Shows `v`'s values in the widgets without a preview per widget; the
 * caller asks for one afterwards.  */
void
dialog_show_values (Dialog           *d,
                    const Bm3dValues *v)
{
  Bm3dValues copy = *v;

  d->updating = TRUE;
  gimp_int_combo_box_set_active (GIMP_INT_COMBO_BOX (d->noise_combo),
                                 copy.noise);
  gtk_adjustment_set_value (d->sigma_adj,
                            MAX (copy.sigma, SIGMA_ENTRY_MIN));
  gtk_adjustment_set_value (d->strength_adj, copy.strength);
  gtk_adjustment_set_value (d->chroma_strength_adj,
                            copy.chroma_strength);
  gimp_int_combo_box_set_active (GIMP_INT_COMBO_BOX (d->mode_combo),
                                 copy.mode);
  gimp_int_combo_box_set_active (GIMP_INT_COMBO_BOX (d->backend_combo),
                                 copy.backend);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (d->fast_toggle),
                                copy.fast_preview);
  gtk_adjustment_set_value (d->search_adj,
                            copy.search ? copy.search
                            : gtk_adjustment_get_lower (d->search_adj));
  gimp_int_combo_box_set_active (GIMP_INT_COMBO_BOX (d->group_hard_combo),
                                 copy.group_max_hard);
  gimp_int_combo_box_set_active (GIMP_INT_COMBO_BOX (d->group_wiener_combo),
                                 copy.group_max_wiener);
  gimp_int_combo_box_set_active (GIMP_INT_COMBO_BOX (d->step_combo),
                                 copy.step);
  gtk_adjustment_set_value (d->lambda_adj,
                            copy.lambda_3d != 0.0f ? copy.lambda_3d
                            : gtk_adjustment_get_lower (d->lambda_adj));
  gtk_adjustment_set_value (d->chroma_adj,
                            copy.chroma_scale != 0.0f ? copy.chroma_scale
                            : gtk_adjustment_get_lower (d->chroma_adj));
  d->updating = FALSE;
  /* The handlers rounded what they saw; the values are the source.  */
  *d->values = copy;
  dialog_advanced_sensitivity (d);
  dialog_noise_widgets_show (d);
}

static void
advanced_reset (GtkButton *button,
                Dialog    *d)
{
  Bm3dValues v = *d->values;

  (void) button;
  v.search = v.group_max_hard = v.group_max_wiener = v.step = 0;
  v.lambda_3d = v.chroma_scale = 0.0f;
  dialog_show_values (d, &v);
  dialog_changed (d);
}

/* GimpPreview's own check button, inside its controls.  */
static void
preview_toggle_tooltip (GimpPreview *preview)
{
  GtkWidget *controls = gimp_preview_get_controls (preview);
  GList     *children, *child;

  if (GTK_IS_TOGGLE_BUTTON (controls))
    children = g_list_prepend (NULL, controls);
  else if (GTK_IS_CONTAINER (controls))
    children = gtk_container_get_children (GTK_CONTAINER (controls));
  else
    return;
  for (child = children; child; child = child->next)
    if (GTK_IS_TOGGLE_BUTTON (child->data))
      gimp_help_set_help_data (child->data,
                               _("Show the denoised result in the preview; "
                                 "off shows the original."), NULL);
  g_list_free (children);
}

/* The status line keeps one size whatever it says: were it to grow, the
 * window would, and the preview with it, which would start a new
 * render of a bigger area.  */
static void
status_reserve_lines (GtkWidget *label,
                      gint       lines)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (label, "Xg");
  gint         height;

  pango_layout_set_attributes (layout,
                               gtk_label_get_attributes (GTK_LABEL (label)));
  pango_layout_get_pixel_size (layout, NULL, &height);
  g_object_unref (layout);
  gtk_widget_set_size_request (label, PREVIEW_SIZE, lines * height);
}

/* ---- building the dialog ----------------------------------------------- */

/* A spin button of an expert option of the engine's table, whose
 * lowest value, one `step` below the option's range, stands for
 * "Default" (0); it shows `value`.  */
static GtkAdjustment *
expert_adjustment_new (const bm3d_option *option,
                       gdouble            value,
                       gdouble            step,
                       gdouble            page)
{
  gdouble lower = option->min - step;

  return GTK_ADJUSTMENT (gtk_adjustment_new (value != 0.0 ? value : lower,
                                             lower, option->max, step, page,
                                             0));
}

/* A row of the expert table: label (with mnemonic) and widget.  */
static void
advanced_row (GtkWidget   *table,
              gint         row,
              const gchar *label,
              GtkWidget   *widget,
              const gchar *tooltip)
{
  dialog_grid_attach_labelled (table, row, label, widget, 1, TRUE);
  gimp_help_set_help_data (widget, tooltip, NULL);
}

/* An expert option shown as a spin button: its row of the engine's
 * table, its row in the expander, its steps and digits.  */
typedef struct
{
  bm3d_option_id  option;
  gint            row;
  const gchar    *label;      /* N_() */
  const gchar    *tooltip;    /* N_() */
  gdouble         step;
  gdouble         page;
  gint            digits;
} ExpertSpin;

/* The search window (odd sides only: snapped to steps of 2), λ3D and
 * the chroma scale.  */
static const ExpertSpin expert_spins[] =
{
  { BM3D_OPTION_SEARCH, 0, N_("_Search window:"),
    N_("Side in pixels of the square where similar patches are searched "
       "for, odd, 9 to 75 (default 39).  Larger finds more matches in "
       "repetitive texture and takes longer."), 2, 10, 0 },
  { BM3D_OPTION_LAMBDA_3D, 4, N_("Hard _threshold (λ3D):"),
    N_("The first phase removes 3D transform coefficients below this many "
       "sigmas, 1 to 5 (default 2.7, 2.8 above sigma 40).  Higher smooths "
       "more."), 0.1, 0.5, 1 },
  { BM3D_OPTION_CHROMA_SCALE, 5, N_("Chroma s_igma scale:"),
    N_("Colour images: the noise level of the two colour planes as a "
       "multiple of that of the luminance, 0.25 to 4 (default 1).  Raise "
       "it for blotchy colour noise."), 0.05, 0.25, 2 }
};

/* The spin button of `spin` on its row of `table`, showing `value`.  */
static GtkAdjustment *
expert_spin_new (Dialog           *d,
                 GtkWidget        *table,
                 const ExpertSpin *spin,
                 gdouble           value)
{
  GtkAdjustment *adj = expert_adjustment_new (&bm3d_options[spin->option],
                                              value, spin->step,
                                              spin->page);

  advanced_row (table, spin->row, _(spin->label),
                default_spin_new (adj, spin->digits),
                _(spin->tooltip));
  g_signal_connect_swapped (adj, "value-changed",
                            G_CALLBACK (advanced_changed), d);
  return adj;
}

static void
advanced_spins_new (Dialog    *d,
                    GtkWidget *table)
{
  Bm3dValues *v = d->values;

  d->search_adj = expert_spin_new (d, table, &expert_spins[0], v->search);
  d->lambda_adj = expert_spin_new (d, table, &expert_spins[1],
                                   v->lambda_3d);
  d->chroma_adj = expert_spin_new (d, table, &expert_spins[2],
                                   v->chroma_scale);
}

/* The group sizes and the step: combos of their allowed values.  */
static void
advanced_combos_new (Dialog    *d,
                     GtkWidget *table)
{
  Bm3dValues *v = d->values;

  d->group_hard_combo =
    values_combo_new (BM3D_VALUES_OPTION (GROUP_MAX_HARD),
                      &v->group_max_hard);
  advanced_row (table, 1, _("_Group size, first phase:"),
                d->group_hard_combo,
                _("Most patches stacked into one group in the "
                  "hard-threshold phase (default 16)."));
  g_signal_connect_swapped (d->group_hard_combo, "changed",
                            G_CALLBACK (dialog_changed), d);

  d->group_wiener_combo =
    values_combo_new (BM3D_VALUES_OPTION (GROUP_MAX_WIENER),
                      &v->group_max_wiener);
  advanced_row (table, 2, _("Group size, _Wiener phase:"),
                d->group_wiener_combo,
                _("Most patches stacked into one group in the Wiener "
                  "phase (default 32).  Not used by “first phase "
                  "only”."));
  g_signal_connect_swapped (d->group_wiener_combo, "changed",
                            G_CALLBACK (dialog_changed), d);

  d->step_combo = values_combo_new (BM3D_VALUES_OPTION (STEP), &v->step);
  advanced_row (table, 3, _("Reference s_tep:"), d->step_combo,
                _("Distance in pixels between reference patches, in both "
                  "phases (default 3).  1 is the slowest and finest."));
  g_signal_connect_swapped (d->step_combo, "changed",
                            G_CALLBACK (dialog_changed), d);
}

static GtkWidget *
advanced_new (Dialog *d)
{
  GtkWidget *expander;
  GtkWidget *table;
  GtkWidget *button;
  GtkWidget *hbox;

  expander = gtk_expander_new_with_mnemonic (_("_Advanced (BM3D)"));
  gimp_help_set_help_data (expander,
                           _("The BM3D parameters experts change.  "
                             "“Default” follows the published settings "
                             "for the noise level."), NULL);

  table = dialog_grid_new (7, 2);
  gtk_container_set_border_width (GTK_CONTAINER (table), 6);
  gtk_container_add (GTK_CONTAINER (expander), table);
  d->advanced = table;

  advanced_spins_new (d, table);
  advanced_combos_new (d, table);

  hbox = dialog_box_new (FALSE, 0);
  button = gtk_button_new_with_mnemonic (_("_Defaults"));
  gimp_help_set_help_data (button,
                           _("Set every option above back to its "
                             "default."), NULL);
  g_signal_connect (button, "clicked", G_CALLBACK (advanced_reset), d);
  gtk_box_pack_end (GTK_BOX (hbox), button, FALSE, FALSE, 0);
  dialog_grid_attach (table, hbox, 0, 6, 2, TRUE);

  return expander;
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
  combo_bind (d->noise_combo, &d->values->noise);
  g_signal_connect (d->noise_combo, "changed",
                    G_CALLBACK (dialog_noise_changed), d);
  dialog_grid_attach_labelled (table, 0, _("Noise t_ype:"), d->noise_combo,
                               2, FALSE);
  gimp_help_set_help_data (d->noise_combo,
                           _("Camera noise: the noise of this photograph, "
                             "measured on it (coarse grain and colour "
                             "blotches included) and removed as measured, "
                             "times the strengths.  White noise: fine, "
                             "even noise of one level (sigma), as in "
                             "synthetic tests and scans."), NULL);

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
  dialog_grid_attach (table, d->estimate_button, 3, 0, 1, FALSE);
}

/* A strength slider of the engine's table, logarithmic.  */
static GtkAdjustment *
strength_scale_new (GtkWidget         *table,
                    gint               row,
                    const gchar       *label,
                    const bm3d_option *option,
                    gdouble            value,
                    const gchar       *tooltip,
                    GtkWidget        **widgets)
{
  DialogScale scale = { label, option->min, option->max, option->max,
                        0.05, 0.25, STRENGTH_DIGITS, TRUE, tooltip };

  return dialog_scale_new (table, row, &scale, value, widgets);
}

/* The noise rows of the main table (rows 0 to 3): the noise model and
 * Estimate, sigma for white noise, the strengths for camera noise.  */
static void
noise_widgets_new (Dialog    *d,
                   GtkWidget *table)
{
  /* The entry takes up to the engine's largest sigma, the slider covers
   * everyday noise.  */
  DialogScale sigma = { _("_Noise level (sigma):"), SIGMA_ENTRY_MIN,
                        BM3D_VALUES_OPTION (SIGMA)->max, SIGMA_SLIDER_MAX,
                        0.5, 5.0, 1, FALSE,
                        _("How strong the noise is, on a 0 to 255 "
                          "scale: about 5 for a clean photograph, 15 to "
                          "25 for a high-ISO shot.  Too high smooths "
                          "real detail away.") };

  noise_combo_new (d, table);

  d->sigma_adj = dialog_scale_new (table, 1, &sigma, d->values->sigma,
                                   d->sigma_widgets);
  d->sigma_scale = d->sigma_widgets[1];
  d->sigma_spin = d->sigma_widgets[2];
  g_signal_connect (d->sigma_adj, "value-changed",
                    G_CALLBACK (dialog_sigma_changed), d);

  d->strength_adj =
    strength_scale_new (table, 2, _("S_trength:"),
                        BM3D_VALUES_OPTION (STRENGTH), d->values->strength,
                        _("How much of the measured camera noise to "
                          "remove: 1 removes it as measured, less keeps "
                          "more grain and fine detail, more smooths "
                          "harder."), d->strength_widgets);
  g_signal_connect (d->strength_adj, "value-changed",
                    G_CALLBACK (dialog_strength_changed), d);

  d->chroma_strength_adj =
    strength_scale_new (table, 3, _("C_hroma strength:"),
                        BM3D_VALUES_OPTION (CHROMA_STRENGTH),
                        d->values->chroma_strength,
                        _("The same for the colour noise alone, on top "
                          "of Strength: raise it for colour blotches "
                          "that remain, lower it to keep faint "
                          "colours."), d->chroma_strength_widgets);
  g_signal_connect (d->chroma_strength_adj, "value-changed",
                    G_CALLBACK (dialog_chroma_strength_changed), d);
}

static void
keep_editable_toggled (GtkToggleButton *toggle,
                       Dialog          *d)
{
  *d->keep_editable = gtk_toggle_button_get_active (toggle);
  dialog_log (d, "keep-editable value=%d", *d->keep_editable);
}

/* The Keep editable choice, when the caller offers it.  */
static void
keep_editable_new (Dialog    *d,
                   GtkWidget *table,
                   gint       row)
{
  GtkWidget *toggle;

  if (! d->keep_editable)
    return;
  toggle = gtk_check_button_new_with_mnemonic (_("_Keep editable"));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle),
                                *d->keep_editable);
  g_signal_connect (toggle, "toggled", G_CALLBACK (keep_editable_toggled),
                    d);
  d->keep_editable_toggle = toggle;
  gimp_help_set_help_data (toggle,
                           _("Add BM3D to the layer as a non-destructive "
                             "filter: it stays editable from the layer's "
                             "filter list, can be switched off and merged "
                             "later.  Off: the layer's pixels are changed "
                             "now."), NULL);
  dialog_grid_attach (table, toggle, 0, row, 4, TRUE);
}

/* Rows 4 to 6: the mode, the backend and the fast preview.  */
static void
run_widgets_new (Dialog    *d,
                 GtkWidget *table)
{
  d->mode_combo = choice_combo_new (BM3D_VALUES_OPTION (MODE),
                                           &d->values->mode);
  gimp_int_combo_box_set_sensitivity (GIMP_INT_COMBO_BOX (d->mode_combo),
                                      dialog_mode_sensitive, d, NULL);
  g_signal_connect (d->mode_combo, "changed",
                    G_CALLBACK (mode_changed), d);
  dialog_grid_attach_labelled (table, 4, _("_Mode:"), d->mode_combo, 2,
                               FALSE);
  gimp_help_set_help_data (d->mode_combo,
                           _("BM3D gives the best result in two phases; "
                             "its first phase alone is about twice as "
                             "fast and a little softer.  Non-local means "
                             "and isoline are faster still, where this "
                             "build has them."), NULL);

  d->backend_combo = choice_combo_new (BM3D_VALUES_OPTION (BACKEND),
                                              &d->values->backend);
  gimp_int_combo_box_set_sensitivity (GIMP_INT_COMBO_BOX (d->backend_combo),
                                      dialog_backend_sensitive, d, NULL);
  g_signal_connect (d->backend_combo, "changed",
                    G_CALLBACK (dialog_backend_changed), d);
  dialog_grid_attach_labelled (table, 5, _("_Backend:"), d->backend_combo,
                               2, FALSE);
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
                    G_CALLBACK (fast_toggled), d);
  gimp_help_set_help_data (d->fast_toggle,
                           _("While the noise level slider moves, preview "
                             "with the fastest mode available, and with "
                             "the chosen mode once it rests."), NULL);
  dialog_grid_attach (table, d->fast_toggle, 0, 6, 4, TRUE);
  keep_editable_new (d, table, 7);
}

/* The preview and its status on the left, the controls on the right:
 * with the expert options open the dialog still fits a laptop's
 * screen.  */
void
dialog_build (Dialog *d)
{
  GtkWidget *main_hbox;
  GtkWidget *preview_vbox;
  GtkWidget *controls_vbox;
  GtkWidget *table;

  dialog_toolkit_init ();
  /* No Help button and no F1: GIMP's manual has no page for a plug-in
   * of its own, and GIMP answered with an error that its help was
   * missing.  The tooltips and README.md are the help.  */
  d->window = gimp_dialog_new (_("BM3D Denoise"), PLUG_IN_ROLE,
                              NULL, 0, NULL, NULL,
                              _("_Reset"),  RESPONSE_RESET,
                              _("_Cancel"), GTK_RESPONSE_CANCEL,
                              _("_OK"),     GTK_RESPONSE_OK,
                              NULL);
  dialog_window_setup (d->window);

  main_hbox = dialog_box_new (FALSE, 12);
  gtk_container_set_border_width (GTK_CONTAINER (main_hbox), 12);
  gtk_box_pack_start (GTK_BOX (gtk_dialog_get_content_area
                               (GTK_DIALOG (d->window))),
                      main_hbox, TRUE, TRUE, 0);
  preview_vbox = dialog_box_new (TRUE, 12);
  gtk_box_pack_start (GTK_BOX (main_hbox), preview_vbox, TRUE, TRUE, 0);
  controls_vbox = dialog_box_new (TRUE, 12);
  gtk_box_pack_start (GTK_BOX (main_hbox), controls_vbox, FALSE, FALSE, 0);

  d->preview = dialog_preview_new (d->drawable);
  gtk_box_pack_start (GTK_BOX (preview_vbox), d->preview, TRUE, TRUE, 0);
  g_signal_connect_swapped (d->preview, "invalidated",
                            G_CALLBACK (dialog_preview_invalidated), d);
  preview_toggle_tooltip (GIMP_PREVIEW (d->preview));
  g_signal_connect (d->preview, "notify::update",
                    G_CALLBACK (dialog_preview_update_changed), d);

  d->status = gtk_label_new ("");
  gtk_label_set_line_wrap (GTK_LABEL (d->status), TRUE);
  dialog_label_align_top_left (d->status);
  gimp_label_set_attributes (GTK_LABEL (d->status),
                             PANGO_ATTR_SCALE, PANGO_SCALE_SMALL, -1);
  status_reserve_lines (d->status, STATUS_LINES);
  gtk_box_pack_start (GTK_BOX (preview_vbox), d->status, FALSE, FALSE, 0);

  table = dialog_grid_new (7, 4);
  gtk_box_pack_start (GTK_BOX (controls_vbox), table, FALSE, FALSE, 0);
  noise_widgets_new (d, table);
  run_widgets_new (d, table);

  gtk_box_pack_start (GTK_BOX (controls_vbox), advanced_new (d),
                      FALSE, FALSE, 0);
  dialog_advanced_sensitivity (d);
}
