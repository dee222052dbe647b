/* BM3D Denoise: the engine's environment switches, read in one place.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * Switches for tests and benchmarks, never needed by users: each one
 * is listed, with its values and its reader, in docs/environment.md.
 * bm3d_env_read () is the only place the library reads the
 * environment.  A call reads it once, at its start (bm3d_job_init ()),
 * so a program may change a switch between calls, as the tests do, and
 * every step of one call sees the same values.  Not installed.  */
#ifndef BM3D_ENV_H
#define BM3D_ENV_H

#ifdef __cplusplus
extern "C" {
#endif

/* BM3D_CUDA_MATCH: the BM3D matcher on the device.  */
typedef enum
{
  BM3D_ENV_MATCH_BY_SIZE = 0,   /* unset or unknown: by the batch's size */
  BM3D_ENV_MATCH_ROWS,          /* "rows": block_match_rows wherever it
                                 * applies                              */
  BM3D_ENV_MATCH_WARP           /* "warp": block_match only             */
} bm3d_env_match;

/* Each switch as its reader uses it; 0 (or unset) means "not set".  */
typedef struct bm3d_env
{
  int            cpu_trace;            /* BM3D_CPU_TRACE set, any value */
  int            nlm_tile_side;        /* BM3D_NLM_TILE_SIDE, or 0      */
  int            cuda_startup_set;     /* BM3D_CUDA_STARTUP_SECONDS a   */
  double         cuda_startup_seconds; /* number >= 0, and its value    */
  bm3d_env_match cuda_match;           /* BM3D_CUDA_MATCH               */
  int            cuda_bounce_off;      /* BM3D_CUDA_BOUNCE=0            */
  int            cuda_bounce_threads;  /* BM3D_CUDA_BOUNCE_THREADS, or 0 */
  int            cuda_pin_set;         /* BM3D_CUDA_PIN set, and its    */
  int            cuda_pin;             /* value                         */
  int            cuda_times;           /* BM3D_CUDA_TIMES set           */
  int            cuda_stream_side;     /* BM3D_CUDA_STREAM_SIDE, or 0   */
  /* BM3D_TEST_FAIL_DEVICE=N:K: device N fails at its tile K + 1 (K
   * tiles done, counted over the process), as a device that faults.
   * Set and malformed: test_fail_bad and the text, which every denoise
   * call refuses.  */
  int            test_fail_set;
  int            test_fail_device;
  long           test_fail_after;
  int            test_fail_bad;
  char           test_fail_text[32];
  /* BM3D_SPLIT_MIN_PIXELS: split images over several devices from this
   * many pixels (tests split small ones); 0 when unset.  */
  long           split_min_pixels;
} bm3d_env;

/* Fill `env` from the environment.  */
void bm3d_env_read (bm3d_env *env);

#ifdef __cplusplus
}
#endif

#endif /* BM3D_ENV_H */
