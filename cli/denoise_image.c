/* BM3D Denoise — one image file's pixels through the engine (see
 * denoise_image.h).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "denoise_image.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
cli_output_depth (int requested, const Image *in, ImageFormat format)
{
  int depth = requested;

  if (!depth)
    {
      depth = in->depth == 16 ? 16 : 8;
      if (in->depth == 32 && image_format_depth (format, 32) == 32)
        depth = 32;
    }
  return image_format_depth (format, depth);
}

/* The samples of an 8- or 16-bit image as its file held them, into a
 * new buffer of `px` (with `copy` 0, the buffer alone): its floats are
 * whole steps of 1 or 1/257 (io_from_int), so this is exact.  Returns
 * 0, or -1 out of memory.  */
static int
image_to_pixels (const Image *img, int copy, bm3d_pixels *px)
{
  const size_t row = (size_t) img->width * img->channels;

  px->width = img->width;
  px->height = img->height;
  px->channels = img->channels;
  px->has_alpha = img->has_alpha;
  px->stride = row;
  px->type = img->depth == 16 ? BM3D_PIXELS_U16 : BM3D_PIXELS_U8;
  px->data = malloc (row * img->height * bm3d_pixel_size (px->type));
  if (!px->data)
    return -1;
  if (!copy)
    return 0;
#ifdef _OPENMP
#pragma omp parallel for schedule (static)
#endif
  for (int y = 0; y < img->height; y++)
    {
      const float *src = img->data + (size_t) y * row;

      if (px->type == BM3D_PIXELS_U8)
        for (size_t i = 0; i < row; i++)
          ((uint8_t *) px->data)[(size_t) y * row + i] = (uint8_t) src[i];
      else
        for (size_t i = 0; i < row; i++)
          ((uint16_t *) px->data)[(size_t) y * row + i]
            = (uint16_t) (src[i] * 257.0 + 0.5);
    }
  return 0;
}

/* `px` back into the floats of `img` (same size), as the file's reader
 * would have given them.  */
static void
pixels_to_image (const bm3d_pixels *px, Image *img)
{
  const size_t row = (size_t) img->width * img->channels;

#ifdef _OPENMP
#pragma omp parallel for schedule (static)
#endif
  for (int y = 0; y < img->height; y++)
    {
      float *dst = img->data + (size_t) y * row;

      if (px->type == BM3D_PIXELS_U8)
        for (size_t i = 0; i < row; i++)
          dst[i] = ((const uint8_t *) px->data)[(size_t) y * row + i];
      else
        for (size_t i = 0; i < row; i++)
          dst[i] = ((const uint16_t *) px->data)[(size_t) y * row + i]
                   / 257.0f;
    }
}

/* The engine's view of an integer image's own buffer.  */
static bm3d_pixels
pixels_view (const Image *img)
{
  bm3d_pixels px;

  px.width = img->width;
  px.height = img->height;
  px.channels = img->channels;
  px.has_alpha = img->has_alpha;
  px.stride = (size_t) img->width * img->channels;
  px.type = img->samples == IMAGE_SAMPLES_U16 ? BM3D_PIXELS_U16
                                              : BM3D_PIXELS_U8;
  px.data = img->pixels;
  return px;
}

/* The command's one environment switch, BM3D_CLI_FLOAT_IO
 * (denoise_image.h); docs/environment.md lists them all.  */
int
cli_integer_io (void)
{
  const char *floats = getenv ("BM3D_CLI_FLOAT_IO");

  return !floats || !floats[0] || strcmp (floats, "0") == 0;
}

int
cli_alloc_output (Image *in, Image *out, int out_depth, char *error,
                  size_t error_len)
{
  memset (out, 0, sizeof *out);
  if (in->samples != IMAGE_SAMPLES_FLOAT && out_depth != in->depth
      && image_to_float (in) < 0)
    {
      snprintf (error, error_len, "out of memory");
      return -1;
    }
  return image_alloc_samples (out, in->width, in->height, in->channels,
                              in->has_alpha, in->depth, in->samples, error,
                              error_len);
}

/* An 8- or 16-bit image written back at its own depth goes to the
 * engine as those integers (bm3d_denoise_pixels): on a GPU a quarter or
 * half of the floats' bytes cross the bus, and the result comes back
 * rounded by the writer's own rule, so the file is the one the float
 * path writes.  */
bm3d_status
cli_denoise (const Image *in, Image *out, int out_depth,
             const bm3d_params *params, bm3d_report *report)
{
  bm3d_pixels pin, pout;
  bm3d_status status;

  if (in->samples != IMAGE_SAMPLES_FLOAT)
    {
      pin = pixels_view (in);
      pout = pixels_view (out);
      return bm3d_denoise_pixels (&pin, &pout, params, report);
    }
  if ((in->depth != 8 && in->depth != 16) || out_depth != in->depth)
    {
      bm3d_image in_view = engine_view (in), out_view = engine_view (out);

      return bm3d_denoise (&in_view, &out_view, params, report);
    }
  pout.data = NULL;
  if (image_to_pixels (in, 1, &pin) < 0 || image_to_pixels (out, 0, &pout) < 0)
    {
      free (pin.data);
      snprintf (report->message, sizeof report->message, "out of memory");
      return BM3D_ERR_OUT_OF_MEMORY;
    }
  status = bm3d_denoise_pixels (&pin, &pout, params, report);
  if (status == BM3D_OK)
    pixels_to_image (&pout, out);
  free (pin.data);
  free (pout.data);
  return status;
}
