/* BM3D Denoise for GIMP — the dialog's toolkit calls on GTK 2 (GIMP 2.10):
 * what GTK and libgimpui write differently there.  The widgets
 * themselves are built once, in bm3d-dialog-widgets.c.
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

#include "bm3d-dialog-private.h"

void
dialog_toolkit_init (void)
{
  gimp_ui_init (PLUG_IN_BINARY, FALSE);
}

void
dialog_window_setup (GtkWidget *window)
{
  gtk_dialog_set_alternative_button_order (GTK_DIALOG (window),
                                           RESPONSE_RESET,
                                           GTK_RESPONSE_OK,
                                           GTK_RESPONSE_CANCEL,
                                           -1);
  gimp_window_set_transient (GTK_WINDOW (window));
}

GtkWidget *
dialog_box_new (gboolean vertical,
                gint     spacing)
{
  return vertical ? gtk_vbox_new (FALSE, spacing)
                  : gtk_hbox_new (FALSE, spacing);
}

GtkWidget *
dialog_grid_new (gint rows,
                 gint columns)
{
  GtkWidget *table = gtk_table_new (rows, columns, FALSE);

  gtk_table_set_col_spacings (GTK_TABLE (table), 6);
  gtk_table_set_row_spacings (GTK_TABLE (table), 6);
  return table;
}

void
dialog_grid_attach (GtkWidget *grid,
                    GtkWidget *widget,
                    gint       column,
                    gint       row,
                    gint       width,
                    gboolean   fill)
{
  gtk_table_attach (GTK_TABLE (grid), widget, column, column + width,
                    row, row + 1, GTK_FILL, fill ? GTK_FILL : GTK_SHRINK,
                    0, 0);
}

void
dialog_grid_attach_labelled (GtkWidget   *grid,
                             gint         row,
                             const gchar *label,
                             GtkWidget   *widget,
                             gint         width,
                             gboolean     expand)
{
  gimp_table_attach_aligned (GTK_TABLE (grid), 0, row, label, 0.0, 0.5,
                             widget, width, expand);
}

GtkAdjustment *
dialog_scale_new (GtkWidget         *grid,
                  gint               row,
                  const DialogScale *scale,
                  gdouble            value,
                  GtkWidget        **widgets)
{
  gboolean   constrain = scale->slider_upper >= scale->upper;
  GtkObject *adj;

  adj = gimp_scale_entry_new (GTK_TABLE (grid), 0, row, scale->label,
                              SCALE_WIDTH, SPIN_WIDTH, value, scale->lower,
                              scale->slider_upper, scale->step, scale->page,
                              scale->digits, constrain,
                              constrain ? 0 : scale->lower,
                              constrain ? 0 : scale->upper,
                              scale->tooltip, NULL);
  if (scale->logarithmic)
    gimp_scale_entry_set_logarithmic (adj, TRUE);
  widgets[0] = GIMP_SCALE_ENTRY_LABEL (adj);
  widgets[1] = GIMP_SCALE_ENTRY_SCALE (adj);
  widgets[2] = GIMP_SCALE_ENTRY_SPINBUTTON (adj);
  return GTK_ADJUSTMENT (adj);
}

GtkWidget *
dialog_preview_new (Bm3dDrawable drawable)
{
  GtkWidget *preview;

  /* GimpPreview sizes its area from the "size" style property.  */
  gtk_rc_parse_string ("style \"bm3d-denoise-preview\"\n"
                       "{ GimpPreview::size = " G_STRINGIFY (PREVIEW_SIZE)
                       " }\n"
                       "widget \"*.bm3d-denoise-preview\" "
                       "style : highest \"bm3d-denoise-preview\"\n");
  preview = gimp_drawable_preview_new_from_drawable_id (drawable);
  gtk_widget_set_name (preview, "bm3d-denoise-preview");
  return preview;
}

void
dialog_label_align_top_left (GtkWidget *label)
{
  gtk_misc_set_alignment (GTK_MISC (label), 0.0, 0.0);
}
