/* BM3D Denoise: the engine's environment switches (env.h).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Every BM3D_* variable the library reads is read here and nowhere
 * else; docs/environment.md is the table of them all (the command's and
 * the plug-in's too).  A new switch gets a field in bm3d_env, a line
 * below and a row in that table.  */
#include "config.h"

#include "env.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The value of `name`, or NULL when unset or empty.  */
static const char *
env_value (const char *name)
{
  const char *v = getenv (name);

  return v && *v ? v : NULL;
}

/* atoi of `name`, 0 when unset.  */
static int
env_int (const char *name)
{
  const char *v = getenv (name);

  return v ? atoi (v) : 0;
}

/* BM3D_CUDA_STARTUP_SECONDS: a number >= 0, else not set.  */
static void
read_startup_seconds (bm3d_env *env)
{
  const char *v = env_value ("BM3D_CUDA_STARTUP_SECONDS");
  char *end;
  double s;

  if (!v)
    return;
  s = strtod (v, &end);
  if (*end == '\0' && s >= 0.0 && isfinite (s))
    {
      env->cuda_startup_set = 1;
      env->cuda_startup_seconds = s;
    }
}

void
bm3d_env_read (bm3d_env *env)
{
  const char *match = getenv ("BM3D_CUDA_MATCH");
  const char *pin = env_value ("BM3D_CUDA_PIN");
  const char *bounce = env_value ("BM3D_CUDA_BOUNCE");

  memset (env, 0, sizeof *env);
  env->cpu_trace = getenv ("BM3D_CPU_TRACE") != NULL;
  env->nlm_tile_side = env_int ("BM3D_NLM_TILE_SIDE");
  if (env->nlm_tile_side < 0)
    env->nlm_tile_side = 0;
  read_startup_seconds (env);
  if (match && strcmp (match, "rows") == 0)
    env->cuda_match = BM3D_ENV_MATCH_ROWS;
  else if (match && strcmp (match, "warp") == 0)
    env->cuda_match = BM3D_ENV_MATCH_WARP;
  env->cuda_bounce_off = bounce && atoi (bounce) == 0;
  env->cuda_bounce_threads = env_int ("BM3D_CUDA_BOUNCE_THREADS");
  env->cuda_pin_set = pin != NULL;
  env->cuda_pin = pin ? atoi (pin) : 0;
  env->cuda_times = getenv ("BM3D_CUDA_TIMES") != NULL;
  env->cuda_stream_side = env_int ("BM3D_CUDA_STREAM_SIDE");
}
