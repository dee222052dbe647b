/* BM3D Denoise for GIMP — GIMP 3's "Keep editable": the procedure's
 * settings as the GEGL operation bm3d:denoise, a non-destructive filter
 * on the layer, instead of changed pixels.
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
 *
 * Whether GIMP has the operation is asked of this process's GEGL: it
 * reads the same module folders as GIMP's own (the user's
 * gegl-0.4/plug-ins and GEGL's), so the answers agree.
 */

#include "config.h"

#include <string.h>

#include <libgimp/gimp.h>

#include "bm3d-intl.h"
#include "bm3d-values.h"
#include "bm3d-filter.h"

#define BM3D_FILTER_ERROR (g_quark_from_static_string ("bm3d-filter-error"))

void
bm3d_filter_add_arguments (GimpProcedure *procedure)
{
  gimp_procedure_add_boolean_argument (procedure, "keep-editable",
    _("Keep editable"),
    _("Add BM3D to the layer as a non-destructive filter (the GEGL "
      "operation bm3d:denoise, which must be installed) instead of "
      "changing its pixels: it is saved in the XCF and can be edited, "
      "switched off or merged later.  The filter has the main settings; "
      "the expert options stay at their defaults there"),
    FALSE, G_PARAM_READWRITE);
  gimp_procedure_add_boolean_aux_argument (procedure, "keep-editable-dialog",
    _("Keep editable (dialog)"),
    _("The dialog's Keep editable choice, on until the user turns it off"),
    TRUE, G_PARAM_READWRITE);
}

gboolean
bm3d_filter_offer (GimpProcedureConfig *config,
                   gboolean            *keep_editable)
{
  gboolean available = gegl_has_operation (BM3D_GEGL_OP);
  gboolean last = TRUE;

  g_object_get (config, "keep-editable-dialog", &last, NULL);
  *keep_editable = last && available;
  return available;
}

void
bm3d_filter_to_config (gboolean             keep_editable,
                       GimpProcedureConfig *config)
{
  g_object_set (config, "keep-editable", keep_editable, NULL);
  /* Not offered: the last choice stands for when it is again.  */
  if (gegl_has_operation (BM3D_GEGL_OP))
    g_object_set (config, "keep-editable-dialog", keep_editable, NULL);
}

/* The operation's choice property `name` set to `value` (its number,
 * as bm3d-values.h and the operation's enums count), whichever way
 * libgimp hands a GEGL enum to a plug-in: as the enum, or as a
 * GimpChoice of the enum's nicks, whose ids are the same numbers.  */
static void
filter_set_choice (GObject     *config,
                   const gchar *name,
                   gint         value)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
                                                    (config), name);

  if (G_IS_PARAM_SPEC_ENUM (pspec))
    g_object_set (config, name, value, NULL);
  else if (GIMP_IS_PARAM_SPEC_CHOICE (pspec))
    {
      GimpChoice *choice = gimp_param_spec_choice_get_choice (pspec);
      GList      *nicks = gimp_choice_list_nicks (choice);
      GList      *l;

      for (l = nicks; l; l = l->next)
        if (gimp_choice_get_id (choice, l->data) == value)
          {
            g_object_set (config, name, l->data, NULL);
            break;
          }
    }
}

gboolean
bm3d_filter_attach (GimpDrawable      *drawable,
                    const Bm3dValues  *vals,
                    GError           **error)
{
  GimpDrawableFilter *filter = NULL;
  GimpImage          *image;
  GObject            *config;

  if (gegl_has_operation (BM3D_GEGL_OP))
    filter = gimp_drawable_filter_new (drawable, BM3D_GEGL_OP,
                                       _("BM3D Denoise"));
  if (! filter)
    {
      g_set_error (error, BM3D_FILTER_ERROR, 0,
                   _("Keep editable needs the GEGL operation %s, which is "
                     "not installed (make install-user puts it into "
                     "~/.local/share/gegl-0.4/plug-ins); turn Keep "
                     "editable off to change the pixels instead"),
                   BM3D_GEGL_OP);
      return FALSE;
    }
  /* One Edit > Undo takes the whole filter away, however many steps
   * GIMP records for the calls below.  */
  image = gimp_item_get_image (GIMP_ITEM (drawable));
  gimp_image_undo_group_start (image);
  config = G_OBJECT (gimp_drawable_filter_get_config (filter));
  filter_set_choice (config, "noise", vals->noise);
  filter_set_choice (config, "mode", vals->mode);
  filter_set_choice (config, "backend", vals->backend);
  g_object_set (config,
                "sigma", vals->sigma,
                "strength", (gdouble) vals->strength,
                "chroma-strength", (gdouble) vals->chroma_strength,
                NULL);
  gimp_drawable_filter_update (filter);
  gimp_drawable_append_filter (drawable, filter);
  gimp_image_undo_group_end (image);
  return TRUE;
}
