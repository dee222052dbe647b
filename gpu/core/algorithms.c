/* BM3D Denoise: the algorithm table.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Each mode's set-up (its options checked, its settings resolved for
 * the job's sigma, its context margin) and its backends, as the
 * dispatcher (engine.c) finds them by mode.  */
#include "config.h"

#include "engine.h"
#include "bm3d-options.h"

#include <math.h>

/* Is `v` 0 (the default) or a value the table of options' row `id`
 * takes?  Refuses with a message that says which rule it breaks.  */
static int
option_ok (bm3d_job *job, bm3d_option_id id, const char *name, double v)
{
  const bm3d_option *option = &bm3d_options[id];

  if (bm3d_option_accepts (option, v))
    return 1;
  if (!isfinite (v) || v < option->min || v > option->max)
    bm3d_job_message (job, "%s must be from %g to %g (or 0 for the default; "
                      "got %g)", name, option->min, option->max, v);
  else if (option->type == BM3D_OPTION_ODD)
    bm3d_job_message (job, "%s must be odd (got %d)", name, (int) v);
  else
    bm3d_job_message (job, "group sizes must be powers of two (got %d)",
                      (int) v);
  return 0;
}

static int
align_up (int v, int a)
{
  return (v + a - 1) / a * a;
}

static bm3d_status
setup_bm3d (bm3d_job *job)
{
  const bm3d_bm3d_options *o = &job->params->bm3d;
  bm3d_profile *p = &job->bm3d_settings;
  bm3d_phase_profile *phase[2] = { &p->hard, &p->wiener };
  const int group[2] = { o->group_max_hard, o->group_max_wiener };

  if (!option_ok (job, BM3D_OPTION_SEARCH, "search window", o->search)
      || !option_ok (job, BM3D_OPTION_GROUP_MAX_HARD,
                     "hard-threshold group size", o->group_max_hard)
      || !option_ok (job, BM3D_OPTION_GROUP_MAX_WIENER, "Wiener group size",
                     o->group_max_wiener)
      || !option_ok (job, BM3D_OPTION_STEP, "reference step", o->step)
      || !option_ok (job, BM3D_OPTION_LAMBDA_3D, "lambda_3d", o->lambda_3d)
      || !option_ok (job, BM3D_OPTION_CHROMA_SCALE, "chroma sigma scale",
                     o->chroma_scale))
    return BM3D_ERR_INVALID_ARGUMENT;

  bm3d_profile_for_sigma (job->white_sigma, p);
  for (int i = 0; i < 2; i++)
    {
      if (o->search)
        phase[i]->search = o->search;
      if (o->step)
        phase[i]->step = o->step;
      if (group[i])
        phase[i]->group_max = group[i];
    }
  if (o->lambda_3d > 0.0f)
    p->hard.lambda_3d = o->lambda_3d;
  if (o->chroma_scale > 0.0f && job->channels == 3)
    job->sigma[1] *= o->chroma_scale, job->sigma[2] *= o->chroma_scale;
  if (job->per_coefficient_noise)
    bm3d_noise_profile_tables (job, o->chroma_scale);

  job->phases = job->params->mode == BM3D_MODE_BM3D ? 2 : 1;
  /* Both phases share the step.  The standard window keeps the standard
   * margin; a wider one reaches further.  */
  job->align = p->hard.step;
  job->margin = align_up (BM3D_TILE_MARGIN > p->hard.search / 2 + 29
                          ? BM3D_TILE_MARGIN : p->hard.search / 2 + 29,
                          job->align);
  return BM3D_OK;
}

static bm3d_status
setup_nlm (bm3d_job *job)
{
  const bm3d_nlm_options *o = &job->params->nlm;
  bm3d_nlm_profile *p = &job->nlm;

  if (!option_ok (job, BM3D_OPTION_NLM_PATCH, "NL-means patch size",
                  o->patch)
      || !option_ok (job, BM3D_OPTION_NLM_SEARCH, "NL-means search window",
                     o->search)
      || !option_ok (job, BM3D_OPTION_NLM_H, "NL-means h", o->h))
    return BM3D_ERR_INVALID_ARGUMENT;
  bm3d_nlm_profile_for_sigma (job->white_sigma, job->channels, p);
  if (o->patch)
    p->patch_radius = o->patch / 2;
  if (o->search)
    p->search_radius = o->search / 2;
  if (o->h > 0.0f)
    p->h = o->h;
  p->gaussian = o->gaussian != 0;
  /* A pixel's estimate averages the patches that cover it, and each of
   * those compares patches across the search window.  */
  job->margin = 2 * p->patch_radius + p->search_radius;
  job->align = 1;
  return BM3D_OK;
}

