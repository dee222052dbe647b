/* BM3D Denoise for GIMP — the batch's PNG results written by the
 * project's own PNG writer (imageio/), whichever GIMP.
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
 * Why: GIMP's PNG export deflates on one core, through libpng's
 * adaptive filters, in a plug-in process of its own that reads the
 * image back from GIMP; then exiv2 rewrites the file to add the
 * metadata.  For a 12 MP photo that is about 1.3 s at level 3 on the
 * idle 2-core machine, more than the goal of 1 s a photo beyond the
 * engine for the whole batch.  The command's writer deflates slices of
 * rows on every core (0.3 s), and its files are smaller.
 *
 * What GIMP's PNG export would write, taken from the image as it does:
 * the layer's own samples (8 or 16 bits, gray or RGB, with or without
 * alpha, the colours of transparent pixels kept), the image's colour
 * profile (its effective one: GIMP writes its built-in sRGB for an image
 * without one), EXIF and XMP from gimp_image_metadata_save_prepare ()
 * (which applies GIMP's export preferences and updates the dates and
 * sizes as the export does), the comment, and the resolution.  Not
 * written: the bKGD and tIME chunks of GIMP's PNG defaults (the context's
 * background colour and the time of writing, nothing of the photo's) and
 * EXIF's thumbnail.
 *
 * Left to GIMP's export (bm3d_save_png_own () declines): an image that
 * is not one plain layer (bm3d_image_is_sole_layer ()), a precision
 * other than 8- or 16-bit non-linear integers (GIMP writes a linear or
 * float image with its own conversions), IPTC (which the writer does
 * not hold), a build without libpng, and, in a build without gexiv2,
 * any image that has metadata.
 */

#include "config.h"

#include <string.h>

#include <libgimp/gimp.h>
#if BM3D_GIMP_MAJOR < 3
/* GIMP 2.10 declares gimp_image_metadata_save_prepare () there.  */
#include <libgimp/gimpui.h>
#endif
#ifdef HAVE_GEXIV2
#include <gexiv2/gexiv2.h>
#endif

#include "bm3d-drawable.h"
#include "bm3d-save.h"
#include "image_io.h"
#include "output_file.h"

/* Whether the comment is exported: GIMP 3's preference; GIMP 2.10's
 * PNG export writes it under its default settings.  */
#if BM3D_GIMP_MAJOR >= 3
#define EXPORT_COMMENT() gimp_export_comment ()
#else
#define EXPORT_COMMENT() TRUE
#endif

/* The sample type of `format` (8 or 16), when it is one of the layouts
 * the writer takes as they are; 0 for any other.  */
static gint
depth_of (const Babl *format)
{
  static const struct
  {
    const gchar *encoding;
    gint         depth;
  } taken[] =
  {
    { "Y' u8", 8 },       { "Y'A u8", 8 },
    { "R'G'B' u8", 8 },   { "R'G'B'A u8", 8 },
    { "Y' u16", 16 },     { "Y'A u16", 16 },
    { "R'G'B' u16", 16 }, { "R'G'B'A u16", 16 }
  };
  const gchar *encoding = babl_format_get_encoding (format);
  guint        i;

  for (i = 0; encoding && i < G_N_ELEMENTS (taken); i++)
    if (strcmp (encoding, taken[i].encoding) == 0)
      return taken[i].depth;
  return 0;
}

/* The colour profile GIMP's PNG export writes, when its preference
 * says so.  FALSE out of memory.  */
static gboolean
add_profile (Bm3dImage  image,
             Image     *img)
{
  GimpColorProfile *profile;
  const guint8     *icc;
  gsize             length = 0;
  gboolean          ok;

  if (! gimp_export_color_profile ())
    return TRUE;
  profile = gimp_image_get_effective_color_profile (image);
  if (! profile)
    return TRUE;
  icc = gimp_color_profile_get_icc_profile (profile, &length);
  ok = image_set_icc (img, icc, length) == 0;
  g_object_unref (profile);
  return ok;
}

/* EXIF and XMP as GIMP's export would write them, and whether the
 * writer can hold them all (*declined when not).  FALSE out of memory.  */
