/* image_probe () (imageio/image_probe.c): an image file's size from its
 * header.  Files of every format the command reads are written by the
 * command's own writers (and a test photo read as it is), probed, and
 * the probe compared with what image_read () gives; then truncated,
 * damaged and garbage files must fail with one line, never crash (ASan
 * runs this in CI).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include <sys/stat.h>
#include <unistd.h>

#include "engine-tap.h"
#include "image_io.h"

/* Not square, so that a width and height swapped show.  */
#define WIDTH  337
#define HEIGHT 211

static char dir[] = "/tmp/bm3d-io-probe.XXXXXX";

typedef struct
{
  const char *name;       /* file name: its extension picks the format  */
  int         channels;   /* of the image written                       */
  int         has_alpha;
  int         depth;      /* written: 8, 16, 32                         */
} Case;

static int
make_image (Image *img, int channels, int has_alpha)
{
  char error[256];
  uint64_t seed = 7;
  size_t n = (size_t) WIDTH * HEIGHT * channels;

  if (image_alloc (img, WIDTH, HEIGHT, channels, has_alpha, 8, error,
                   sizeof error) < 0)
    return -1;
  for (size_t i = 0; i < n; i++)
    img->data[i] = (float) (128.0 + 60.0 * rng_gauss (&seed));
  return 0;
}

static void
path_of (char *path, size_t len, const char *name)
{
  snprintf (path, len, "%s/%s", dir, name);
}

static int
spill (const char *path, const unsigned char *data, size_t len)
{
  FILE *fp = fopen (path, "wb");
  int ok = fp && fwrite (data, 1, len, fp) == len;

  if (fp && fclose (fp) != 0)
    ok = 0;
  return ok ? 0 : -1;
}

/* The probe of `path` agrees with its read.  */
static void
check_probe_matches_read (const char *path, const char *what)
{
  char error[512] = "";
  ImageProbe probe;
  Image img = { 0 };
  int probed = image_probe (path, &probe, error, sizeof error);
  int colour;

  if (image_read (path, &img, error, sizeof error) < 0)
    {
      tap_ok (0, "%s: read back (%s)", what, error);
      return;
    }
  colour = img.channels - (img.has_alpha ? 1 : 0);
  tap_ok (probed == 0 && probe.width == img.width
          && probe.height == img.height && probe.colour_channels == colour
          && probe.format == image_format_for_path (path),
          "%s: probed %dx%d, %d colour channel%s (read %dx%d, %d)%s%s",
          what, probe.width, probe.height, probe.colour_channels,
          probe.colour_channels == 1 ? "" : "s", img.width, img.height,
          colour, probed ? ": " : "", probed ? error : "");
  image_free (&img);
}

/* The probe of `path` fails with one line naming the file.  */
static void
check_probe_fails (const char *path, const char *what)
{
  char error[512] = "";
  ImageProbe probe;
  int probed = image_probe (path, &probe, error, sizeof error);

  tap_ok (probed < 0 && error[0] && !strchr (error, '\n')
          && strstr (error, path) == error,
          "%s: refused in one line (%s)", what, error);
}

static void
check_written_files (void)
{
  static const Case cases[] =
  {
    { "rgb8.png", 3, 0, 8 }, { "rgb16.png", 3, 0, 16 },
    { "gray8.png", 1, 0, 8 }, { "gray16.png", 1, 0, 16 },
    { "rgba16.png", 4, 1, 16 }, { "graya8.png", 2, 1, 8 },
    { "rgb.jpg", 3, 0, 8 }, { "gray.jpeg", 1, 0, 8 },
    { "rgb8.tif", 3, 0, 8 }, { "rgba16.tiff", 4, 1, 16 },
    { "grayf.tif", 1, 0, 32 }, { "rgbf.tif", 3, 0, 32 },
    { "rgb8.ppm", 3, 0, 8 }, { "gray16.pgm", 1, 0, 16 },
    { "rgb.pnm", 3, 0, 8 }, { "rgb.pfm", 3, 0, 32 }, { "gray.pfm", 1, 0, 32 },
  };
  char path[600], error[512];

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      const Case *c = &cases[i];
      Image img = { 0 };

      path_of (path, sizeof path, c->name);
      if (!image_format_supported (image_format_for_path (path)))
        {
          tap_ok (1, "# SKIP %s: its library is not built in", c->name);
          continue;
        }
      if (make_image (&img, c->channels, c->has_alpha) < 0
          || image_write (path, &img, c->depth, error, sizeof error) < 0)
        {
          tap_ok (0, "%s: written (%s)", c->name, error);
          image_free (&img);
          continue;
        }
      image_free (&img);
      check_probe_matches_read (path, c->name);
    }
}

