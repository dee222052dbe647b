/* BM3D Denoise for GIMP — the batch's saves through GIMP 3's export
 * procedures (bm3d-save.h says which settings and why).
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
 * Unlike GIMP 2.10's, GIMP 3's export procedures take their metadata
 * choices as arguments whose defaults are off: gimp_file_save () wrote
 * no EXIF, no ICC profile and no comment.  Each call below passes GIMP's
 * export preferences (on unless the user turned them off) instead.
 */

#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include <libgimp/gimp.h>

#include "bm3d-save.h"

/* Where GIMP 3.0's TIFF loader leaves the file's compression (named
 * after the export procedure's name in GIMP 2.10).  */
#define TIFF_LOADED_PARASITE "GimpProcedureConfig-file-tiff-save-last"

/* Runs the export procedure `name` on `image` into `file`, with GIMP's
 * metadata preferences and the procedure's own arguments given after
 * `first_argument` (name, value pairs ending in NULL).  */
static gboolean
export_with (const gchar *name,
             GimpImage   *image,
             GFile       *file,
             const gchar *first_argument,
             ...)
{
  GimpProcedure       *procedure;
  GimpProcedureConfig *config;
  GimpValueArray      *values;
  va_list              arguments;
  gboolean             ok;

  procedure = gimp_pdb_lookup_procedure (gimp_get_pdb (), name);
  if (! procedure)
    return FALSE;
  config = gimp_procedure_create_config (procedure);
  g_object_set (config,
                "run-mode",              GIMP_RUN_NONINTERACTIVE,
                "image",                 image,
                "file",                  file,
                "include-exif",          gimp_export_exif (),
                "include-xmp",           gimp_export_xmp (),
                "include-iptc",          gimp_export_iptc (),
                "include-color-profile", gimp_export_color_profile (),
                "include-comment",       gimp_export_comment (),
                "include-thumbnail",     gimp_export_thumbnail (),
                NULL);
  va_start (arguments, first_argument);
  g_object_set_valist (G_OBJECT (config), first_argument, arguments);
  va_end (arguments);

  values = gimp_procedure_run_config (procedure, config);
  ok = GIMP_VALUES_GET_ENUM (values, 0) == GIMP_PDB_SUCCESS;
  gimp_value_array_unref (values);
  g_object_unref (config);
  return ok;
}

/* The JPEG plug-in's name for a sampling.  */
static const gchar *
sampling_nick (Bm3dSaveSampling sampling)
{
  switch (sampling)
    {
    case BM3D_SAVE_SAMPLING_2x2: return "sub-sampling-2x2";
    case BM3D_SAVE_SAMPLING_2x1: return "sub-sampling-2x1";
    case BM3D_SAVE_SAMPLING_1x2: return "sub-sampling-1x2";
    default:                     return "sub-sampling-1x1";
    }
}

/* At the input's quality and sampling; optimized Huffman tables, not
 * progressive (quicker to write and to read).  The comment is the
 * image's, which include-comment writes.  */
static gboolean
save_jpeg (GimpImage *image,
           GFile     *file)
{
  GimpParasite  *parasite = gimp_image_get_parasite (image, "jpeg-settings");
  gconstpointer  data = NULL;
  guint32        size = 0;
  Bm3dSaveJpeg   jpeg;

  if (parasite)
    data = gimp_parasite_get_data (parasite, &size);
  jpeg = bm3d_save_jpeg_of (data, size);
  gimp_parasite_free (parasite);
  return export_with ("file-jpeg-export", image, file,
                      "quality",      jpeg.quality / 100.0,
                      "sub-sampling", sampling_nick (jpeg.sampling),
                      "optimize",     TRUE,
                      "progressive",  FALSE,
                      NULL);
}

/* The input's compression, as GIMP 3's TIFF loader notes it: a parasite
 * holding "(compression N)", N the export procedure's choice number in
 * the order of its nicks; "none", as gimp_file_save () wrote, when there
 * is none.  */
static const gchar *
loaded_compression (GimpImage *image)
{
  static const gchar *nicks[] = { "none", "lzw", "packbits", "adobe_deflate",
                                  "jpeg", "ccittfax3", "ccittfax4" };
  GimpParasite  *parasite;
  gconstpointer  data;
  guint32        size = 0;
  gchar         *text;
  gint           n = 0;

  parasite = gimp_image_get_parasite (image, TIFF_LOADED_PARASITE);
  if (! parasite)
    return nicks[0];
  data = gimp_parasite_get_data (parasite, &size);
  text = g_strndup (data, size);
  gimp_parasite_free (parasite);
  if (sscanf (text, " (compression %d)", &n) != 1
      || n < 0 || n >= (gint) G_N_ELEMENTS (nicks))
    n = 0;
  g_free (text);
  return nicks[n];
}

/* With the input's compression.  */
static gboolean
save_tiff (GimpImage *image,
           GFile     *file)
{
  return export_with ("file-tiff-export", image, file,
                      "compression", loaded_compression (image), NULL);
}

gboolean
bm3d_save_export (Bm3dImage     image,
                  Bm3dDrawable  drawable,
                  const gchar  *filename,
                  gint          png_level)
{
  GFile    *file = g_file_new_for_path (filename);
  gboolean  saved;

  switch (bm3d_save_format_of (filename))
    {
    case BM3D_SAVE_PNG:
      saved = export_with ("file-png-export", image, file,
                           "compression", png_level, NULL);
      break;
    case BM3D_SAVE_JPEG:
      saved = save_jpeg (image, file);
      break;
    case BM3D_SAVE_TIFF:
      saved = save_tiff (image, file);
      break;
    default:
      saved = gimp_file_save (GIMP_RUN_NONINTERACTIVE, image, file, NULL);
      break;
    }
  g_object_unref (file);
  return saved;
}