static bm3d_status
setup_isoline (bm3d_job *job)
{
  const bm3d_isoline_options *o = &job->params->isoline;
  bm3d_isoline_profile *p = &job->isoline;

  if ((unsigned) o->variant > BM3D_ISOLINE_PIPD)
    {
      bm3d_job_message (job, "unknown isoline variant %d", (int) o->variant);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  if (!option_ok (job, BM3D_OPTION_ISOLINE_LENGTH, "isoline length",
                  o->length_max)
      || !option_ok (job, BM3D_OPTION_ISOLINE_SEGMENT, "isoline segment",
                     o->segment)
      || !option_ok (job, BM3D_OPTION_ISOLINE_T_MAX, "isoline T_max",
                     o->t_max)
      || !option_ok (job, BM3D_OPTION_ISOLINE_T2_MAX, "isoline T2_max",
                     o->t2_max))
    return BM3D_ERR_INVALID_ARGUMENT;
  bm3d_isoline_profile_for_sigma (job->white_sigma, p);
  p->variant = o->variant;
  if (o->length_max)
    p->length_max = o->length_max;
  if (o->segment)
    p->segment = o->segment;
  if (o->t_max > 0.0f)
    p->t_max = o->t_max;
  if (o->t2_max > 0.0f)
    p->t2_max = o->t2_max;
  p->thicken = o->thicken != 0;
  if (p->segment > p->length_max)
    {
      bm3d_job_message (job, "isoline segment (%d) is longer than the "
                        "isoline (%d)", p->segment, p->length_max);
      return BM3D_ERR_INVALID_ARGUMENT;
    }
  /* A pixel's estimate reads its isoline and regions (the planes'
   * padding), and the residual step reads estimates around it.  */
  job->margin = bm3d_isoline_reach (p) + BM3D_ISOLINE_RESIDUAL;
  job->align = 1;
  return BM3D_OK;
}

#ifdef HAVE_CUDA
#define CUDA_BACKEND(tile, side, image) tile, side, image
#else
#define CUDA_BACKEND(tile, side, image) NULL, NULL, NULL
#endif

static const bm3d_algorithm algorithms[] =
{
  { BM3D_MODE_BM3D, BM3D_COLOUR_OPPONENT, 0, setup_bm3d,
    bm3d_cpu_tile, bm3d_cpu_tile_side,
    bm3d_cpu_tiles, bm3d_cpu_tiles_in_flight,
    CUDA_BACKEND (bm3d_cuda_tile, bm3d_cuda_tile_side, bm3d_cuda_image) },
  { BM3D_MODE_BM3D_FAST, BM3D_COLOUR_OPPONENT, 0, setup_bm3d,
    bm3d_cpu_tile, bm3d_cpu_tile_side,
    bm3d_cpu_tiles, bm3d_cpu_tiles_in_flight,
    CUDA_BACKEND (bm3d_cuda_tile, bm3d_cuda_tile_side, bm3d_cuda_image) },
  { BM3D_MODE_NLM, BM3D_COLOUR_RGB, 1, setup_nlm,
    bm3d_nlm_cpu_tile, bm3d_nlm_cpu_tile_side, NULL, NULL,
    CUDA_BACKEND (bm3d_nlm_cuda_tile, bm3d_nlm_cuda_tile_side,
                  bm3d_nlm_cuda_image) },
  { BM3D_MODE_ISOLINE, BM3D_COLOUR_OPPONENT, 0, setup_isoline,
    bm3d_isoline_cpu_tile, bm3d_isoline_cpu_tile_side, NULL, NULL,
    CUDA_BACKEND (bm3d_isoline_cuda_tile, bm3d_isoline_cuda_tile_side,
                  bm3d_isoline_cuda_image) },
};

const bm3d_algorithm *
bm3d_algorithm_for_mode (bm3d_mode mode)
{
  return &algorithms[mode];
}