/* A JPEG whose frame header comes after a large application segment and
 * fill bytes (0xff repeated before a marker, as the standard allows).  */
static void
check_jpeg_markers (void)
{
  char from[600], to[600];
  size_t len, extra = 60000;
  unsigned char *data, *out;

  path_of (from, sizeof from, "rgb.jpg");
  path_of (to, sizeof to, "segments.jpg");
  if (!image_format_supported (IMAGE_FORMAT_JPEG))
    {
      tap_ok (1, "# SKIP JPEG markers: libjpeg is not built in");
      return;
    }
  data = read_whole_file (from, &len);
  out = data ? malloc (len + extra + 8) : NULL;
  if (!out)
    {
      tap_ok (0, "JPEG markers: the written JPEG read");
      free (data);
      return;
    }
  /* SOI, three fill bytes, APP15 of `extra` bytes, then the file's own
   * segments.  */
  memcpy (out, data, 2);
  memset (out + 2, 0xff, 4);
  out[6] = 0xef;
  out[7] = (unsigned char) ((extra - 0) >> 8);
  out[8] = (unsigned char) ((extra - 0) & 0xff);
  memset (out + 9, 'x', extra - 2);
  memcpy (out + 7 + extra, data + 2, len - 2);
  if (spill (to, out, len + extra + 5) < 0)
    tap_ok (0, "JPEG markers: written");
  else
    check_probe_matches_read (to, "JPEG with a 60 kB APP15 and fill bytes");
  free (out);
  free (data);
}

/* The first `keep` bytes of `name` as `to`.  */
static int
truncate_copy (const char *name, size_t keep, const char *to)
{
  char from[600], path[600];
  size_t len;
  unsigned char *data;
  int result;

  path_of (from, sizeof from, name);
  path_of (path, sizeof path, to);
  if (!(data = read_whole_file (from, &len)))
    return -1;
  result = spill (path, data, keep < len ? keep : len);
  free (data);
  return result;
}

static void
check_bad_files (void)
{
  static const struct { const char *name; size_t keep; } cut[] =
  {
    { "rgb8.png", 20 }, { "rgb.jpg", 20 }, { "rgb.jpg", 0 },
    { "rgb8.tif", 20 }, { "rgb8.ppm", 7 }, { "rgb.pfm", 6 },
    { "rgb8.png", 0 },
  };
  static const char *const exts[] = { "png", "jpg", "tif", "ppm", "pfm" };
  unsigned char garbage[4096];
  uint64_t seed = 11;
  char path[600], to[64];

  for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++)
    {
      const char *ext = strrchr (cut[i].name, '.');

      if (!image_format_supported (image_format_for_path (cut[i].name)))
        continue;
      snprintf (to, sizeof to, "cut%zu%s", i, ext);
      path_of (path, sizeof path, to);
      if (truncate_copy (cut[i].name, cut[i].keep, to) < 0)
        tap_ok (0, "%s cut to %zu bytes: written", cut[i].name,
                cut[i].keep);
      else
        {
          char what[128];

          snprintf (what, sizeof what, "%s cut to %zu bytes", cut[i].name,
                    cut[i].keep);
          check_probe_fails (path, what);
        }
    }

  for (size_t i = 0; i < sizeof garbage; i++)
    garbage[i] = (unsigned char) rng_next (&seed);
  for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
    {
      char what[64];

      snprintf (to, sizeof to, "garbage.%s", exts[i]);
      path_of (path, sizeof path, to);
      if (!image_format_supported (image_format_for_path (path)))
        continue;
      snprintf (what, sizeof what, "4 kB of random bytes as .%s", exts[i]);
      if (spill (path, garbage, sizeof garbage) < 0)
        tap_ok (0, "%s: written", what);
      else
        check_probe_fails (path, what);
    }
}

