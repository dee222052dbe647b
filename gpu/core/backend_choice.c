/* BM3D Denoise: the backend for a job under "auto".
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * bm3d_backend_for_job (): the CPU when it would finish before the
 * device has started, else the device; and the device's warm-up.  */
#include "config.h"

#include "engine.h"

#include <math.h>
#include <stdlib.h>

void
bm3d_backend_warm_up (const bm3d_params *params)
{
  if (params && params->backend == BM3D_BACKEND_CPU)
    return;
  if (!params)
    bm3d_cuda_warm_up (0, NULL, 0);
  else
    bm3d_cuda_warm_up (params->device, params->devices, params->n_devices);
}

/* ---- auto: the CPU or the device for a job of known shape ----------
 *
 * What a CPU run costs, in seconds per pixel and colour channel per
 * thread, with each mode's default settings at sigma 20.  From the H100
 * machine's 16 host cores (the machine where the choice matters): one
 * 512x512 RGB JPEG (786,432 values), `bm3d-denoise --sigma 20 --mode M
 * --backend cpu`, whole process, five runs each at 5cdeaf2
 * (docs/user-wait.md), the middle of each range times 16 threads over
 * the values: BM3D 0.227-0.335 s, bm3d-fast 0.089-0.092, NL-means
 * 0.056-0.072, isoline 0.027-0.033.  Whole processes (reading and
 * writing the file included) on 16 threads, which a 512x512 image
 * keeps busy poorly: per thread that is 7 to 10 times what the 2-core
 * machine measures on one thread (the same photo, `-t 1`, engine time:
 * 0.575, 0.204, 0.136, 0.046 s), so the estimate runs high on fewer
 * threads and on larger images, which picks the device.  */
#define CPU_SECONDS_BM3D       5.72e-6
#define CPU_SECONDS_BM3D_FAST  1.84e-6
#define CPU_SECONDS_NLM        1.30e-6
#define CPU_SECONDS_ISOLINE    6.10e-7
/* Estimating a camera-noise profile from the image first (no profile
 * given): 0.014 s on one thread of the 2-core machine for the same
 * photo (isoline with and without --noise camera), times 8 as above.  */
#define CPU_SECONDS_PROFILE    1.4e-7

/* What using the device adds to a process on the H100 machine
 * (docs/user-wait.md): a program that creates the context, allocates,
 * launches one kernel and exits takes 0.29-0.33 s; inside a denoise of
 * a small photo 0.19-0.21 s of the creation was still waited for after
 * the read, in whole processes of 0.32-0.48 s against the CPU's
 * 0.03-0.34.  The GPU's own work is not counted on top, so the CPU is
 * picked only when it is done before the device would be.  */
#define CUDA_STARTUP_SECONDS   0.3

/* The settings the constants above were measured with.  */
#define COST_SIGMA             20.0f
#define COST_BM3D_SEARCH       39
#define COST_BM3D_STEP         3

static double
square (double v)
{
  return v * v;
}

/* How much more a BM3D job's matching costs than the default's: the
 * search window's area and the reference patches' density.  */
static double
bm3d_cost_scale (const bm3d_bm3d_options *o)
{
  int search = o->search > 0 ? o->search : COST_BM3D_SEARCH;
  int step = o->step > 0 ? o->step : COST_BM3D_STEP;

  return square ((double) search / COST_BM3D_SEARCH)
         * square ((double) COST_BM3D_STEP / step);
}

/* NL-means compares patches across its search window: its area against
 * the window sigma 20 gives (the table's windows grow with sigma).  */
static double
nlm_cost_scale (const bm3d_params *params, int channels)
{
  bm3d_nlm_profile measured, job;
  float sigma = params->noise == BM3D_NOISE_PROFILE ? PHOTO_SIGMA_MAX
                                                    : params->sigma;

  bm3d_nlm_profile_for_sigma (COST_SIGMA, channels, &measured);
  bm3d_nlm_profile_for_sigma (sigma, channels, &job);
  if (params->nlm.search > 0)
    job.search_radius = params->nlm.search / 2;
  return square ((2.0 * job.search_radius + 1.0)
                 / (2.0 * measured.search_radius + 1.0));
}

/* Seconds per pixel and channel on one thread for `params`.  */
static double
cpu_cost_per_value (const bm3d_params *params, int channels)
{
  double cost;

  switch (params->mode)
    {
    case BM3D_MODE_BM3D:
      cost = CPU_SECONDS_BM3D * bm3d_cost_scale (&params->bm3d);
      break;
    case BM3D_MODE_BM3D_FAST:
      cost = CPU_SECONDS_BM3D_FAST * bm3d_cost_scale (&params->bm3d);
      break;
    case BM3D_MODE_NLM:
      cost = CPU_SECONDS_NLM * nlm_cost_scale (params, channels);
      break;
    default:
      cost = CPU_SECONDS_ISOLINE;
      break;
    }
  if (params->noise == BM3D_NOISE_PROFILE && !params->profile)
    cost += CPU_SECONDS_PROFILE;
  return cost;
}

#ifdef HAVE_CUDA
/* The device's start-up estimate, or BM3D_CUDA_STARTUP_SECONDS.  */
static double
cuda_startup_seconds (void)
{
  bm3d_env env;

  bm3d_env_read (&env);
  return env.cuda_startup_set ? env.cuda_startup_seconds
                              : CUDA_STARTUP_SECONDS;
}
#endif

bm3d_backend
bm3d_backend_for_job (const bm3d_params *params, int width, int height,
                      int channels, int images, double *cpu_seconds,
                      double *startup_seconds)
{
  bm3d_params defaults;
  int threads;
  double cpu, startup = 0.0;

  if (!params)
    {
      bm3d_params_init (&defaults);
      params = &defaults;
    }
  threads = bm3d_params_threads (params);
  if (channels != 1)
    channels = 3;
  cpu = (unsigned) params->mode <= BM3D_MODE_ISOLINE
        && width > 0 && height > 0 && images > 0
        ? cpu_cost_per_value (params, channels) * width * height * channels
          * images / threads
        : HUGE_VAL;
#ifdef HAVE_CUDA
  startup = cuda_startup_seconds ();
#endif
  if (cpu_seconds)
    *cpu_seconds = cpu;
  if (startup_seconds)
    *startup_seconds = startup;
#ifdef HAVE_CUDA
  if (params->backend == BM3D_BACKEND_CUDA
      || (params->backend == BM3D_BACKEND_AUTO
          && (images != 1 || !(cpu < startup))))
    return BM3D_BACKEND_CUDA;
#endif
  return BM3D_BACKEND_CPU;
}
