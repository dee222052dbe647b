/* Unit tests of bm3d_backend_for_job (): which backend "auto" takes for a
 * job of known shape before the device is started.  No GPU is needed:
 * the function only estimates, and never asks the driver.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "bm3d.h"
#include "engine-tap.h"

#define SMALL  512                 /* a 512x512 photo                   */
#define WIDE   4000                /* a 12 MP photo: 4000x3000          */
#define HIGH   3000

typedef struct
{
  bm3d_backend backend;
  double       cpu;
  double       startup;
} Choice;

static Choice
choose (bm3d_mode mode, bm3d_backend backend, int threads, int width,
        int height, int channels, int images)
{
  bm3d_params params;
  Choice c;

  bm3d_params_init (&params);
  params.sigma = 20.0f;
  params.mode = mode;
  params.backend = backend;
  params.threads = threads;
  c.backend = bm3d_backend_for_job (&params, width, height, channels,
                                    images, &c.cpu, &c.startup);
  return c;
}

static const char *
name (bm3d_backend backend)
{
  return bm3d_backend_name (backend);
}

/* The estimates themselves: what the choices below rest on.  */
static void
check_estimates (void)
{
  bm3d_params params;
  Choice rgb = choose (BM3D_MODE_BM3D, BM3D_BACKEND_AUTO, 16, SMALL, SMALL,
                       3, 1);
  Choice gray = choose (BM3D_MODE_BM3D, BM3D_BACKEND_AUTO, 16, SMALL, SMALL,
                        1, 1);
  Choice two = choose (BM3D_MODE_BM3D, BM3D_BACKEND_AUTO, 2, SMALL, SMALL,
                       3, 1);
  Choice iso = choose (BM3D_MODE_ISOLINE, BM3D_BACKEND_AUTO, 16, SMALL,
                       SMALL, 3, 1);
  Choice nlm = choose (BM3D_MODE_NLM, BM3D_BACKEND_AUTO, 16, SMALL, SMALL,
                       3, 1);
  Choice fast = choose (BM3D_MODE_BM3D_FAST, BM3D_BACKEND_AUTO, 16, SMALL,
                        SMALL, 3, 1);
  double wide_nlm, camera;

  tap_diag ("512x512 RGB on 16 threads: bm3d %.3f s, bm3d-fast %.3f, "
            "nlm %.3f, isoline %.3f; start-up %.3f s", rgb.cpu, fast.cpu,
            nlm.cpu, iso.cpu, rgb.startup);
  tap_ok (iso.cpu > 0.0 && iso.cpu < nlm.cpu && nlm.cpu < fast.cpu
          && fast.cpu < rgb.cpu,
          "the modes cost in order: isoline < nlm < bm3d-fast < bm3d");
  tap_ok (fabs (two.cpu / rgb.cpu - 8.0) < 1e-9,
          "2 threads take 8 times as long as 16 (%.3f s against %.3f)",
          two.cpu, rgb.cpu);
  tap_ok (fabs (rgb.cpu / gray.cpu - 3.0) < 1e-9,
          "a gray image costs a third of an RGB one");

  bm3d_params_init (&params);
  params.sigma = 20.0f;
  params.mode = BM3D_MODE_NLM;
  params.threads = 16;
  params.nlm.search = 35;
  bm3d_backend_for_job (&params, SMALL, SMALL, 3, 1, &wide_nlm, NULL);
  tap_ok (fabs (wide_nlm / nlm.cpu - 35.0 * 35.0 / (21.0 * 21.0)) < 1e-9,
          "NL-means with a 35x35 window costs its area against 21x21");

  params.mode = BM3D_MODE_ISOLINE;
  params.noise = BM3D_NOISE_PROFILE;
  bm3d_backend_for_job (&params, SMALL, SMALL, 3, 1, &camera, NULL);
  tap_ok (camera > iso.cpu, "estimating a camera-noise profile adds to "
          "the cost (%.3f s against %.3f)", camera, iso.cpu);
}