static gboolean
add_metadata (Bm3dImage  image,
              Image     *img,
              gboolean  *declined)
{
  GimpMetadataSaveFlags  flags = GIMP_METADATA_SAVE_ALL;
  GimpMetadata          *metadata;
  gboolean               ok = TRUE;

  metadata = gimp_image_metadata_save_prepare (image, "image/png", &flags);
  if (! metadata)
    return TRUE;
#ifdef HAVE_GEXIV2
  {
    GExiv2Metadata *exiv2 = GEXIV2_METADATA (metadata);

    if ((flags & GIMP_METADATA_SAVE_IPTC) && gexiv2_metadata_has_iptc (exiv2))
      *declined = TRUE;
    if (! *declined && (flags & GIMP_METADATA_SAVE_EXIF)
        && gexiv2_metadata_has_exif (exiv2))
      {
        GBytes *exif;

        /* As exiv2 writes it into a PNG: without the thumbnail, which
         * GIMP's export makes anew when its preference says so.  */
        gexiv2_metadata_try_erase_exif_thumbnail (exiv2, NULL);
        exif = gexiv2_metadata_get_exif_data (exiv2,
                                              GEXIV2_BYTE_ORDER_LITTLE, NULL);
        if (! exif)
          *declined = TRUE;
        else
          {
            gsize         size;
            gconstpointer data = g_bytes_get_data (exif, &size);

            ok = image_set_exif (img, data, size) == 0;
            g_bytes_unref (exif);
          }
      }
    if (ok && ! *declined && (flags & GIMP_METADATA_SAVE_XMP)
        && gexiv2_metadata_has_xmp (exiv2))
      {
        gchar *xmp = gexiv2_metadata_try_generate_xmp_packet (exiv2, 0, 0,
                                                              NULL);

        if (! xmp)
          *declined = TRUE;
        else
          ok = image_set_xmp (img, xmp) == 0;
        g_free (xmp);
      }
  }
#else
  /* Without gexiv2 the metadata cannot be read out: GIMP's export
   * writes it.  */
  *declined = TRUE;
#endif
  g_object_unref (metadata);
  return ok;
}

/* The comment and the resolution.  FALSE out of memory.  */
static gboolean
add_comment_and_resolution (Bm3dImage  image,
                            Image     *img)
{
  gchar    *comment = NULL;
  gdouble   x = 0.0, y = 0.0;
  gboolean  ok = TRUE;

  if (EXPORT_COMMENT ())
    comment = bm3d_image_parasite_text (image, "gimp-comment");
  if (comment && *comment)
    ok = image_set_comment (img, comment) == 0;
  g_free (comment);
  /* As GIMP's export rounds it: dots an inch to pixels a metre.  */
  if (gimp_image_get_resolution (image, &x, &y) && x > 0.0 && y > 0.0)
    {
      img->meta.x_ppm = (unsigned) (x / 0.0254 + 0.5);
      img->meta.y_ppm = (unsigned) (y / 0.0254 + 0.5);
    }
  return ok;
}

gboolean
bm3d_save_png_own (Bm3dImage     image,
                   Bm3dDrawable  drawable,
                   const gchar  *filename,
                   gint          png_level,
                   GError      **error)
{
  const Babl        *format = gimp_drawable_get_format (drawable);
  gint               depth = depth_of (format);
  gint               width = bm3d_drawable_width (drawable);
  gint               height = bm3d_drawable_height (drawable);
  ImageWriteOptions  options;
  GeglBuffer        *buffer;
  Image              img;
  gboolean           declined = FALSE;
  gchar              why[512] = "";

  if (! image_format_supported (IMAGE_FORMAT_PNG) || depth == 0
      || ! bm3d_image_is_sole_layer (image, drawable))
    return FALSE;
  if (image_alloc_samples (&img, width, height,
                           babl_format_get_n_components (format),
                           babl_format_has_alpha (format), depth,
                           depth == 16 ? IMAGE_SAMPLES_U16
                                       : IMAGE_SAMPLES_U8,
                           why, sizeof why) < 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM, "%s: %s",
                   filename, why);
      return FALSE;
    }
  if (! add_profile (image, &img)
      || ! add_metadata (image, &img, &declined)
      || ! add_comment_and_resolution (image, &img))
    g_snprintf (why, sizeof why, "%s: out of memory", filename);
  if (declined || why[0])
    {
      image_free (&img);
      if (why[0])
        g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM, why);
      return FALSE;
    }

  /* The layer's own samples, in its own format (its colour space too):
   * no conversion.  */
  buffer = gimp_drawable_get_buffer (drawable);
  gegl_buffer_get (buffer, GEGL_RECTANGLE (0, 0, width, height), 1.0,
                   format, img.pixels, GEGL_AUTO_ROWSTRIDE,
                   GEGL_ABYSS_NONE);
  g_object_unref (buffer);

  /* Every core deflates (options.threads 0); the file appears, under
   * its name, only once complete.  */
  image_write_options_init (&options);
  options.depth = depth;
  options.png_level = png_level;
  if (output_file_write (filename, IMAGE_FORMAT_PNG, &img, &options,
                         output_file_new_mode (), NULL, NULL, why,
                         sizeof why) < 0)
    {
      image_free (&img);
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, why);
      return FALSE;
    }
  image_free (&img);
  return TRUE;
}
