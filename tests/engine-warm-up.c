/* bm3d_backend_warm_up (): the device started on a thread of its own.
 * Harmless never called, called twice or from several threads at once,
 * for the CPU backend, and in a process that exits while the thread may
 * still be in the driver (run in child processes: an exit that crashed
 * or hung would show here).  With CUDA and a device, the first denoise
 * finds it started; without, it says why on the CPU, as before.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bm3d.h"
#include "engine-tap.h"

#define SIDE 48

/* A small denoise under `backend`: its status, and the report.  */
static bm3d_status
denoise_small (bm3d_backend backend, bm3d_report *report)
{
  static float in[SIDE * SIDE], out[SIDE * SIDE];
  uint64_t seed = 5;
  bm3d_image a = { SIDE, SIDE, 1, 0, SIDE, in };
  bm3d_image b = { SIDE, SIDE, 1, 0, SIDE, out };
  bm3d_params params;

  for (int i = 0; i < SIDE * SIDE; i++)
    in[i] = (float) (100.0 + 20.0 * rng_gauss (&seed));
  bm3d_params_init (&params);
  params.backend = backend;
  params.sigma = 20.0f;
  params.threads = 1;
  return bm3d_denoise (&a, &b, &params, report);
}

/* What a child process does; its exit status is the verdict.  */
typedef enum
{
  CHILD_EXIT_AT_ONCE,     /* warm up, then exit through exit ()         */
  CHILD_EXIT_LATER,       /* ... after a pause (run_child's `pause_ms`) */
  CHILD_RETURN_AT_ONCE,   /* warm up, then return from main             */
  CHILD_DENOISE           /* warm up, then denoise under "auto"         */
} Child;

static int
run_child (Child what, int pause_ms)
{
  bm3d_report report;
  struct timespec pause = { pause_ms / 1000, pause_ms % 1000 * 1000000L };

  /* A hang in the exit path ends here rather than the whole test.  */
  alarm (60);
  bm3d_backend_warm_up (NULL);
  switch (what)
    {
    case CHILD_EXIT_AT_ONCE:
      exit (0);
    case CHILD_EXIT_LATER:
      nanosleep (&pause, NULL);
      exit (0);
    case CHILD_RETURN_AT_ONCE:
      return 0;
    case CHILD_DENOISE:
      if (denoise_small (BM3D_BACKEND_AUTO, &report) != BM3D_OK)
        return 2;
      if (!(report.seconds_startup >= 0.0
            && report.seconds_startup <= report.seconds_total))
        return 3;
      return 0;
    }
  return 4;
}

/* The exit status of a child doing `what`, or -1 after a signal.  */
static int
in_child (Child what, int pause_ms)
{
  int status;
  pid_t pid;

  fflush (stdout);
  pid = fork ();
  if (pid == 0)
    exit (run_child (what, pause_ms));
  if (pid < 0 || waitpid (pid, &status, 0) != pid)
    return -2;
  if (WIFSIGNALED (status))
    {
      tap_diag ("the child died of signal %d", WTERMSIG (status));
      return -1;
    }
  return WEXITSTATUS (status);
}

static void *
warm_up_and_ask (void *data)
{
  int *available = data;

  bm3d_backend_warm_up (NULL);
  *available = bm3d_cuda_available (NULL, 0);
  return NULL;
}

int
main (void)
{
  bm3d_report report;
  bm3d_params cpu;
  pthread_t threads[4];
  int available[4], agree = 1, started = 0;

  tap_ok (in_child (CHILD_EXIT_AT_ONCE, 0) == 0,
          "a process that warms up and exits at once exits cleanly");
  tap_ok (in_child (CHILD_RETURN_AT_ONCE, 0) == 0,
          "... and one that returns from main at once");
  /* With a device, exits in each part of its start: the driver's, the
   * context's, the code's.  */
  for (int i = 0; i < 5; i++)
    {
      static const int pauses[] = { 1, 10, 40, 100, 200 };

      tap_ok (in_child (CHILD_EXIT_LATER, pauses[i]) == 0,
              "... and one that exits %d ms after warming up", pauses[i]);
    }
  tap_ok (in_child (CHILD_DENOISE, 0) == 0,
          "warm up, then denoise under auto: done, the start-up wait "
          "within the engine's time");

  /* Never warmed up: as before, no wait on the CPU.  */
  tap_ok (denoise_small (BM3D_BACKEND_CPU, &report) == BM3D_OK
          && report.seconds_startup == 0.0,
          "the CPU backend never waits for a device");
  bm3d_params_init (&cpu);
  cpu.backend = BM3D_BACKEND_CPU;
  bm3d_backend_warm_up (&cpu);

  for (int i = 0; i < 4; i++)
    if (pthread_create (&threads[i], NULL, warm_up_and_ask, &available[i])
        == 0)
      started++;
  for (int i = 0; i < started; i++)
    pthread_join (threads[i], NULL);
  for (int i = 1; i < started; i++)
    agree &= available[i] == available[0];
  tap_ok (started == 4 && agree
          && available[0] == bm3d_cuda_available (NULL, 0),
          "four threads warming up at once agree on the device (%s)",
          available[0] ? "usable" : "none");
  bm3d_backend_warm_up (NULL);
  tap_ok (denoise_small (BM3D_BACKEND_AUTO, &report) == BM3D_OK
          && report.seconds_startup < 0.05,
          "once started, a denoise waits for nothing (%.4f s)",
          report.seconds_startup);
  return tap_done ();
}
