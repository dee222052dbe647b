/* BM3D Denoise: the engine's dispatcher.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The public entry points: each checks the call (check.c), settles the
 * job's noise (white, or a camera's profile given or estimated, with
 * the photograph's gain: the noise folder's functions), sets the
 * algorithm up (algorithms.c), picks the backend and falls back from
 * CUDA to the CPU.  The backends run tile by tile through the tiler
 * (tiler.c) or on the device whole.  The dispatcher calls into the
 * algorithm and noise folders; they call back only the job's helpers
 * (job.c), never this file.  */
#include "config.h"

#include "engine.h"
#include "noise/noise_vst.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- backends -------------------------------------------------------- */

/* The host's OpenMP threads wait for more work by spinning a while
 * after each parallel region (libgomp's default: milliseconds), which
 * right after camera mode's estimate took the cores the device's copy
 * threads need: on the H200 machine the first tile's upload waited 4 to
 * 6 ms in camera mode against 0.5 in white mode, and 0.5 again with
 * OMP_WAIT_POLICY=passive.  Released, they are made again for the next
 * region (a fraction of a millisecond).  */
static void
release_host_threads (void)
{
#ifdef _OPENMP
  omp_pause_resource_all (omp_pause_soft);
#endif
}

static bm3d_status
run_backend (const bm3d_image *in, bm3d_image *out, bm3d_job *job,
             bm3d_backend backend)
{
  job->tile_base = 0.0;
  job->report->backend_used = backend;
  if (backend == BM3D_BACKEND_CUDA)
    {
      release_host_threads ();
      return bm3d_run_cuda (in, out, job);
    }
  return bm3d_run_cpu (in, out, job);
}

int
bm3d_cuda_error_recoverable (bm3d_status status)
{
  return status == BM3D_ERR_BACKEND_UNAVAILABLE
         || status == BM3D_ERR_BACKEND_FAILED
         || status == BM3D_ERR_OUT_OF_MEMORY;
}

/* Is CUDA usable for this job?  Writes the reason when not.  */
static int
cuda_usable (const bm3d_job *job, char *why, size_t why_len)
{
  if (!job->algorithm->cuda_tile)
    {
      snprintf (why, why_len, "built without CUDA support");
      return 0;
    }
  if (!bm3d_cuda_available (why, why_len))
    return 0;
  if (job->params->device >= bm3d_cuda_device_count ())
    {
      snprintf (why, why_len, "no CUDA device %d (this machine has %d)",
                job->params->device, bm3d_cuda_device_count ());
      return 0;
    }
  return bm3d_job_devices_exist (job, why, why_len);
}

/* Run on the backend asked for; under "auto", on the CPU when CUDA is
 * missing or fails, and say so.  */
static bm3d_status
run_with_fallback (const bm3d_image *in, bm3d_image *out, bm3d_job *job,
                   bm3d_backend wanted)
{
  char why[200] = "";
  bm3d_status status;

  if (wanted == BM3D_BACKEND_CPU)
    return run_backend (in, out, job, BM3D_BACKEND_CPU);

  if (!cuda_usable (job, why, sizeof why))
    {
      if (wanted == BM3D_BACKEND_CUDA)
        {
          bm3d_job_message (job, "CUDA backend unavailable: %s", why);
          return BM3D_ERR_BACKEND_UNAVAILABLE;
        }
      /* Automatic: say once why the work ran on the CPU, so a user who
       * expected the GPU learns what is missing.  */
      status = run_backend (in, out, job, BM3D_BACKEND_CPU);
      if (status == BM3D_OK)
        {
          job->report->fell_back = BM3D_FALLBACK_UNAVAILABLE;
          bm3d_job_message (job, "CUDA unavailable (%s); denoised on the CPU",
                            why);
        }
      return status;
    }

  status = run_backend (in, out, job, BM3D_BACKEND_CUDA);
  if (wanted == BM3D_BACKEND_AUTO && bm3d_cuda_error_recoverable (status))
    {
      char cuda_message[sizeof job->report->message];

      memcpy (cuda_message, job->report->message, sizeof cuda_message);
      job->report->seconds_phase[0] = job->report->seconds_phase[1] = 0.0;
      status = run_backend (in, out, job, BM3D_BACKEND_CPU);
      job->report->fell_back = BM3D_FALLBACK_FAILED;
      if (status == BM3D_OK)
        bm3d_job_message (job, "CUDA failed (%s); denoised on the CPU instead",
                          cuda_message);
    }
  return status;
}

