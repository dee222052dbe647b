/* BM3D Denoise — what the engine's edge-case tests share: an image with
 * its buffer, checks on its values, and a progress callback that records
 * what it saw and can ask to cancel.  Include after engine-tap.h.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef ENGINE_IMAGE_H
#define ENGINE_IMAGE_H

#include <math.h>
#include <stdlib.h>

#include "bm3d.h"

typedef struct
{
  bm3d_image img;
  float     *buffer;
} test_image;

static TAP_UNUSED void
image_new (test_image *t, int w, int h, int ch, int alpha, size_t stride)
{
  t->img.width = w;
  t->img.height = h;
  t->img.channels = ch;
  t->img.has_alpha = alpha;
  t->img.stride = stride ? stride : (size_t) w * ch;
  t->buffer = calloc (t->img.stride * h + 1, sizeof (float));
  t->img.data = t->buffer;
}

static TAP_UNUSED int
all_finite (const test_image *t)
{
  for (int y = 0; y < t->img.height; y++)
    for (size_t x = 0; x < (size_t) t->img.width * t->img.channels; x++)
      if (!isfinite (t->buffer[y * t->img.stride + x]))
        return 0;
  return 1;
}

/* Largest |a - b| over the colour samples.  */
static TAP_UNUSED double
max_diff (const test_image *a, const test_image *b)
{
  int colour = a->img.channels - a->img.has_alpha;
  double worst = 0.0;

  for (int y = 0; y < a->img.height; y++)
    for (int x = 0; x < a->img.width; x++)
      for (int c = 0; c < colour; c++)
        {
          double d = fabs (a->buffer[y * a->img.stride + x * a->img.channels + c]
                           - b->buffer[y * b->img.stride + x * b->img.channels + c]);
          if (!(d <= worst))
            worst = d;
        }
  return worst;
}

typedef struct
{
  int    calls;
  int    cancel_at;
  double last;
  int    monotonic;
} progress_state;

static TAP_UNUSED int
on_progress (double fraction, void *data)
{
  progress_state *p = data;

  if (fraction < p->last || fraction < 0.0 || fraction > 1.0)
    p->monotonic = 0;
  p->last = fraction;
  p->calls++;
  return p->cancel_at > 0 && p->calls >= p->cancel_at;
}

#endif /* ENGINE_IMAGE_H */
