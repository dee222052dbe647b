/* BM3D Denoise for GIMP — the batch's files read, denoised and written
 * by the project's own image library (imageio/), without GIMP's loader
 * and exporters, whichever GIMP.
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
 * Why: beside the engine, a 12 MP PNG cost the batch GIMP's load (about
 * 0.9 s on the 2-core machine, one core inflating), the plug-in's copies
 * of the pixels to and from GIMP's core (0.27 s) and the save, a JPEG
 * also GIMP's export (1.0 s) (BENCHMARKS.md, *Saving the batch's
 * results*).  Read here by imageio into memory the plug-in owns, the
 * pixels go through the engine by the same strips and calls a
 * drawable's go through (bm3d_run_denoise_buffer (): the same noise
 * measurement, the same float conversion by babl, in the same colour
 * space), and are written by imageio's writers through its safe write.
 *
 * Taken, each as a result of its own format:
 *   PNG   8 or 16 bits, gray or RGB, with or without alpha, whose every
 *         chunk imageio keeps (image_png_chunks ()); the comment, XMP
 *         and resolution kept; written as bm3d-save-png.c writes a
 *         drawable's;
 *   JPEG  gray or YCbCr whose quantization tables are the standard's
 *         scaled to a quality (image_jpeg_markers ()), chroma 1x1, and
 *         no marker imageio does not keep; decoded as GIMP's loader
 *         decodes (floating-point inverse DCT); written as the batch
 *         asks GIMP's export to write (bm3d-save-gimp2.c): at that
 *         quality, with the luma's sampling (4:4:4 for one GIMP does not
 *         name), optimized Huffman tables, baseline, with the comment
 *         (COM) and the XMP packet.
 * The ICC profile and EXIF byte for byte, each piece as GIMP's export
 * preferences let it be exported; an image without a profile gets GIMP's
 * built-in one, as GIMP's exports write it.  Declined, and left to
 * GIMP's loader and export as before: any other format (TIFF), palette
 * and low-depth PNGs, a transparent colour (tRNS), compressed or other
 * text, a gamma without a profile, a JPEG of other tables (GIMP's
 * estimate of its quality is then approximate), a second comment or
 * one not UTF-8, IPTC and other applications' markers, a profile GIMP
 * would not take for the image, EXIF that turns the photo (an
 * orientation other than 1) or cannot be read, and any file imageio
 * cannot read (GIMP then says why it cannot either).
 *
 * What differs from GIMP's export: EXIF and XMP are the input's as they
 * were (GIMP's export updates their dates, sizes and software, and
 * drops EXIF's thumbnail), and the resolution is the PNG's pHYs or none
 * (GIMP writes its default resolution, and a JPEG's JFIF density).  The
 * built-in profile is the one GIMP writes but for the time of its making
 * in the header, as with GIMP's own (lcms stamps it).
 */

#include "config.h"

#include <string.h>

#include <libgimp/gimp.h>

#include "bm3d-run.h"
#include "bm3d-save.h"
#include "bm3d-own.h"
#include "image_io.h"
#include "output_file.h"

/* Whether the comment is exported: GIMP 3's preference; GIMP 2.10's
 * PNG export writes it under its default settings.  */
#if BM3D_GIMP_MAJOR >= 3
#define EXPORT_COMMENT() gimp_export_comment ()
#else
#define EXPORT_COMMENT() TRUE
#endif

/* The babl encoding of `img`'s samples, as GIMP's PNG loader makes the
 * layer: perceptual 8- or 16-bit integers.  */
static const gchar *
encoding_of (const Image *img)
{
  static const gchar *const names[2][4] =
  {
    { "Y' u8", "Y'A u8", "R'G'B' u8", "R'G'B'A u8" },
    { "Y' u16", "Y'A u16", "R'G'B' u16", "R'G'B'A u16" }
  };

  return names[img->samples == IMAGE_SAMPLES_U16][img->channels - 1];
}

/* The profile GIMP would give the image, and the babl space its layer's
 * format would have: the file's profile when GIMP takes it for an image
 * of this kind, GIMP's built-in one when there is none.  NULL when the
 * file's is one GIMP would not take.  */
