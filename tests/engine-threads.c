/* The CPU backend's output does not depend on the thread count: 1, 2
 * and 3 threads give bit-identical images, gray and colour, one phase
 * and two; and so do 1, 9 and 16 threads on an image of three tiles,
 * which 9 threads denoise two tiles at a time and 16 three.
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

static void
noisy_scene (float *v, int w, int h, int ch, uint64_t seed)
{
  uint64_t rng = seed;

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < ch; c++)
        {
          /* Edges, a gradient and texture, so groups vary in size.  */
          double v0 = ((x / 16 + y / 16) % 2 ? 180.0 : 60.0)
                      + 0.3 * x - 0.2 * y + 20.0 * sin (x * 0.3 + c)
                      * cos (y * 0.2);

          v[((size_t) y * w + x) * ch + c] = (float) (v0 + 20.0
                                                      * rng_gauss (&rng));
        }
}

static int
run (const float *in_data, float *out_data, int w, int h, int ch,
     bm3d_mode mode, int threads)
{
  bm3d_image in = { w, h, ch, 0, (size_t) w * ch, (float *) in_data };
  bm3d_image out = { w, h, ch, 0, (size_t) w * ch, out_data };
  bm3d_params params;
  bm3d_report report;

  bm3d_params_init (&params);
  params.sigma = 20.0f;
  params.backend = BM3D_BACKEND_CPU;
  params.mode = mode;
  params.threads = threads;
  return bm3d_denoise (&in, &out, &params, &report) == BM3D_OK;
}

int
main (void)
{
  /* Tall enough for several bands of reference rows; the last one
   * three CPU tiles wide (1536 each).  */
  static const int shapes[][6] = { { 97, 211, 1, 1, 2, 3 },
                                   { 64, 150, 3, 1, 2, 3 },
                                   { 200, 40, 1, 1, 2, 3 },
                                   { 2 * 1536 + 101, 41, 3, 1, 9, 16 } };

  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (int mode = 0; mode < 2; mode++)
      {
        int w = shapes[s][0], h = shapes[s][1], ch = shapes[s][2];
        const int *threads = shapes[s] + 3;
        size_t n = (size_t) w * h * ch;
        float *in = malloc (n * sizeof (float));
        float *o1 = malloc (n * sizeof (float));
        float *o2 = malloc (n * sizeof (float));
        float *o3 = malloc (n * sizeof (float));
        int ok;

        noisy_scene (in, w, h, ch, 5 + s);
        ok = run (in, o1, w, h, ch, mode, threads[0])
             && run (in, o2, w, h, ch, mode, threads[1])
             && run (in, o3, w, h, ch, mode, threads[2]);
        tap_ok (ok && memcmp (o1, o2, n * sizeof (float)) == 0
                && memcmp (o1, o3, n * sizeof (float)) == 0,
                "%dx%d, %d channel(s), %s: %d, %d and %d threads "
                "bit-identical", w, h, ch, bm3d_mode_name ((bm3d_mode) mode),
                threads[0], threads[1], threads[2]);
        free (in);
        free (o1);
        free (o2);
        free (o3);
      }
  return tap_done ();
}
