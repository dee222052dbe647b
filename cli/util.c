/* BM3D Denoise — small helpers shared by the command line and the
 * benchmarks.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include <math.h>

#include "util.h"

uint64_t
splitmix64 (uint64_t *state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* (0, 1]: never 0, so the logarithm of Box-Muller stays finite.  */
static double
splitmix_uniform (uint64_t *state)
{
  return ((splitmix64 (state) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

void
add_gaussian_noise (float *v, size_t n, double sigma, uint64_t seed)
{
  uint64_t state = seed;

  for (size_t i = 0; i < n; i += 2)
    {
      double r = sqrt (-2.0 * log (splitmix_uniform (&state)));
      double a = 2.0 * M_PI * splitmix_uniform (&state);

      v[i] += (float) (sigma * r * cos (a));
      if (i + 1 < n)
        v[i + 1] += (float) (sigma * r * sin (a));
    }
}

double
psnr_of_squared_error (double squared_error, size_t samples)
{
  if (squared_error == 0.0)
    return INFINITY;
  return 10.0 * log10 (255.0 * 255.0 / (squared_error / samples));
}

bm3d_image
engine_view (const Image *img)
{
  bm3d_image view;

  view.width = img->width;
  view.height = img->height;
  view.channels = img->channels;
  view.has_alpha = img->has_alpha;
  view.stride = (size_t) img->width * img->channels;
  view.data = img->data;
  return view;
}