static GimpColorProfile *
profile_of (const Image  *img,
            const Babl  **space)
{
  gboolean          rgb = img->channels - (img->has_alpha ? 1 : 0) == 3;
  GimpColorProfile *profile;

  if (img->meta.icc_dropped)
    return NULL;
  if (! img->meta.icc)
    {
      *space = NULL;    /* babl's sRGB, as for GIMP's built-in profiles */
      return rgb ? gimp_color_profile_new_rgb_srgb ()
                 : gimp_color_profile_new_d65_gray_srgb_trc ();
    }
  profile = gimp_color_profile_new_from_icc_profile (img->meta.icc,
                                                     img->meta.icc_len,
                                                     NULL);
  if (profile && ! (rgb ? gimp_color_profile_is_rgb (profile)
                        : gimp_color_profile_is_gray (profile)))
    g_clear_object (&profile);
#if BM3D_GIMP_MAJOR >= 3
  /* As GIMP 3's gimp_drawable_get_format () makes it: babl's sRGB when
   * babl makes no space of the profile (GIMP keeps the profile).  GIMP
   * 2.10's gives a layer's pixels in babl's sRGB whatever the profile
   * (the same estimate and pixels as an image without one:
   * tests/gimp-files.sh).  */
  if (profile)
    *space = gimp_color_profile_get_space
               (profile, GIMP_COLOR_RENDERING_INTENT_RELATIVE_COLORIMETRIC,
                NULL);
#endif
  return profile;
}

/* What the file holds beside its pixels, from its own headers.  */
typedef struct
{
  ImageFormat       format;
  ImagePngChunks    png;
  ImageJpegMarkers  jpeg;
  const gchar      *comment;   /* in png or jpeg, or NULL */
  const gchar      *xmp;
  guint             x_ppm;
  guint             y_ppm;
} Extras;

static void
extras_free (Extras *extras)
{
  if (extras->format == IMAGE_FORMAT_PNG)
    image_png_chunks_free (&extras->png);
  else
    image_jpeg_markers_free (&extras->jpeg);
}

/* `img`'s metadata as GIMP's export preferences keep it, with the
 * file's comment, XMP and resolution, and `profile`.  FALSE out of
 * memory.  */
static gboolean
set_metadata (Image            *out,
              const Image      *in,
              const Extras     *extras,
              GimpColorProfile *profile)
{
  gboolean ok = TRUE;

  if (gimp_export_color_profile ())
    {
      gsize         length = 0;
      const guint8 *icc = gimp_color_profile_get_icc_profile (profile,
                                                              &length);

      ok = image_set_icc (out, icc, length) == 0;
    }
  if (ok && gimp_export_exif ())
    ok = image_set_exif (out, in->meta.exif, in->meta.exif_len) == 0;
  if (ok && gimp_export_xmp ())
    ok = image_set_xmp (out, extras->xmp) == 0;
  if (ok && EXPORT_COMMENT () && extras->comment && *extras->comment)
    ok = image_set_comment (out, extras->comment) == 0;
  out->meta.x_ppm = extras->x_ppm;
  out->meta.y_ppm = extras->y_ppm;
  return ok;
}

/* A buffer of GEGL's over `img`'s samples, in `format`.  */
static GeglBuffer *
buffer_over (Image      *img,
             const Babl *format)
{
  return gegl_buffer_linear_new_from_data (img->pixels, format,
                                           GEGL_RECTANGLE (0, 0, img->width,
                                                           img->height),
                                           GEGL_AUTO_ROWSTRIDE, NULL, NULL);
}

/* The headers of `input`, when it is a PNG or JPEG whose every part
 * imageio keeps, written as the same format: FALSE, with nothing to
 * free, when it is not.  A JPEG also needs the quality GIMP's loader
 * would estimate (standard tables, image_jpeg_markers ()) and a comment
 * GIMP reads as it is (UTF-8).  */
static gboolean
read_extras (const gchar *input,
             const gchar *output,
             Extras      *extras)
{
  gchar why[512];

  memset (extras, 0, sizeof *extras);
  extras->format = image_format_for_path (input);
  if (! image_format_supported (extras->format))
    return FALSE;
  if (extras->format == IMAGE_FORMAT_PNG
      && bm3d_save_format_of (output) == BM3D_SAVE_PNG)
    {
      if (image_png_chunks (input, &extras->png, why, sizeof why) < 0)
        return FALSE;
      extras->comment = extras->png.comment;
      extras->xmp = extras->png.xmp;
      extras->x_ppm = extras->png.x_ppm;
      extras->y_ppm = extras->png.y_ppm;
      if (! extras->png.unkept[0])
        return TRUE;
    }
  else if (extras->format == IMAGE_FORMAT_JPEG
           && bm3d_save_format_of (output) == BM3D_SAVE_JPEG)
    {
      if (image_jpeg_markers (input, &extras->jpeg, why, sizeof why) < 0)
        return FALSE;
      extras->comment = extras->jpeg.comment;
      extras->xmp = extras->jpeg.xmp;
      if (! extras->jpeg.unkept[0] && extras->jpeg.quality > 0
          && (! extras->comment
              || g_utf8_validate (extras->comment, -1, NULL)))
        return TRUE;
    }
  else
    return FALSE;
  extras_free (extras);
  return FALSE;
}

/* Whether `input` is one this file takes, read into `img` with its
 * headers in `extras` when it is.  */