/* Headers that parse but describe no image the command takes.  */
static void
check_bad_sizes (void)
{
  static const unsigned char png_zero[] =
  {
    0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13,
    'I', 'H', 'D', 'R', 0, 0, 0, 0, 0, 0, 1, 0, 8, 2, 0, 0, 0
  };
  static const unsigned char png_huge[] =
  {
    0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13,
    'I', 'H', 'D', 'R', 0x7f, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff,
    8, 2, 0, 0, 0
  };
  static const char pnm_huge[] = "P6\n1000000 1000000\n255\n";
  static const char pnm_ascii[] = "P3\n4 4\n255\n";
  static const char pfm_long[] = "PF\n12345678901234567890 3\n-1.0\n";
  char path[600];

  path_of (path, sizeof path, "zero.png");
  if (spill (path, png_zero, sizeof png_zero) == 0)
    check_probe_fails (path, "PNG of width 0");
  path_of (path, sizeof path, "huge.png");
  if (spill (path, png_huge, sizeof png_huge) == 0)
    check_probe_fails (path, "PNG of 2^31-1 squared pixels");
  path_of (path, sizeof path, "huge.ppm");
  if (spill (path, (const unsigned char *) pnm_huge, strlen (pnm_huge)) == 0)
    check_probe_fails (path, "PPM of 10^12 pixels");
  path_of (path, sizeof path, "ascii.ppm");
  if (spill (path, (const unsigned char *) pnm_ascii,
             strlen (pnm_ascii)) == 0)
    check_probe_fails (path, "ASCII PPM (P3)");
  path_of (path, sizeof path, "long.pfm");
  if (spill (path, (const unsigned char *) pfm_long, strlen (pfm_long)) == 0)
    check_probe_fails (path, "PFM with a 20-digit width");
  path_of (path, sizeof path, "missing.png");
  check_probe_fails (path, "a missing file");
  /* Opening a FIFO for reading would wait for a writer.  */
  path_of (path, sizeof path, "fifo.png");
  if (mkfifo (path, 0600) == 0)
    check_probe_fails (path, "a FIFO, not waited on");
  else
    tap_ok (1, "# SKIP a FIFO: mkfifo failed");
  path_of (path, sizeof path, "folder.jpg");
  if (mkdir (path, 0700) == 0)
    check_probe_fails (path, "a folder");
  else
    tap_ok (0, "a folder: made");
  path_of (path, sizeof path, "photo.webp");
  check_probe_fails (path, "an unknown extension");
}

static void
check_test_photo (void)
{
  const char *top = getenv ("top_srcdir");
  char path[1024];

  snprintf (path, sizeof path, "%s/tests/data/chelsea.png",
            top ? top : "..");
  if (!image_format_supported (IMAGE_FORMAT_PNG) || access (path, R_OK) != 0)
    {
      tap_ok (1, "# SKIP tests/data/chelsea.png: no PNG support or file");
      return;
    }
  check_probe_matches_read (path, "tests/data/chelsea.png");
}

static void
remove_files (void)
{
  char cmd[128];

  snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system (cmd) != 0)
    tap_diag ("could not remove %s", dir);
}

int
main (void)
{
  if (!mkdtemp (dir))
    {
      tap_ok (0, "a temporary folder");
      return tap_done ();
    }
  check_test_photo ();
  check_written_files ();
  check_jpeg_markers ();
  check_bad_files ();
  check_bad_sizes ();
  remove_files ();
  return tap_done ();
}
