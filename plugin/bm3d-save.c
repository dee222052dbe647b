/* BM3D Denoise for GIMP — the batch's save settings, whichever GIMP: the
 * format of a name, what the loaders' parasites say, the PNG level.
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

#include <stdlib.h>
#include <string.h>

#include <libgimp/gimp.h>

#include "bm3d-intl.h"
#include "bm3d-save.h"

Bm3dSaveFormat
bm3d_save_format_of (const gchar *filename)
{
  static const struct
  {
    const gchar    *extension;
    Bm3dSaveFormat  format;
  } known[] =
  {
    { ".png",  BM3D_SAVE_PNG },
    { ".jpg",  BM3D_SAVE_JPEG },
    { ".jpeg", BM3D_SAVE_JPEG },
    { ".jpe",  BM3D_SAVE_JPEG },
    { ".tif",  BM3D_SAVE_TIFF },
    { ".tiff", BM3D_SAVE_TIFF }
  };
  const gchar *dot = strrchr (filename, '.');
  guint        i;

  for (i = 0; dot && i < G_N_ELEMENTS (known); i++)
    if (g_ascii_strcasecmp (dot, known[i].extension) == 0)
      return known[i].format;
  return BM3D_SAVE_OTHER;
}

/* The sampling of a YCbCr JPEG whose chroma components are 1x1 from its
 * luma's factors; 4:4:4 for anything else.  */
static Bm3dSaveSampling
sampling_of (guint h,
             guint v)
{
  if (h == 2 && v == 2)
    return BM3D_SAVE_SAMPLING_2x2;
  if (h == 2 && v == 1)
    return BM3D_SAVE_SAMPLING_2x1;
  if (h == 1 && v == 2)
    return BM3D_SAVE_SAMPLING_1x2;
  return BM3D_SAVE_SAMPLING_1x1;
}

Bm3dSaveJpeg
bm3d_save_jpeg_of (const guint8 *data,
                   gsize         size)
{
  Bm3dSaveJpeg jpeg = { BM3D_SAVE_JPEG_QUALITY, BM3D_SAVE_SAMPLING_1x1 };

  /* GIMP's loader stores the quality's magnitude (negative when its
   * estimate was approximate) and 0 when it found none.  */
  if (data && size >= 2 && data[1] >= 1 && data[1] <= 100)
    jpeg.quality = data[1];
  if (data && size >= 10 && data[2] == 3
      && data[6] == 1 && data[7] == 1 && data[8] == 1 && data[9] == 1)
    jpeg.sampling = sampling_of (data[4], data[5]);
  return jpeg;
}

/* The level a gimprc setting names, or -1 when it names none.  */
static gint
level_of_setting (const gchar *value)
{
  gchar  *end;
  glong   level;

  level = strtol (value, &end, 10);
  if (end == value || *end != '\0' || level < 0
      || level > BM3D_SAVE_PNG_LEVEL_MAX)
    return -1;
  return (gint) level;
}

gint
bm3d_save_png_level (gint argument)
{
  gchar *value;
  gint   level;

  if (argument >= 0 && argument <= BM3D_SAVE_PNG_LEVEL_MAX)
    return argument;
  /* An absent setting is no error: gimp_gimprc_query () fails quietly
   * under the plug-in's own PDB error handler.  */
  value = gimp_gimprc_query (BM3D_SAVE_PNG_LEVEL_SETTING);
  if (! value)
    return BM3D_SAVE_PNG_LEVEL_DEFAULT;
  level = level_of_setting (g_strstrip (value));
  if (level < 0)
    {
      gchar *line = g_strdup_printf (_("BM3D batch: the gimprc setting "
                                       "%s is \"%s\", not a zlib level "
                                       "0..9; PNG files are written at "
                                       "the default level"),
                                     BM3D_SAVE_PNG_LEVEL_SETTING, value);

      g_strdelimit (line, "\r\n", ' ');
      gimp_message (line);
      g_free (line);
      level = BM3D_SAVE_PNG_LEVEL_DEFAULT;
    }
  g_free (value);
  return level;
}

gboolean
bm3d_save_result (Bm3dImage     image,
                  Bm3dDrawable  drawable,
                  const gchar  *filename,
                  gint          png_level,
                  GError      **error)
{
  gboolean exported;

  if (bm3d_save_format_of (filename) == BM3D_SAVE_PNG)
    {
      GError *failure = NULL;

      if (bm3d_save_png_own (image, drawable, filename,
                             png_level >= 0 ? png_level
                                            : BM3D_SAVE_PNG_LEVEL_OWN,
                             &failure))
        return TRUE;
      if (failure)
        {
          g_propagate_error (error, failure);
          return FALSE;
        }
      if (png_level < 0)
        png_level = BM3D_SAVE_PNG_LEVEL_EXPORT;
    }
  exported = bm3d_save_export (image, drawable, filename, png_level);
  if (! exported)
    g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                         bm3d_pdb_error ());
  return exported;
}
