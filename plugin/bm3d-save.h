/* BM3D Denoise for GIMP — how the list-of-files procedures save each
 * result: in its input's format, with settings chosen for the photo
 * rather than GIMP's export defaults.
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
 * Why: gimp-file-save exports with GIMP's defaults, and a denoised photo
 * is smooth data, on which PNG's zlib level 9 crawls (18 s for 12
 * megapixels against 1.3 s at level 3, for 10% more bytes), while TIFF
 * loses its compression and JPEG its quality.  So:
 *
 *   PNG   the project's own PNG writer (imageio/io_png.c, the command's):
 *         zlib level `png_level`, 1 unless the caller or the setting
 *         bm3d-png-compression says otherwise: the Average filter,
 *         then Huffman coding alone (run-length matches for slices with
 *         many runs), deflated on every core (a 12 MP photo in 0.27 s of
 *         CPU, and smaller than GIMP's level 9 on denoised photos:
 *         BENCHMARKS.md, *Saving the batch's results*); the bit depth,
 *         gray or RGB, alpha, ICC profile, EXIF, XMP, comment and
 *         resolution as GIMP's PNG export keeps them (bm3d-save-png.c).
 *         An image the writer does not take (more than one layer, a
 *         layer mask or offset, linear or float precision, IPTC, or a
 *         build without libpng or gexiv2 for one with EXIF or XMP) goes
 *         through GIMP's PNG export with GIMP's PNG settings and level
 *         `png_level`, 3 by default;
 *   JPEG  the input's quality as GIMP estimated it on loading (its
 *         jpeg-settings parasite), else 95, and its chroma sampling;
 *         EXIF, the ICC profile and the comment kept;
 *   TIFF  the input's compression, as GIMP's loader noted it;
 *   other formats as gimp-file-save does.
 *
 * The interactive filter saves nothing: the user does.
 */
#ifndef BM3D_SAVE_H
#define BM3D_SAVE_H

#include <glib.h>

#include "bm3d-drawable.h"

/* The zlib level a PNG result is written at unless told otherwise: by
 * the project's writer, its fastest level (Huffman coding after the
 * Average filter), on denoised photos smaller than GIMP's level 9; by
 * GIMP's PNG export, the fastest level whose files stay clearly within 1.15
 * times level 9's, 10 to 15 times faster than it (BENCHMARKS.md,
 * *Saving the batch's results*).  */
#define BM3D_SAVE_PNG_LEVEL_OWN      1
#define BM3D_SAVE_PNG_LEVEL_EXPORT   3
#define BM3D_SAVE_PNG_LEVEL_DEFAULT  (-1)
#define BM3D_SAVE_PNG_LEVEL_MAX      9

/* The gimprc setting that chooses another level, as a quoted number:
 *   (bm3d-png-compression "1")  */
#define BM3D_SAVE_PNG_LEVEL_SETTING  "bm3d-png-compression"

/* A JPEG whose quality GIMP could not estimate is written at this.  */
#define BM3D_SAVE_JPEG_QUALITY       95

typedef enum
{
  BM3D_SAVE_OTHER,
  BM3D_SAVE_PNG,
  BM3D_SAVE_JPEG,
  BM3D_SAVE_TIFF
} Bm3dSaveFormat;

/* The chroma sampling of a JPEG, numbered as GIMP's JPEG plug-in numbers
 * it (file-jpeg-save's subsmp).  */
typedef enum
{
  BM3D_SAVE_SAMPLING_2x2 = 0,   /* 4:2:0 */
  BM3D_SAVE_SAMPLING_2x1 = 1,   /* 4:2:2 */
  BM3D_SAVE_SAMPLING_1x1 = 2,   /* 4:4:4 */
  BM3D_SAVE_SAMPLING_1x2 = 3    /* 4:4:0 */
} Bm3dSaveSampling;

/* What GIMP's JPEG loader noted about the file: its quality (1..100, or
 * BM3D_SAVE_JPEG_QUALITY when unknown) and chroma sampling (4:4:4 when
 * unknown).  */
typedef struct
{
  gint              quality;
  Bm3dSaveSampling  sampling;
} Bm3dSaveJpeg;

/* The format a file name's extension says (case ignored).  */
Bm3dSaveFormat  bm3d_save_format_of      (const gchar  *filename);

/* The JPEG settings from the data of a jpeg-settings parasite (NULL: no
 * parasite): color space, quality, number of components, number of
 * tables, then each component's sampling factors.  */
Bm3dSaveJpeg    bm3d_save_jpeg_of        (const guint8 *data,
                                          gsize         size);

/* The zlib level for PNG results: `argument` when it is 0..9, else the
 * gimprc setting bm3d-png-compression, else BM3D_SAVE_PNG_LEVEL_DEFAULT
 * (the writer's own default above).  A setting that is not a level is
 * told once, on one line, and the default used.  */
gint            bm3d_save_png_level      (gint          argument);

/* Saves `image` as `filename` in the format its name says, with the
 * settings above; FALSE, with a one-line `error`, when the write or the
 * export failed.  A failed write leaves no file (imageio's safe write);
 * GIMP's exporters leave what they leave.  */
gboolean        bm3d_save_result         (Bm3dImage     image,
                                          Bm3dDrawable  drawable,
                                          const gchar  *filename,
                                          gint          png_level,
                                          GError      **error);

/* Writes `image`, whose only layer is `drawable`, as the PNG `filename`
 * with the project's writer at zlib level `png_level` (0..9).  FALSE
 * either with `error` set (the write failed) or, when the image is one
 * the writer leaves to GIMP's export, without (bm3d-save-png.c).  */
gboolean        bm3d_save_png_own        (Bm3dImage     image,
                                          Bm3dDrawable  drawable,
                                          const gchar  *filename,
                                          gint          png_level,
                                          GError      **error);

/* Exports `image` through GIMP's own export procedure for the format of
 * `filename`, with the settings above (PNG at `png_level`, 0..9); FALSE
 * when the export failed (bm3d_pdb_error () says why).  One front end
 * per GIMP: bm3d-save-gimp2.c, bm3d-save-gimp3.c.  */
gboolean        bm3d_save_export         (Bm3dImage     image,
                                          Bm3dDrawable  drawable,
                                          const gchar  *filename,
                                          gint          png_level);

#endif /* BM3D_SAVE_H */