static gboolean
read_input (const gchar *input,
            const gchar *output,
            Image       *img,
            Extras      *extras)
{
  gchar why[512];

  if (! read_extras (input, output, extras))
    return FALSE;
  /* A JPEG decoded as GIMP's loader decodes it.  */
  if (image_read_native_with (input, img, IMAGE_READ_JPEG_FLOAT_DCT, why,
                              sizeof why) < 0)
    {
      extras_free (extras);
      return FALSE;
    }
  /* A turned photo: GIMP's loader may turn its pixels.  */
  if (img->samples == IMAGE_SAMPLES_FLOAT || img->meta.exif_dropped
      || (img->meta.exif
          && image_exif_orientation (img->meta.exif,
                                     img->meta.exif_len) != 1))
    {
      image_free (img);
      extras_free (extras);
      return FALSE;
    }
  return TRUE;
}

/* The write options of GIMP's export as the batch calls it
 * (bm3d-save-gimp2.c, bm3d-save-gimp3.c): PNG at `png_level`; JPEG at
 * the input's quality and luma sampling (4:4:4 for one the export does
 * not make), optimized Huffman tables, baseline, not progressive.  */
static void
options_for (const Image       *in,
             const Extras      *extras,
             gint               png_level,
             ImageWriteOptions *options)
{
  image_write_options_init (options);
  options->depth = in->depth;
  options->png_level = png_level;
  if (extras->format == IMAGE_FORMAT_JPEG)
    {
      gint h = extras->jpeg.h[0], v = extras->jpeg.v[0];

      options->quality = extras->jpeg.quality;
      options->jpeg_optimize = 1;
      if (h < 1 || h > 2 || v < 1 || v > 2)
        h = v = 1;
      options->jpeg_h_samp = h;
      options->jpeg_v_samp = v;
    }
}

/* Denoises `in` into `out`, a new image of its kind with its metadata,
 * and writes `out` as `output`.  */
static Bm3dOwnResult
denoise_and_write (Image                *in,
                   Image                *out,
                   const Extras         *extras,
                   const gchar          *output,
                   const Bm3dValues     *vals,
                   gint                  png_level,
                   GTimer               *timer,
                   Bm3dOwnTimes         *times,
                   GError              **error)
{
  gboolean           rgb = in->channels - (in->has_alpha ? 1 : 0) == 3;
  const Babl        *space = NULL;
  GimpColorProfile  *profile = profile_of (in, &space);
  const Babl        *format;
  GeglBuffer        *source, *destination;
  ImageWriteOptions  options;
  gchar              why[512] = "";
  gboolean           ok;

  if (! profile)
    return BM3D_OWN_DECLINED;
  if (image_alloc_samples (out, in->width, in->height, in->channels,
                           in->has_alpha, in->depth, in->samples, why,
                           sizeof why) < 0
      || ! set_metadata (out, in, extras, profile))
    {
      g_object_unref (profile);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM, "%s: %s",
                   output, why[0] ? why : "out of memory");
      return BM3D_OWN_FAILED_DENOISE;
    }
  g_object_unref (profile);

  format = babl_format_with_space (encoding_of (in), space);
  source = buffer_over (in, format);
  destination = buffer_over (out, format);
  times->load = g_timer_elapsed (timer, NULL);
  g_timer_start (timer);
  ok = bm3d_run_denoise_buffer (source, destination, rgb, in->has_alpha,
                                vals, error);
  g_object_unref (source);
  g_object_unref (destination);
  times->denoise = g_timer_elapsed (timer, NULL);
  g_timer_start (timer);
  if (! ok)
    return BM3D_OWN_FAILED_DENOISE;

  /* A PNG deflated by every core (options.threads 0); the file
   * appears, under its name, only once complete.  */
  options_for (in, extras, png_level, &options);
  ok = output_file_write (output, extras->format, out, &options,
                          output_file_new_mode (), NULL, NULL, why,
                          sizeof why) == 0;
  times->save = g_timer_elapsed (timer, NULL);
  if (! ok)
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, why);
      return BM3D_OWN_FAILED_SAVE;
    }
  return BM3D_OWN_DONE;
}

Bm3dOwnResult
bm3d_own_denoise (const gchar       *input,
                  const gchar       *output,
                  const Bm3dValues  *vals,
                  gint               png_level,
                  Bm3dOwnTimes      *times,
                  GError           **error)
{
  GTimer         *timer = g_timer_new ();
  Extras          extras;
  Image           in, out;
  Bm3dOwnResult   result;

  memset (times, 0, sizeof *times);
  memset (&out, 0, sizeof out);
  if (! read_input (input, output, &in, &extras))
    {
      g_timer_destroy (timer);
      return BM3D_OWN_DECLINED;
    }
  result = denoise_and_write (&in, &out, &extras, output, vals, png_level,
                              timer, times, error);
  image_free (&in);
  image_free (&out);
  extras_free (&extras);
  g_timer_destroy (timer);
  return result;
}
