/* BM3D Denoise: the checks of a call.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * What every entry point refuses before any work, with a one-line
 * message: images it cannot read, parameters out of range.  */
#include "config.h"

#include "engine.h"
#include "bm3d-options.h"

#include <math.h>
#include <string.h>

/* Width and height above this are refused: the engine indexes pixels with
 * int and a plane with size_t, and no photograph is this large.  */
#define BM3D_MAX_SIDE   (1 << 20)
#define BM3D_MAX_PIXELS ((size_t) 1 << 31)

bm3d_status
bm3d_check_image (const bm3d_image *img, const char *what, bm3d_job *job)
{
  int colour;

  if (!img || !img->data)
    {
      bm3d_job_message (job, "%s image is missing", what);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (img->width < 1 || img->height < 1
      || img->width > BM3D_MAX_SIDE || img->height > BM3D_MAX_SIDE
      || (size_t) img->width * img->height > BM3D_MAX_PIXELS)
    {
      bm3d_job_message (job, "%s image size %dx%d is not supported "
                        "(1x1 up to %zu pixels)", what, img->width,
                        img->height, BM3D_MAX_PIXELS);
      return BM3D_ERR_INVALID_SIZE;
    }
  colour = img->channels - (img->has_alpha ? 1 : 0);
  if (img->channels < 1 || img->channels > 4 || (colour != 1 && colour != 3))
    {
      bm3d_job_message (job, "%s image has %d channel(s)%s; expected gray, "
                        "gray+alpha, RGB or RGBA", what, img->channels,
                        img->has_alpha ? " with alpha" : "");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (img->stride < (size_t) img->width * img->channels)
    {
      bm3d_job_message (job, "%s image row stride %zu is smaller than a row "
                        "(%zu values)", what, img->stride,
                        (size_t) img->width * img->channels);
      return BM3D_ERR_INVALID_STRIDE;
    }
  return BM3D_OK;
}

/* A strength the table of options' row `id` takes, or 0 (as 1).  */
static int
strength_ok (bm3d_job *job, bm3d_option_id id, const char *name, float v)
{
  const bm3d_option *option = &bm3d_options[id];

  if (v == 0.0f || bm3d_option_accepts (option, v))
    return 1;
  bm3d_job_message (job, "%s must be from %g to %g (got %g)", name,
                    option->min, option->max, (double) v);
  return 0;
}

/* The noise model: sigma for white noise; for a profile, one that fits
 * the image's colour channels (`colour`, 0 when not known yet) and
 * strengths in range.  */
bm3d_status
bm3d_check_noise (const bm3d_params *params, int colour, bm3d_job *job)
{
  if (params->noise == BM3D_NOISE_WHITE)
    {
      if (!isfinite (params->sigma)
          || params->sigma <= BM3D_SIGMA_MIN_EXCLUSIVE
          || params->sigma > BM3D_SIGMA_MAX)
        {
          bm3d_job_message (job, "sigma must be a number above 0 and at most "
                            "255 (got %g)", (double) params->sigma);
          return BM3D_ERR_INVALID_SIGMA;
        }
      return BM3D_OK;
    }
  if (params->noise != BM3D_NOISE_PROFILE)
    {
      bm3d_job_message (job, "unknown noise model %d", (int) params->noise);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (!strength_ok (job, BM3D_OPTION_STRENGTH, "strength", params->strength)
      || !strength_ok (job, BM3D_OPTION_CHROMA_STRENGTH, "chroma strength",
                       params->chroma_strength))
    return BM3D_ERR_INVALID_ARGUMENT;
  if (params->profile)
    {
      bm3d_noise_profile check = *params->profile;
      char why[200];

      if (bm3d_noise_profile_update (&check, why, sizeof why) != BM3D_OK)
        {
          bm3d_job_message (job, "invalid noise profile: %s", why);
          return BM3D_ERR_INVALID_ARGUMENT;
        }
      if (colour && check.channels != colour)
        {
          bm3d_job_message (job, "the noise profile is for %s images, this "
                            "one is %s", check.channels == 3 ? "colour"
                            : "gray", colour == 3 ? "colour" : "gray");
          return BM3D_ERR_INVALID_ARGUMENT;
        }
    }
  return BM3D_OK;
}

/* params->devices: BM3D_ALL_DEVICES, none, or a list of ordinals.  */
static bm3d_status
check_devices (const bm3d_params *params, bm3d_job *job)
{
  if (params->n_devices == BM3D_ALL_DEVICES || params->n_devices == 0)
    return BM3D_OK;
  if (params->n_devices < 0 || params->n_devices > BM3D_MAX_DEVICES
      || !params->devices)
    {
      bm3d_job_message (job, "the device list must hold 1 to %d devices "
                        "(got %d%s)", BM3D_MAX_DEVICES, params->n_devices,
                        params->devices ? "" : ", and no list");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  for (int i = 0; i < params->n_devices; i++)
    if (params->devices[i] < 0)
      {
        bm3d_job_message (job, "CUDA device must be 0 or more (device list "
                          "entry %d is %d)", i, params->devices[i]);
        return BM3D_ERR_INVALID_ARGUMENT;
      }
  return BM3D_OK;
}

bm3d_status
bm3d_check_call (const bm3d_image *in, const bm3d_image *out,
                 const bm3d_params *params, bm3d_job *job)
{
  bm3d_status status;

  if (!params)
    {
      bm3d_job_message (job, "parameters are missing");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if ((status = bm3d_check_image (in, "input", job)) != BM3D_OK
      || (status = bm3d_check_image (out, "output", job)) != BM3D_OK)
    return status;
  if (in->width != out->width || in->height != out->height
      || in->channels != out->channels || in->has_alpha != out->has_alpha)
    {
      bm3d_job_message (job, "output image must have the input's size and "
                        "channels");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (in->data == out->data)
    {
      bm3d_job_message (job, "output image must not be the input image");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if ((status = bm3d_check_noise (params,
                                  in->channels - (in->has_alpha ? 1 : 0),
                                  job)) != BM3D_OK)
    return status;
  if ((unsigned) params->mode > BM3D_MODE_ISOLINE)
    {
      bm3d_job_message (job, "unknown mode %d", (int) params->mode);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if ((unsigned) params->backend > BM3D_BACKEND_CUDA)
    {
      bm3d_job_message (job, "unknown backend %d", (int) params->backend);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (params->device < 0)
    {
      bm3d_job_message (job, "CUDA device must be 0 or more");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if ((status = check_devices (params, job)) != BM3D_OK)
    return status;
  if (job->env.test_fail_bad)
    {
      bm3d_job_message (job, "BM3D_TEST_FAIL_DEVICE must be DEVICE:TILES, "
                        "two numbers >= 0 (e.g. 1:3), not '%s'",
                        job->env.test_fail_text);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (params->threads < 0)
    {
      bm3d_job_message (job, "thread count must be 0 (all cores) or more");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  return BM3D_OK;
}
