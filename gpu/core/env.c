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

#include <errno.h>
#include <math.h>
#include <stdio.h>
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

/* atol of `name`, 0 when unset or negative.  */
static long
atol_or_0 (const char *name)
{
  const char *v = getenv (name);
  long l = v ? atol (v) : 0;

  return l > 0 ? l : 0;
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

/* BM3D_TEST_FAIL_DEVICE: "N:K", two decimal numbers >= 0.  */
static void
read_test_fail (bm3d_env *env)
{
  const char *v = env_value ("BM3D_TEST_FAIL_DEVICE");
  char *end;
  long n, k;

  if (!v)
    return;
  env->test_fail_set = 1;
  errno = 0;
  n = *v >= '0' && *v <= '9' ? strtol (v, &end, 10) : -1;
  k = n >= 0 && *end == ':' && end[1] >= '0' && end[1] <= '9'
      ? strtol (end + 1, &end, 10) : -1;
  if (n < 0 || n >= 1024 || k < 0 || errno || *end != '\0')
    {
      env->test_fail_bad = 1;
      snprintf (env->test_fail_text, sizeof env->test_fail_text, "%s", v);
      return;
    }
  env->test_fail_device = (int) n;
  env->test_fail_after = k;
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
  read_test_fail (env);
  env->split_min_pixels = atol_or_0 ("BM3D_SPLIT_MIN_PIXELS");
}
