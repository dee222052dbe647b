/* Cancelling a CUDA run at each of its progress calls, on a synthetic
 * 600x400 RGB image: the call says it was cancelled, makes no progress
 * call after, and leaves the output exactly as it was unless the result
 * was streamed tile by tile into it (BM3D_CUDA_STREAM_SIDE set, see
 * gpu/core/cuda_device.cuh); a full run after the cancelled ones gives the
 * first full run's pixels (within 60 dB PSNR of each other: BM3D's
 * aggregation adds in whatever order the device runs, NL-means and
 * isoline give the same bits).  Run by tests/gpu-tests.sh on a
 * machine with a GPU:
 *
 *   tests/gpu-cancel [bm3d|nlm|isoline]
 *
 * Prints one line per check; exits 0 when all hold, 1 when one does
 * not, 77 without a usable CUDA device.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bm3d.h"

enum { W = 600, H = 400, C = 3 };

typedef struct
{
  int calls;      /* progress calls so far                     */
  int cancel_at;  /* the call that cancels (1-based), 0: none  */
  int after;      /* calls after the cancelling one            */
} counter;

static int
count_and_cancel (double fraction, void *data)
{
  counter *c = (counter *) data;

  (void) fraction;
  if (c->cancel_at && c->calls >= c->cancel_at)
    c->after++;
  c->calls++;
  return c->cancel_at && c->calls == c->cancel_at;
}

static int
run (const bm3d_image *in, bm3d_image *out, bm3d_mode mode, counter *c,
     bm3d_report *report)
{
  bm3d_params params;

  bm3d_params_init (&params);
  params.backend = BM3D_BACKEND_CUDA;
  params.mode = mode;
  params.progress = count_and_cancel;
  params.progress_data = c;
  return bm3d_denoise (in, out, &params, report);
}

int
main (int argc, char **argv)
{
  const char *name = argc > 1 ? argv[1] : "bm3d";
  const bm3d_mode mode = bm3d_mode_parse (name);
  const char *side = getenv ("BM3D_CUDA_STREAM_SIDE");
  const int streamed = side && atoi (side) >= 24 && mode != BM3D_MODE_ISOLINE;
  const size_t n = (size_t) W * H * C;
  float *noisy = malloc (n * sizeof (float));
  float *first = malloc (n * sizeof (float));
  float *result = malloc (n * sizeof (float));
  bm3d_image in = { W, H, C, 0, (size_t) W * C, noisy };
  bm3d_image out = { W, H, C, 0, (size_t) W * C, first };
  bm3d_report report;
  counter full = { 0, 0, 0 };
  int failures = 0;
  unsigned seed = 7;

  if (!bm3d_cuda_available (NULL, 0))
    return 77;
  if (!noisy || !first || !result || (int) mode < 0)
    return 2;
  for (size_t i = 0; i < n; i++)
    {
      seed = seed * 1103515245u + 12345u;
      noisy[i] = 60.0f + (float) ((i / C) % W) / 6.0f
                 + (float) ((seed >> 16) % 50);
    }
  if (run (&in, &out, mode, &full, &report) != BM3D_OK)
    {
      printf ("full run failed: %s\n", report.message);
      return 1;
    }
  printf ("%s%s: %d progress calls in a full run\n", name,
          streamed ? " (streamed)" : "", full.calls);

  out.data = result;
  for (int at = 1; at < full.calls && at <= 12; at++)
    {
      counter c = { 0, at, 0 };
      int untouched = 1;
      bm3d_status status;

      for (size_t i = 0; i < n; i++)
        result[i] = -1.0f;
      status = run (&in, &out, mode, &c, &report);
      for (size_t i = 0; i < n && untouched; i++)
        untouched = result[i] == -1.0f;
      if (status != BM3D_ERR_CANCELLED || c.after != 0
          || (!streamed && !untouched))
        {
          printf ("FAIL cancel at call %d: %s, %d calls after, output %s\n",
                  at, bm3d_status_string (status), c.after,
                  untouched ? "untouched" : "written");
          failures++;
        }
      else
        printf ("cancel at call %d: cancelled, no call after, output %s\n",
                at, untouched ? "untouched" : "partly written (streamed)");
    }

  counter again = { 0, 0, 0 };
  double sse = 0.0;
  if (run (&in, &out, mode, &again, &report) != BM3D_OK)
    {
      printf ("FAIL a full run after the cancelled ones failed: %s\n",
              report.message);
      return 1;
    }
  for (size_t i = 0; i < n; i++)
    sse += ((double) first[i] - result[i]) * ((double) first[i] - result[i]);
  double p = sse > 0.0 ? 10.0 * log10 (255.0 * 255.0 * n / sse) : INFINITY;
  if (p < 60.0)
    {
      printf ("FAIL a full run after the cancelled ones differs: PSNR "
              "%.2f dB against the first\n", p);
      failures++;
    }
  else
    printf ("a full run after the cancelled ones: PSNR %.2f dB against the "
            "first\n", p);
  free (noisy);
  free (first);
  free (result);
  return failures ? 1 : 0;
}