static void job_noise (bm3d_job *job);

/* Fill the parts of `job` every algorithm shares.  */
static void
job_prepare (bm3d_job *job, const bm3d_image *in)
{
  const bm3d_params *params = job->params;

  job->algorithm = bm3d_algorithm_for_mode (params->mode);
  job->colour_space = job->algorithm->colour_space;
  job->threads = bm3d_params_threads (params);
  job->channels = in->channels - (in->has_alpha ? 1 : 0);
  job_noise (job);
}

/* The deviation of a profile's noise in one pixel of one channel (RMS
 * over the channels): the planes' noise is independent, so a channel's
 * variance is the sum of theirs through the inverse colour transform.  */
static float
pixel_sigma (const bm3d_noise_profile *prof)
{
  double var = 0.0;

  if (prof->channels == 1)
    return prof->sigma[0];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      var += bm3d_colour_inv[r][c] * bm3d_colour_inv[r][c]
             * prof->sigma[c] * prof->sigma[c] / 3.0;
  return (float) sqrt (var);
}

/* The noise a job's parameters follow (white_sigma, sigma[]) and, for
 * BM3D with a profile, per_coefficient_noise; setup_bm3d fills the
 * tables (bm3d_noise_profile_tables ()).  The profile, given or
 * estimated, is in job->noise_profile already (job_camera_noise ()).  */
static void
job_noise (bm3d_job *job)
{
  const bm3d_params *params = job->params;

  job->white_sigma = params->sigma;
  job->per_coefficient_noise = 0;
  if (params->noise == BM3D_NOISE_PROFILE)
    {
      float k = params->strength > 0.0f ? params->strength : 1.0f;
      const bm3d_noise_profile *prof = bm3d_job_noise_profile (job);
      float measured;

      job->per_coefficient_noise = params->mode == BM3D_MODE_BM3D
                                   || params->mode == BM3D_MODE_BM3D_FAST;
      /* BM3D thresholds each coefficient by the profile's own variance;
       * its other settings (matching distance, group sizes) follow the
       * noise of a pixel, which measured better on the synthetic phone
       * set (docs/camera-noise.md) than the white sigma, the level a
       * filter without a transform needs for correlated noise.  */
      measured = (job->per_coefficient_noise ? pixel_sigma (prof)
                                             : prof->sigma_white)
                 * job->photo_gain;
      /* Modes without a transform filter white noise of this sigma
       * alone: capped as --sigma auto caps it (bm3d_photo_sigma ()), since
       * more is texture the profile took for noise.  The strength then
       * scales what is left, as it scales the profile.  */
      if (! job->per_coefficient_noise && measured > PHOTO_SIGMA_MAX)
        measured = PHOTO_SIGMA_MAX;
      job->white_sigma = measured * k;
      if (job->white_sigma > BM3D_SIGMA_MAX)
        job->white_sigma = BM3D_SIGMA_MAX;
    }
  for (int c = 0; c < job->channels; c++)
    job->sigma[c] = job->white_sigma
                    * (job->channels == 3
                       && job->colour_space == BM3D_COLOUR_OPPONENT
                       ? bm3d_colour_noise_gain[c] : 1.0f);
}

/* The device start-up a call waits for, counted apart from its work.  */
void
bm3d_job_wait_for_device (bm3d_job *job)
{
  if (job->params->backend != BM3D_BACKEND_CPU)
    job->report->seconds_startup += bm3d_cuda_wait_ready (job->params->device);
}

/* Camera mode: the job's noise profile (a copy of the one given, else
 * the input's own, estimated) and the photograph's gain
 * (bm3d_photo_gain ()), measured on the image the filter sees: through
 * the profile's stabilising transform when it has a level function.  */
