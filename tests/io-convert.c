/* The 8-bit sample conversions of the command's files (imageio/image_io.c)
 * against the rounding they replaced, clip to 0..255 and round half up
 * in double: every float of a stride through all 2^32 bit patterns (NaN,
 * infinities and negative zero among them), the halves and the values
 * just beside them, in runs of every length from 1 to 40 so that the
 * 16-wide vector loop and the scalar tail both take each value; and
 * 8-bit -> float, which must give s exactly.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "engine-tap.h"
#include "io_codec.h"

static unsigned
reference_u8 (float v)
{
  double c = v > 0.0 ? (v < 255.0 ? (double) v : 255.0) : 0.0;

  return (unsigned) (c + 0.5);
}

static float
from_bits (uint32_t bits)
{
  float v;

  memcpy (&v, &bits, sizeof v);
  return v;
}

/* Converts `n` values in runs of 1 to 40 and counts those unlike the
 * reference.  */
static size_t
count_wrong (const float *values, size_t n, uint8_t *out)
{
  size_t wrong = 0;

  for (size_t run = 1; run <= 40; run++)
    for (size_t i = 0; i + run <= n; i += run)
      {
        io_row_to_u8 (values + i, out, run);
        for (size_t k = 0; k < run; k++)
          wrong += out[k] != reference_u8 (values[i + k]);
      }
  return wrong;
}

int
main (void)
{
  enum { N = 1 << 16 };
  static float values[N];
  static uint8_t out[64], bytes[256];
  static float back[256];
  size_t n = 0, wrong;
  int exact = 1;

  /* A stride through every bit pattern, odd so that all low bits vary.  */
  for (uint64_t bits = 0; bits < ((uint64_t) 1 << 32) && n < N / 2;
       bits += 131071)
    values[n++] = from_bits ((uint32_t) bits);
  /* k + 0.5 and its neighbours, 0 to 255, and the edges.  */
  for (int k = 0; k <= 255 && n + 8 < N; k++)
    {
      float half = (float) k + 0.5f;

      values[n++] = half;
      values[n++] = nextafterf (half, 0.0f);
      values[n++] = nextafterf (half, 1000.0f);
      values[n++] = (float) k;
    }
  values[n++] = NAN;
  values[n++] = -NAN;
  values[n++] = INFINITY;
  values[n++] = -INFINITY;
  values[n++] = -0.0f;
  values[n++] = 255.0f;
  values[n++] = nextafterf (255.0f, 1000.0f);
  values[n++] = 0.49999997f;
  wrong = count_wrong (values, n, out);
  tap_ok (wrong == 0, "float -> 8-bit: %zu values in runs of 1 to 40 as "
          "the double rounding (%zu differ)", n, wrong);

  for (int s = 0; s < 256; s++)
    bytes[s] = (uint8_t) s;
  io_row_from_u8 (bytes, back, 256);
  for (int s = 0; s < 256; s++)
    exact &= back[s] == (float) s && io_from_int ((unsigned) s, 255)
                                     == back[s];
  tap_ok (exact, "8-bit -> float gives s, as io_from_int does");
  return tap_done ();
}
