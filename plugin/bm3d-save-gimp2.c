/* BM3D Denoise for GIMP — the batch's saves through GIMP 2.10's export
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
 */

#include "config.h"

#include <string.h>

#include <libgimp/gimp.h>

#include "bm3d-save.h"

/* file-png-save2's arguments after the file names: interlace,
 * compression, bkgd, gama, offs, phys, time, comment, svtrns.  */
#define PNG_OPTIONS  9

/* TRUE when a PDB call succeeded; frees its return values.  */
static gboolean
succeeded (GimpParam *values,
           gint       n_values)
{
  gboolean ok = n_values > 0
                && values[0].data.d_status == GIMP_PDB_SUCCESS;

  gimp_destroy_params (values, n_values);
  return ok;
}

/* GIMP's PNG defaults (the user's, when saved with file-png-set-defaults)
 * with the zlib level replaced.  */
static gboolean
save_png (gint32       image,
          gint32       drawable,
          const gchar *filename,
          gint         png_level)
{
  /* GIMP 2.10's own defaults, should file-png-get-defaults fail.  */
  gint32     options[PNG_OPTIONS] = { 0, 9, 1, 0, 0, 1, 1, 1, 1 };
  GimpParam *values;
  gint       n_values;
  gint       i;

  values = gimp_run_procedure ("file-png-get-defaults", &n_values,
                               GIMP_PDB_END);
  if (n_values == PNG_OPTIONS + 1
      && values[0].data.d_status == GIMP_PDB_SUCCESS)
    for (i = 0; i < PNG_OPTIONS; i++)
      options[i] = values[i + 1].data.d_int32;
  gimp_destroy_params (values, n_values);
  options[1] = png_level;

  values = gimp_run_procedure ("file-png-save2", &n_values,
                               GIMP_PDB_INT32, GIMP_RUN_NONINTERACTIVE,
                               GIMP_PDB_IMAGE, image,
                               GIMP_PDB_DRAWABLE, drawable,
                               GIMP_PDB_STRING, filename,
                               GIMP_PDB_STRING, filename,
                               GIMP_PDB_INT32, options[0],
                               GIMP_PDB_INT32, options[1],
                               GIMP_PDB_INT32, options[2],
                               GIMP_PDB_INT32, options[3],
                               GIMP_PDB_INT32, options[4],
                               GIMP_PDB_INT32, options[5],
                               GIMP_PDB_INT32, options[6],
                               GIMP_PDB_INT32, options[7],
                               GIMP_PDB_INT32, options[8],
                               GIMP_PDB_END);
  return succeeded (values, n_values);
}

/* The image's comment (a gimp-comment parasite), "" when none.  */
static gchar *
image_comment (gint32 image)
{
  GimpParasite *parasite = gimp_image_get_parasite (image, "gimp-comment");
  gchar        *comment;

  if (! parasite)
    return g_strdup ("");
  comment = g_strndup (gimp_parasite_data (parasite),
                       gimp_parasite_data_size (parasite));
  gimp_parasite_free (parasite);
  return comment;
}

/* At the input's quality and sampling; optimized Huffman tables, not
 * progressive (quicker to write and to read).  EXIF and the ICC profile
 * follow GIMP's export preferences, which keep them.  */