static bm3d_status
job_camera_noise (bm3d_job *job, const bm3d_image *in)
{
  const bm3d_params *params = job->params;
  bm3d_vst_table fwd[BM3D_NOISE_PLANES];
  bm3d_status status;

  if (params->profile)
    {
      /* Checked by bm3d_check_call: the copy's derived values are
       * filled.  */
      job->noise_profile = *params->profile;
      bm3d_noise_profile_update (&job->noise_profile, NULL, 0);
    }
  else
    {
      /* Camera noise with no profile given: the input's own, estimated
       * on the device when it can (and so after its start).  */
      bm3d_job_wait_for_device (job);
      status = bm3d_estimate_profile_job (in, job, &job->noise_profile, 0.0);
      if (status != BM3D_OK)
        return status;
    }
  /* Unmeasured noise is white noise of the finest scale's reading,
   * which the report holds already: no gain to find.  */
  if (job->report->noise_unmeasured)
    return BM3D_OK;
  if (bm3d_nlf_present (&job->noise_profile))
    {
      bm3d_vst_forward (&job->noise_profile, fwd);
      job->read_through = fwd;
    }
  status = bm3d_photo_gain (in, job);
  job->read_through = NULL;
  return status;
}

/* The filter on `in` once the job's noise is known.  */
static bm3d_status
denoise_prepared (const bm3d_image *in, bm3d_image *out, bm3d_job *job)
{
  bm3d_status status;

  job_prepare (job, in);
  job->report->white_sigma = job->white_sigma;
  status = job->algorithm->setup (job);
  /* As late as can be: the set-up above overlaps the device's start.  */
  if (status == BM3D_OK)
    {
      bm3d_job_wait_for_device (job);
      status = run_with_fallback (in, out, job, job->params->backend);
    }
  return status;
}

/* Camera mode with a level function: the transform the backends apply
 * around the filter, its inverse the level function's unbiased one for
 * the noise the filter assumes in the stabilised domain (a pixel's,
 * times the photograph's gain), clipped as the input was.  */
static const bm3d_vst *
job_vst (bm3d_job *job, bm3d_vst *vst)
{
  float sigma;

  if (job->params->noise != BM3D_NOISE_PROFILE
      || job->report->noise_unmeasured
      || !bm3d_nlf_present (&job->noise_profile))
    return NULL;
  sigma = pixel_sigma (&job->noise_profile) * job->photo_gain;
  bm3d_vst_init (vst, &job->noise_profile, sigma, job->params->clipped);
  return vst;
}

/* Camera mode's noise measured on `in` (job_camera_noise ()) and, when
 * its profile has a level function, the stabilising tables into `*vst`
 * (the caller frees them) and job->vst.  */
static bm3d_status
job_camera (bm3d_job *job, const bm3d_image *in, bm3d_vst **vst)
{
  bm3d_status status = job_camera_noise (job, in);

  *vst = NULL;
  if (status != BM3D_OK || !bm3d_nlf_present (&job->noise_profile))
    return status;
  if (!(*vst = malloc (sizeof **vst)))
    {
      bm3d_job_message (job, "out of memory for the stabilising tables");
      return BM3D_ERR_OUT_OF_MEMORY;
    }
  job->vst = job_vst (job, *vst);
  return BM3D_OK;
}

bm3d_status
bm3d_denoise (const bm3d_image *in, bm3d_image *out,
              const bm3d_params *params, bm3d_report *report)
{
  bm3d_report scratch;
  bm3d_job job;
  bm3d_vst *vst = NULL;
  bm3d_status status;
  double start = bm3d_seconds ();

  if (!report)
    report = &scratch;
  memset (report, 0, sizeof *report);
  bm3d_job_init (&job, params, report);

  status = bm3d_check_call (in, out, params, &job);
  if (status != BM3D_OK)
    return status;

  if (params->noise == BM3D_NOISE_PROFILE
      && (status = job_camera (&job, in, &vst)) != BM3D_OK)
    {
      free (vst);
      return status;
    }
  status = denoise_prepared (in, out, &job);
  if (status == BM3D_OK && !job.vst && params->clipped
      && job.algorithm->unclips)
    bm3d_unclip (out, job.white_sigma, job.threads);
  free (vst);
  report->seconds_total = bm3d_seconds () - start;
  return status;
}

/* Camera mode on integer pixels: the noise is measured on the host
 * from floats (job_camera ()), a copy of `in` made for that and freed
 * before the filter, which reads the integers on the device (no copy
 * when a profile given carries what the gain would read).  Through
 * the float path (pixels.c: the whole image converted both ways on the
 * host, four times the bytes sent) camera mode on 8-bit 12 MP RGB took
 * 1.60 to 1.73 times white mode's time on the H200 machine; this way
 * 1.26 to 1.36 (BENCHMARKS.md, "Camera mode on 8-bit pixels").  */