#ifdef HAVE_CUDA
static void
check_choices (void)
{
  static const struct
  {
    bm3d_mode    mode;
    bm3d_backend backend;
    int          threads, width, height, channels, images;
    bm3d_backend want;
    const char  *what;
  } cases[] =
  {
    { BM3D_MODE_ISOLINE, BM3D_BACKEND_AUTO, 16, SMALL, SMALL, 3, 1,
      BM3D_BACKEND_CPU, "isoline, 512x512 RGB, 16 threads" },
    { BM3D_MODE_NLM, BM3D_BACKEND_AUTO, 16, SMALL, SMALL, 3, 1,
      BM3D_BACKEND_CPU, "nlm, 512x512 RGB, 16 threads" },
    { BM3D_MODE_BM3D_FAST, BM3D_BACKEND_AUTO, 16, SMALL, SMALL, 3, 1,
      BM3D_BACKEND_CPU, "bm3d-fast, 512x512 RGB, 16 threads" },
    { BM3D_MODE_BM3D, BM3D_BACKEND_AUTO, 2, SMALL, SMALL, 3, 1,
      BM3D_BACKEND_CUDA, "bm3d, 512x512 RGB, 2 threads" },
    { BM3D_MODE_NLM, BM3D_BACKEND_AUTO, 2, SMALL, SMALL, 3, 1,
      BM3D_BACKEND_CUDA, "nlm, 512x512 RGB, 2 threads" },
    { BM3D_MODE_BM3D, BM3D_BACKEND_AUTO, 16, WIDE, HIGH, 3, 1,
      BM3D_BACKEND_CUDA, "bm3d, 12 MP RGB, 16 threads" },
    { BM3D_MODE_ISOLINE, BM3D_BACKEND_AUTO, 16, WIDE, HIGH, 3, 1,
      BM3D_BACKEND_CUDA, "isoline, 12 MP RGB, 16 threads" },
    { BM3D_MODE_BM3D, BM3D_BACKEND_AUTO, 128, WIDE, HIGH, 3, 1,
      BM3D_BACKEND_CUDA, "bm3d, 12 MP RGB, 128 threads" },
    { BM3D_MODE_ISOLINE, BM3D_BACKEND_AUTO, 16, SMALL, SMALL, 3, 2,
      BM3D_BACKEND_CUDA, "isoline, two 512x512 photos (a batch)" },
    { BM3D_MODE_ISOLINE, BM3D_BACKEND_AUTO, 16, SMALL, SMALL, 3, 24,
      BM3D_BACKEND_CUDA, "isoline, 24 512x512 photos (a batch)" },
    { BM3D_MODE_ISOLINE, BM3D_BACKEND_CUDA, 16, SMALL, SMALL, 3, 1,
      BM3D_BACKEND_CUDA, "backend cuda, isoline, 512x512" },
    { BM3D_MODE_BM3D, BM3D_BACKEND_CPU, 16, WIDE, HIGH, 3, 1,
      BM3D_BACKEND_CPU, "backend cpu, bm3d, 12 MP" },
    { BM3D_MODE_BM3D, BM3D_BACKEND_CPU, 16, SMALL, SMALL, 3, 8,
      BM3D_BACKEND_CPU, "backend cpu, a batch" },
    { BM3D_MODE_ISOLINE, BM3D_BACKEND_AUTO, 16, 0, SMALL, 3, 1,
      BM3D_BACKEND_CUDA, "an empty image: the device (the engine refuses "
      "it)" },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      Choice c = choose (cases[i].mode, cases[i].backend, cases[i].threads,
                         cases[i].width, cases[i].height,
                         cases[i].channels, cases[i].images);

      tap_ok (c.backend == cases[i].want, "%s: %s (%s; CPU %.3f s, "
              "start-up %.3f s)", cases[i].what, name (cases[i].want),
              name (c.backend), c.cpu, c.startup);
    }
}

/* BM3D_CUDA_STARTUP_SECONDS replaces the start-up estimate; anything but
 * a number >= 0 is ignored.  */
static void
check_startup_override (void)
{
  Choice base, c;

  unsetenv ("BM3D_CUDA_STARTUP_SECONDS");
  base = choose (BM3D_MODE_ISOLINE, BM3D_BACKEND_AUTO, 16, SMALL, SMALL, 3,
                 1);
  tap_ok (base.startup > 0.2 && base.startup < 0.4,
          "the start-up estimate is the H100 machine's 0.2-0.33 s (%.3f)",
          base.startup);

  setenv ("BM3D_CUDA_STARTUP_SECONDS", "1000", 1);
  c = choose (BM3D_MODE_BM3D, BM3D_BACKEND_AUTO, 16, WIDE, HIGH, 3, 1);
  tap_ok (c.backend == BM3D_BACKEND_CPU && c.startup == 1000.0,
          "start-up 1000 s: the CPU even for 12 MP BM3D");
  c = choose (BM3D_MODE_BM3D, BM3D_BACKEND_AUTO, 16, WIDE, HIGH, 3, 2);
  tap_ok (c.backend == BM3D_BACKEND_CUDA,
          "start-up 1000 s: a batch still takes the device");

  setenv ("BM3D_CUDA_STARTUP_SECONDS", "0", 1);
  c = choose (BM3D_MODE_ISOLINE, BM3D_BACKEND_AUTO, 16, 16, 16, 1, 1);
  tap_ok (c.backend == BM3D_BACKEND_CUDA,
          "start-up 0 s: the device even for a 16x16 gray image");

  for (int i = 0; i < 4; i++)
    {
      static const char *const bad[] = { "", "fast", "-1", "0.3s" };

      setenv ("BM3D_CUDA_STARTUP_SECONDS", bad[i], 1);
      c = choose (BM3D_MODE_ISOLINE, BM3D_BACKEND_AUTO, 16, SMALL, SMALL, 3,
                  1);
      tap_ok (c.startup == base.startup && c.backend == base.backend,
              "BM3D_CUDA_STARTUP_SECONDS=\"%s\" is ignored", bad[i]);
    }
  unsetenv ("BM3D_CUDA_STARTUP_SECONDS");
}
#else
/* No CUDA backend: no device to start, the CPU whatever the job.  */
static void
check_choices (void)
{
  static const bm3d_backend backends[] =
    { BM3D_BACKEND_AUTO, BM3D_BACKEND_CPU, BM3D_BACKEND_CUDA };

  setenv ("BM3D_CUDA_STARTUP_SECONDS", "0", 1);
  for (int b = 0; b < 3; b++)
    for (int images = 1; images <= 2; images++)
      {
        Choice c = choose (BM3D_MODE_BM3D, backends[b], 2, WIDE, HIGH, 3,
                           images);

        tap_ok (c.backend == BM3D_BACKEND_CPU && c.startup == 0.0,
                "no CUDA backend: the CPU for backend %s, %d image%s, 12 MP "
                "BM3D", name (backends[b]), images, images > 1 ? "s" : "");
      }
  unsetenv ("BM3D_CUDA_STARTUP_SECONDS");
}

static void
check_startup_override (void)
{
}
#endif

int
main (void)
{
  check_estimates ();
  check_choices ();
  check_startup_override ();
  return tap_done ();
}
