/* BM3D Denoise — the engine's entry point for 8- and 16-bit pixels.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Integer pixels are denoised as their float image on the 0..255 scale
 * (bm3d.h, bm3d_denoise_pixels).  On a CUDA device the values travel
 * as they are and the device converts them (engine.c,
 * bm3d_denoise_on_device; cuda_tiled_image.cu).  Everywhere else the
 * conversions run here, on the call's threads, around bm3d_denoise ():
 * the path of the CPU backend and the reference the device is held to.
 * The rules themselves are pixels.h's, shared with the device.  */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "engine.h"
#include "pixels.h"

/* The float image a bm3d_pixels has the shape of, without data.  */
static bm3d_image
shape_of (const bm3d_pixels *px)
{
  bm3d_image img;

  img.width = px->width;
  img.height = px->height;
  img.channels = px->channels;
  img.has_alpha = px->has_alpha;
  img.stride = px->stride;
  img.data = (float *) px->data;
  return img;
}

static bm3d_status
check_pixels (const bm3d_pixels *px, const char *what, bm3d_job *job)
{
  bm3d_image shape;

  if (!px)
    {
      bm3d_job_message (job, "%s image is missing", what);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (bm3d_pixel_size (px->type) == 0)
    {
      bm3d_job_message (job, "%s pixel type %d is not one of float, u8 "
                        "and u16", what, (int) px->type);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  shape = shape_of (px);
  return bm3d_check_image (&shape, what, job);
}

/* The values of `px` as floats into `img` (same shape, its own
 * stride), a band of rows a thread.  */
static void
rows_to_float (const bm3d_pixels *px, bm3d_image *img, int threads)
{
  const size_t n = (size_t) px->width * px->channels;

#ifdef _OPENMP
#pragma omp parallel for num_threads (threads) schedule (static)
#endif
  for (int y = 0; y < px->height; y++)
    {
      float *dst = img->data + (size_t) y * img->stride;

      if (px->type == BM3D_PIXELS_U8)
        {
          const uint8_t *src = (const uint8_t *) px->data
                               + (size_t) y * px->stride;

          for (size_t i = 0; i < n; i++)
            dst[i] = bm3d_u8_to_float (src[i]);
        }
      else
        {
          const uint16_t *src = (const uint16_t *) px->data
                                + (size_t) y * px->stride;

          for (size_t i = 0; i < n; i++)
            dst[i] = bm3d_u16_to_float (src[i]);
        }
    }
  (void) threads;
}

/* The denoised floats of `img` into `out`, rounded and clipped; alpha
 * straight from `in`, so it survives whatever the float image held.  */
static void
rows_from_float (const bm3d_image *img, const bm3d_pixels *in,
                 bm3d_pixels *out, int threads)
{
  const int ch = out->channels;
  const int colour = ch - (out->has_alpha ? 1 : 0);

#ifdef _OPENMP
#pragma omp parallel for num_threads (threads) schedule (static)
#endif
  for (int y = 0; y < out->height; y++)
    {
      const float *src = img->data + (size_t) y * img->stride;

      if (out->type == BM3D_PIXELS_U8)
        {
          uint8_t *dst = (uint8_t *) out->data + (size_t) y * out->stride;
          const uint8_t *a = (const uint8_t *) in->data
                             + (size_t) y * in->stride;

          for (int x = 0; x < out->width; x++)
            for (int c = 0; c < ch; c++)
              {
                size_t i = (size_t) x * ch + c;

                dst[i] = c < colour ? bm3d_float_to_u8 (src[i]) : a[i];
              }
        }
      else
        {
          uint16_t *dst = (uint16_t *) out->data + (size_t) y * out->stride;
          const uint16_t *a = (const uint16_t *) in->data
                              + (size_t) y * in->stride;

          for (int x = 0; x < out->width; x++)
            for (int c = 0; c < ch; c++)
              {
                size_t i = (size_t) x * ch + c;

                dst[i] = c < colour ? bm3d_float_to_u16 (src[i]) : a[i];
              }
        }
    }
  (void) threads;
}

/* A float copy is written once, right after it is allocated: with the
 * kernel's 4 KiB pages, faulting in a 12 MP RGB copy (144 MB) and
 * converting into it took 7 to 9 ms on the H200 machine's host, and
 * unmapping it 4 to 8.  Huge pages, asked for where the kernel grants
 * them on request (transparent huge pages set to "madvise", as there),
 * take a 512th of the faults: 5 ms and 0.4.  */
#define HUGE_PAGE_BYTES ((size_t) 2 << 20)

static void *
copy_alloc (size_t bytes)
{
#if defined (MADV_HUGEPAGE)
  if (bytes >= 4 * HUGE_PAGE_BYTES)
    {
      void *p = NULL;
      size_t rounded = (bytes + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);

      if (posix_memalign (&p, HUGE_PAGE_BYTES, rounded) != 0)
        return NULL;
      madvise (p, rounded, MADV_HUGEPAGE);
      return p;
    }
#endif
  return malloc (bytes);
}

/* A packed float image of `px`'s shape; data NULL when out of memory.  */
static bm3d_image
float_image (const bm3d_pixels *px)
{
  bm3d_image img = shape_of (px);

  img.stride = (size_t) px->width * px->channels;
  img.data = (float *) copy_alloc (img.stride * px->height * sizeof (float));
  return img;
}

bm3d_image
bm3d_pixels_float_copy (const bm3d_pixels *px, int threads)
{
  bm3d_image img = float_image (px);

  if (img.data)
    rows_to_float (px, &img, threads);
  return img;
}

/* Integer pixels through the float path: convert, denoise, convert
 * back, `out` written only on success.  */
static bm3d_status
denoise_converted (const bm3d_pixels *in, bm3d_pixels *out,
                   const bm3d_params *params, int threads,
                   bm3d_report *report, bm3d_job *job)
{
  bm3d_image fin = bm3d_pixels_float_copy (in, threads);
  bm3d_image fout = float_image (out);
  bm3d_params clipped = *params;
  bm3d_status status;
  double start = bm3d_seconds ();

  if (!fin.data || !fout.data)
    {
      free (fin.data);
      free (fout.data);
      bm3d_job_message (job, "out of memory for the float copy of a "
                        "%dx%d image", in->width, in->height);
      return BM3D_ERR_OUT_OF_MEMORY;
    }
  /* Integer values are within 0..255: the rule bm3d_image_within_range
   * states, without reading them again.  */
  clipped.clipped = 1;
  status = bm3d_denoise (&fin, &fout, &clipped, report);
  if (status == BM3D_OK)
    {
      rows_from_float (&fout, in, out, threads);
      report->peak_host_bytes += 2 * fin.stride * fin.height * sizeof (float);
      report->seconds_total = bm3d_seconds () - start;
    }
  free (fin.data);
  free (fout.data);
  return status;
}

bm3d_status
bm3d_denoise_pixels (const bm3d_pixels *in, bm3d_pixels *out,
                     const bm3d_params *params, bm3d_report *report)
{
  bm3d_report scratch;
  bm3d_job job;
  bm3d_status status;
  bm3d_image fin, fout;
  int threads;

  if (!report)
    report = &scratch;
  memset (report, 0, sizeof *report);
  bm3d_job_init (&job, params, report);
  if ((status = check_pixels (in, "input", &job)) != BM3D_OK
      || (status = check_pixels (out, "output", &job)) != BM3D_OK)
    return status;
  if (in->type != out->type)
    {
      bm3d_job_message (&job, "output pixels must have the input's type");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  fin = shape_of (in);
  fout = shape_of (out);
  if (in->type == BM3D_PIXELS_FLOAT)
    return bm3d_denoise (&fin, &fout, params, report);
  if (!params)
    {
      bm3d_job_message (&job, "parameters are missing");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (in->data == out->data)
    {
      bm3d_job_message (&job, "output image must not be the input image");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  threads = bm3d_params_threads (params);
  status = bm3d_denoise_on_device (in, out, params, report);
  if (status == BM3D_ERR_NOT_IMPLEMENTED)
    return denoise_converted (in, out, params, threads, report, &job);
  if (params->backend == BM3D_BACKEND_AUTO
      && bm3d_cuda_error_recoverable (status))
    {
      /* As bm3d_denoise () falls back: the whole call again, on the CPU,
       * and the device's reason in the message.  */
      char cuda_message[sizeof report->message];
      bm3d_params cpu = *params;

      memcpy (cuda_message, report->message, sizeof cuda_message);
      cpu.backend = BM3D_BACKEND_CPU;
      status = denoise_converted (in, out, &cpu, threads, report, &job);
      report->fell_back = BM3D_FALLBACK_FAILED;
      if (status == BM3D_OK)
        bm3d_job_message (&job, "CUDA failed (%s); denoised on the CPU "
                          "instead", cuda_message);
    }
  return status;
}