static bm3d_status
pixels_camera (const bm3d_pixels *in, bm3d_job *job, bm3d_vst **vst)
{
  const bm3d_noise_profile *given = job->params->profile;
  bm3d_image copy;
  bm3d_status status;

  *vst = NULL;
  /* A profile given with its measures (the command's own estimate on
   * floats, a batch reader's) leaves the gain nothing to read: no copy,
   * whose 144 MB at 12 MP cost 5 ms and more on a busy host.  */
  if (given && ! bm3d_photo_gain_reads (given))
    {
      bm3d_image unread = { in->width, in->height, in->channels,
                            in->has_alpha, 0, NULL };

      return job_camera (job, &unread, vst);
    }
  copy = bm3d_pixels_float_copy (in, bm3d_params_threads (job->params));
  if (!copy.data)
    {
      bm3d_job_message (job, "out of memory for the float copy of a "
                        "%dx%d image", in->width, in->height);
      return BM3D_ERR_OUT_OF_MEMORY;
    }
  status = job_camera (job, &copy, vst);
  job->report->peak_host_bytes += copy.stride * copy.height * sizeof (float);
  free (copy.data);
  return status;
}

/* Integer pixels on the device, converted there (job->pixels_in):
 * bm3d_denoise () without the float images.  */
bm3d_status
bm3d_denoise_on_device (const bm3d_pixels *in, bm3d_pixels *out,
                        const bm3d_params *params, bm3d_report *report)
{
  bm3d_image fin = { in->width, in->height, in->channels, in->has_alpha,
                     in->stride, (float *) in->data };
  bm3d_image fout = { out->width, out->height, out->channels,
                      out->has_alpha, out->stride, (float *) out->data };
  bm3d_params clipped = *params;
  bm3d_unclip_table *unclip = NULL;
  bm3d_vst *vst = NULL;
  char why[200];
  bm3d_job job;
  bm3d_status status;
  double start = bm3d_seconds ();

  memset (report, 0, sizeof *report);
  /* Integer values are within 0..255 (bm3d_image_within_range).  */
  clipped.clipped = 1;
  bm3d_job_init (&job, &clipped, report);
  if ((status = bm3d_check_call (&fin, &fout, &clipped, &job)) != BM3D_OK)
    return status;
  if (params->backend == BM3D_BACKEND_CPU)
    return BM3D_ERR_NOT_IMPLEMENTED;
  job.algorithm = bm3d_algorithm_for_mode (params->mode);
  if (!cuda_usable (&job, why, sizeof why))
    return BM3D_ERR_NOT_IMPLEMENTED;
  if (params->noise == BM3D_NOISE_PROFILE
      && (status = pixels_camera (in, &job, &vst)) != BM3D_OK)
    {
      free (vst);
      return status;
    }
  job_prepare (&job, &fin);
  report->white_sigma = job.white_sigma;
  status = job.algorithm->setup (&job);
  if (status == BM3D_OK && job.algorithm->unclips)
    {
      if ((unclip = (bm3d_unclip_table *) malloc (sizeof *unclip)))
        {
          bm3d_unclip_table_init (unclip, job.white_sigma);
          job.unclip = unclip;
        }
      else
        {
          bm3d_job_message (&job, "out of memory for the unclip table");
          status = BM3D_ERR_OUT_OF_MEMORY;
        }
    }
  if (status == BM3D_OK)
    {
      job.pixels_in = in;
      job.pixels_out = out;
      bm3d_job_wait_for_device (&job);
      report->backend_used = BM3D_BACKEND_CUDA;
      release_host_threads ();
      status = bm3d_run_cuda (&fin, &fout, &job);
    }
  free (unclip);
  free (vst);
  report->seconds_total = bm3d_seconds () - start;
  return status;
}

