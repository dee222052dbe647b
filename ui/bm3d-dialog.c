/* BM3D Denoise for GIMP — the dialog: noise level, mode, backend and a
 * preview rendered by the same code as the final run.
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
#include "bm3d-values.h"
#include "bm3d-dialog.h"

#define SCALE_WIDTH      200
#define SPIN_WIDTH       6
/* The slider covers everyday noise; the entry accepts up to 255.  */
#define SIGMA_SLIDER_MAX 100.0
#define SIGMA_ENTRY_MIN  0.1

typedef struct
{
  gint32           drawable_id;
  Bm3dValues      *values;
  Bm3dPreviewFunc  render;
  GtkWidget       *status;   /* why the preview is empty, if it is */
} DialogState;


static void
preview_invalidated (GimpPreview *preview,
                     DialogState *state)
{
  gchar *problem = state->render (state->drawable_id, state->values,
                                  preview);

  gtk_label_set_text (GTK_LABEL (state->status), problem ? problem : "");
  g_free (problem);
}

/* A combo of the choices 0..count-1, labelled by `label`, bound to
 * `value`; every change refreshes the preview.  */
static GtkWidget *
choice_combo_new (const gchar *(*label) (gint32),
                  gint           count,
                  gint32        *value,
                  GimpPreview   *preview)
{
  GtkWidget *combo = gimp_int_combo_box_new (label (0), 0, NULL);
  gint       i;

  for (i = 1; i < count; i++)
    gimp_int_combo_box_append (GIMP_INT_COMBO_BOX (combo),
                               GIMP_INT_STORE_VALUE, i,
                               GIMP_INT_STORE_LABEL, label (i),
                               -1);
  gimp_int_combo_box_connect (GIMP_INT_COMBO_BOX (combo), *value,
                              G_CALLBACK (gimp_int_combo_box_get_active),
                              value);
  g_signal_connect_swapped (combo, "changed",
                            G_CALLBACK (gimp_preview_invalidate), preview);
  return combo;
}

gboolean
bm3d_dialog_run (gint32           drawable_id,
                 Bm3dValues      *values,
                 Bm3dPreviewFunc  render)
{
  DialogState  state = { drawable_id, values, render, NULL };
  GtkWidget   *dialog;
  GtkWidget   *main_vbox;
  GtkWidget   *preview;
  GtkWidget   *table;
  GtkWidget   *combo;
  GtkObject   *adj;
  gboolean     run;

  gimp_ui_init (PLUG_IN_BINARY, FALSE);

  dialog = gimp_dialog_new (_("BM3D Denoise"), PLUG_IN_ROLE,
                            NULL, 0,
                            gimp_standard_help_func, PLUG_IN_PROC,
                            _("_Cancel"), GTK_RESPONSE_CANCEL,
                            _("_OK"),     GTK_RESPONSE_OK,
                            NULL);
  gtk_dialog_set_alternative_button_order (GTK_DIALOG (dialog),
                                           GTK_RESPONSE_OK,
                                           GTK_RESPONSE_CANCEL,
                                           -1);
  gimp_window_set_transient (GTK_WINDOW (dialog));

  main_vbox = gtk_vbox_new (FALSE, 12);
  gtk_container_set_border_width (GTK_CONTAINER (main_vbox), 12);
  gtk_box_pack_start (GTK_BOX (gtk_dialog_get_content_area
                               (GTK_DIALOG (dialog))),
                      main_vbox, TRUE, TRUE, 0);

  preview = gimp_drawable_preview_new_from_drawable_id (drawable_id);
  gtk_box_pack_start (GTK_BOX (main_vbox), preview, TRUE, TRUE, 0);
  g_signal_connect (preview, "invalidated",
                    G_CALLBACK (preview_invalidated), &state);

  state.status = gtk_label_new ("");
  gtk_label_set_line_wrap (GTK_LABEL (state.status), TRUE);
  gtk_misc_set_alignment (GTK_MISC (state.status), 0.0, 0.5);
  gtk_box_pack_start (GTK_BOX (main_vbox), state.status, FALSE, FALSE, 0);

  table = gtk_table_new (3, 3, FALSE);
  gtk_table_set_col_spacings (GTK_TABLE (table), 6);
  gtk_table_set_row_spacings (GTK_TABLE (table), 6);
  gtk_box_pack_start (GTK_BOX (main_vbox), table, FALSE, FALSE, 0);

  adj = gimp_scale_entry_new (GTK_TABLE (table), 0, 0,
                              _("_Noise level (sigma):"),
                              SCALE_WIDTH, SPIN_WIDTH,
                              values->sigma, SIGMA_ENTRY_MIN,
                              SIGMA_SLIDER_MAX, 0.5, 5.0, 1,
                              FALSE, SIGMA_ENTRY_MIN, BM3D_VALUES_SIGMA_MAX,
                              _("How strong the noise is, on a 0 to 255 "
                                "scale: about 5 for a clean photograph, "
                                "15 to 25 for a high-ISO shot.  Too high "
                                "smooths real detail away."),
                              NULL);
  g_signal_connect (adj, "value-changed",
                    G_CALLBACK (gimp_double_adjustment_update),
                    &values->sigma);
  g_signal_connect_swapped (adj, "value-changed",
                            G_CALLBACK (gimp_preview_invalidate), preview);

  combo = choice_combo_new (bm3d_values_mode_label,
                            BM3D_VALUES_MODE_MAX + 1, &values->mode,
                            GIMP_PREVIEW (preview));
  gimp_table_attach_aligned (GTK_TABLE (table), 0, 1, _("_Mode:"),
                             0.0, 0.5, combo, 2, FALSE);

  combo = choice_combo_new (bm3d_values_backend_label,
                            BM3D_VALUES_BACKEND_MAX + 1, &values->backend,
                            GIMP_PREVIEW (preview));
  gimp_table_attach_aligned (GTK_TABLE (table), 0, 2, _("_Backend:"),
                             0.0, 0.5, combo, 2, FALSE);

  gtk_widget_show_all (dialog);

  run = (gimp_dialog_run (GIMP_DIALOG (dialog)) == GTK_RESPONSE_OK);

  gtk_widget_destroy (dialog);
  return run;
}