static gboolean
save_jpeg (gint32       image,
           gint32       drawable,
           const gchar *filename)
{
  GimpParasite *parasite = gimp_image_get_parasite (image, "jpeg-settings");
  Bm3dSaveJpeg  jpeg;
  gchar        *comment = image_comment (image);
  GimpParam    *values;
  gint          n_values;

  jpeg = bm3d_save_jpeg_of (parasite ? gimp_parasite_data (parasite) : NULL,
                            parasite ? gimp_parasite_data_size (parasite)
                                     : 0);
  gimp_parasite_free (parasite);
  values = gimp_run_procedure ("file-jpeg-save", &n_values,
                               GIMP_PDB_INT32, GIMP_RUN_NONINTERACTIVE,
                               GIMP_PDB_IMAGE, image,
                               GIMP_PDB_DRAWABLE, drawable,
                               GIMP_PDB_STRING, filename,
                               GIMP_PDB_STRING, filename,
                               GIMP_PDB_FLOAT, jpeg.quality / 100.0,
                               GIMP_PDB_FLOAT, 0.0,       /* smoothing */
                               GIMP_PDB_INT32, TRUE,      /* optimize */
                               GIMP_PDB_INT32, FALSE,     /* progressive */
                               GIMP_PDB_STRING, comment,
                               GIMP_PDB_INT32, (gint32) jpeg.sampling,
                               GIMP_PDB_INT32, TRUE,      /* baseline */
                               GIMP_PDB_INT32, 0,         /* restart */
                               GIMP_PDB_INT32, 0,         /* integer DCT */
                               GIMP_PDB_END);
  g_free (comment);
  return succeeded (values, n_values);
}

/* file-tiff-save2's number for libtiff's Compression value; LZW for a
 * compression GIMP does not write.  */
static gint32
tiff_choice (gint compression)
{
  switch (compression)
    {
    case 1:     return 0;   /* none */
    case 5:     return 1;   /* LZW */
    case 32773: return 2;   /* PackBits */
    case 8:
    case 32946: return 3;   /* Deflate */
    case 7:     return 4;   /* JPEG */
    case 3:     return 5;   /* CCITT G3 */
    case 4:     return 6;   /* CCITT G4 */
    default:    return 1;
    }
}

/* The input's compression (libtiff's value of the Compression tag), the
 * first member of the tiff-save-options parasite GIMP's loader leaves;
 * 1 (none, as gimp_file_save () wrote) when there is none.  */
static gint
loaded_compression (gint32 image)
{
  GimpParasite *parasite = gimp_image_get_parasite (image,
                                                    "tiff-save-options");
  gint          compression = 1;

  if (parasite
      && (gsize) gimp_parasite_data_size (parasite) >= sizeof compression)
    memcpy (&compression, gimp_parasite_data (parasite), sizeof compression);
  gimp_parasite_free (parasite);
  return compression;
}

/* With the input's compression.  GIMP 2.10's TIFF plug-in takes its
 * file as a URI.  */
static gboolean
save_tiff (gint32       image,
           gint32       drawable,
           const gchar *filename)
{
  gchar     *uri = g_filename_to_uri (filename, NULL, NULL);
  GimpParam *values;
  gint       n_values;

  if (! uri)
    return FALSE;
  values = gimp_run_procedure ("file-tiff-save2", &n_values,
                               GIMP_PDB_INT32, GIMP_RUN_NONINTERACTIVE,
                               GIMP_PDB_IMAGE, image,
                               GIMP_PDB_DRAWABLE, drawable,
                               GIMP_PDB_STRING, uri,
                               GIMP_PDB_STRING, uri,
                               GIMP_PDB_INT32,
                               tiff_choice (loaded_compression (image)),
                               GIMP_PDB_INT32, TRUE, /* save-transp-pixels */
                               GIMP_PDB_END);
  g_free (uri);
  return succeeded (values, n_values);
}

gboolean
bm3d_save_export (Bm3dImage     image,
                  Bm3dDrawable  drawable,
                  const gchar  *filename,
                  gint          png_level)
{
  switch (bm3d_save_format_of (filename))
    {
    case BM3D_SAVE_PNG:
      return save_png (image, drawable, filename, png_level);
    case BM3D_SAVE_JPEG:
      return save_jpeg (image, drawable, filename);
    case BM3D_SAVE_TIFF:
      return save_tiff (image, drawable, filename);
    default:
      return gimp_file_save (GIMP_RUN_NONINTERACTIVE, image, drawable,
                             filename, filename);
    }
}