bm3d_status
bm3d_context_margin (const bm3d_params *params, int colour_channels,
                     int *margin, int *align, bm3d_report *report)
{
  bm3d_report scratch;
  bm3d_job job;
  bm3d_status status;

  if (!report)
    report = &scratch;
  memset (report, 0, sizeof *report);
  bm3d_job_init (&job, params, report);
  if (!params || !margin || !align)
    {
      bm3d_job_message (&job, "parameters are missing");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if ((status = bm3d_check_noise (params, colour_channels, &job)) != BM3D_OK)
    return status;
  if ((unsigned) params->mode > BM3D_MODE_ISOLINE)
    {
      bm3d_job_message (&job, "unknown mode %d", (int) params->mode);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (colour_channels != 1 && colour_channels != 3)
    {
      bm3d_job_message (&job, "colour channels must be 1 or 3 (got %d)",
                        colour_channels);
      return BM3D_ERR_INVALID_ARGUMENT;
    }

  /* What bm3d_denoise () would set up for such an image, without one.  */
  job.algorithm = bm3d_algorithm_for_mode (params->mode);
  job.colour_space = job.algorithm->colour_space;
  job.channels = colour_channels;
  if (params->noise == BM3D_NOISE_PROFILE && params->profile)
    {
      job.noise_profile = *params->profile;
      bm3d_noise_profile_update (&job.noise_profile, NULL, 0);
    }
  else if (params->noise == BM3D_NOISE_PROFILE)
    /* Not estimated yet: the margins do not depend on the level below
     * sigma 40, and a photograph's noise is below it.  */
    bm3d_noise_profile_init_white (&job.noise_profile, colour_channels, 25.0f);
  job_noise (&job);
  for (int c = 0; c < colour_channels; c++)
    job.sigma[c] = job.white_sigma;
  status = job.algorithm->setup (&job);
  if (status != BM3D_OK)
    return status;
  *margin = job.margin;
  *align = job.align > 0 ? job.align : 1;
  return BM3D_OK;
}

/* ---- the estimates -------------------------------------------------- */

/* The estimate reads a bounded sample of the image (noise_estimate.c):
 * a few milliseconds on the host, less than uploading the image to a
 * device would take, so it runs on the host whatever params->backend.  */
bm3d_status
bm3d_estimate_sigma (const bm3d_image *in, const bm3d_params *params,
                     float *sigma, bm3d_report *report)
{
  bm3d_report scratch;
  bm3d_job job;
  bm3d_status status;
  float white = 0.0f, kurtosis = 0.0f;
  double start = bm3d_seconds ();

  if (!report)
    report = &scratch;
  memset (report, 0, sizeof *report);
  bm3d_job_init (&job, params, report);
  if (!params || !sigma)
    {
      bm3d_job_message (&job, !params ? "parameters are missing"
                                      : "no place for the estimate");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if ((status = bm3d_check_image (in, "input", &job)) != BM3D_OK)
    return status;
  job.threads = bm3d_params_threads (params);
  job.channels = 1;
  job.tile_base = 0.0;
  job.tile_share = 1.0;
  report->backend_used = BM3D_BACKEND_CPU;

  /* The white model's estimate, robust to texture, reads the finest
   * scale.  That is right for white noise, but a photograph's processed
   * noise has next to none there: on the shared real photographs it
   * reads 0.23 where the best white sigma is 10 to 30.  For such noise
   * the white sigma that suits it comes from its profile, as camera
   * mode's does (BENCHMARKS.md, "Real photographs").  */
  status = bm3d_estimate_cpu (in, &job, &white, &kurtosis);
  if (status == BM3D_OK)
    status = bm3d_photo_sigma (in, &job, &white, kurtosis);
  if (status == BM3D_OK)
    *sigma = white;
  report->seconds_total = bm3d_seconds () - start;
  return status;
}

bm3d_status
bm3d_estimate_noise_profile (const bm3d_image *in, const bm3d_params *params,
                             bm3d_noise_profile *profile,
                             bm3d_report *report)
{
  bm3d_report scratch;
  bm3d_job job;
  bm3d_status status;
  double start = bm3d_seconds ();

  if (!report)
    report = &scratch;
  memset (report, 0, sizeof *report);
  bm3d_job_init (&job, params, report);
  if (!params || !profile)
    {
      bm3d_job_message (&job, !params ? "parameters are missing"
                                      : "no place for the profile");
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if ((status = bm3d_check_image (in, "input", &job)) != BM3D_OK)
    return status;
  report->backend_used = BM3D_BACKEND_CPU;
  bm3d_job_wait_for_device (&job);
  status = bm3d_estimate_profile_job (in, &job, profile, 1.0);
  report->seconds_total = bm3d_seconds () - start;
  return status;
}
