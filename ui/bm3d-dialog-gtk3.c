/* BM3D Denoise for GIMP — the dialog's toolkit calls on GTK 3 (GIMP 3):
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
  gimp_ui_init (PLUG_IN_BINARY);
}

/* Over the window GIMP shows progress in.  gimp-console has none, and
 * gimp_window_set_transient () then fails an assertion: skip it.  */
void
dialog_window_setup (GtkWidget *window)
{
  GBytes *handle = gimp_progress_get_window_handle ();

  gimp_dialog_set_alternative_button_order (GTK_DIALOG (window),
                                            RESPONSE_RESET,
                                            GTK_RESPONSE_OK,
                                            GTK_RESPONSE_CANCEL,
                                            -1);
  if (handle && g_bytes_get_size (handle) > 0)
    gimp_window_set_transient_for (GTK_WINDOW (window), handle);
  if (handle)
    g_bytes_unref (handle);
}

GtkWidget *
dialog_box_new (gboolean vertical,
                gint     spacing)
{
  return gtk_box_new (vertical ? GTK_ORIENTATION_VERTICAL
                               : GTK_ORIENTATION_HORIZONTAL, spacing);
}

GtkWidget *
dialog_grid_new (gint rows,
                 gint columns)
{
  GtkWidget *grid = gtk_grid_new ();

  (void) rows;
  (void) columns;
  gtk_grid_set_column_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  return grid;
}

void
dialog_grid_attach (GtkWidget *grid,
                    GtkWidget *widget,
                    gint       column,
                    gint       row,
                    gint       width,
                    gboolean   fill)
{
  if (! fill)
    gtk_widget_set_valign (widget, GTK_ALIGN_CENTER);
  gtk_grid_attach (GTK_GRID (grid), widget, column, row, width, 1);
}

void
dialog_grid_attach_labelled (GtkWidget   *grid,
                             gint         row,
                             const gchar *label,
                             GtkWidget   *widget,
                             gint         width,
                             gboolean     expand)
{
  gimp_grid_attach_aligned (GTK_GRID (grid), 0, row, label, 0.0, 0.5,
                            widget, width);
  if (expand)
    gtk_widget_set_hexpand (widget, TRUE);
}

GtkAdjustment *
dialog_scale_new (GtkWidget         *grid,
                  gint               row,
                  const DialogScale *scale,
                  gdouble            value,
                  GtkWidget        **widgets)
{
  GtkWidget *entry;

  entry = gimp_scale_entry_new (scale->label, value, scale->lower,
                                scale->upper, scale->digits);
  if (scale->slider_upper < scale->upper)
    gimp_scale_entry_set_bounds (GIMP_SCALE_ENTRY (entry), scale->lower,
                                 scale->slider_upper, FALSE);
  gimp_label_spin_set_increments (GIMP_LABEL_SPIN (entry), scale->step,
                                  scale->page);
  if (scale->logarithmic)
    gimp_scale_entry_set_logarithmic (GIMP_SCALE_ENTRY (entry), TRUE);
  gimp_help_set_help_data (entry, scale->tooltip, NULL);
  gtk_widget_set_size_request (gimp_scale_entry_get_range
                               (GIMP_SCALE_ENTRY (entry)), SCALE_WIDTH, -1);
  gtk_grid_attach (GTK_GRID (grid), entry, 0, row, 3, 1);
  widgets[0] = entry;
  widgets[1] = gimp_scale_entry_get_range (GIMP_SCALE_ENTRY (entry));
  widgets[2] = gimp_label_spin_get_spin_button (GIMP_LABEL_SPIN (entry));
  return gtk_spin_button_get_adjustment (GTK_SPIN_BUTTON (widgets[2]));
}

/* GimpPreview sizes its area from its "size" style property, which GTK 3
 * reads from CSS.  */
GtkWidget *
dialog_preview_new (Bm3dDrawable drawable)
{
  GtkWidget      *preview = gimp_drawable_preview_new_from_drawable (drawable);
  GtkCssProvider *css = gtk_css_provider_new ();

  gtk_css_provider_load_from_data (css,
                                   "* { -GimpPreview-size: "
                                   G_STRINGIFY (PREVIEW_SIZE) "; }",
                                   -1, NULL);
  gtk_style_context_add_provider (gtk_widget_get_style_context (preview),
                                  GTK_STYLE_PROVIDER (css),
                                  GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_unref (css);
  return preview;
}

void
dialog_label_align_top_left (GtkWidget *label)
{
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_yalign (GTK_LABEL (label), 0.0);
}
