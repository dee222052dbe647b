/* BM3D Denoise — the rules that turn 8- and 16-bit values into the
 * engine's 0..255 floats and back (bm3d.h, bm3d_denoise_pixels), one
 * copy for the host (pixels.c) and the device (cuda_tiled_image.cu), so
 * both give the same bits.  Not installed.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef BM3D_PIXELS_H
#define BM3D_PIXELS_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define BM3D_PIXEL_FUNC static __host__ __device__ __forceinline__
#else
#define BM3D_PIXEL_FUNC static inline
#endif

/* 65535 / 255: a 16-bit value v is v / 257 on the 0..255 scale.  */
#define BM3D_U16_PER_UNIT 257.0f

BM3D_PIXEL_FUNC float
bm3d_u8_to_float (uint8_t v)
{
  return (float) v;
}

BM3D_PIXEL_FUNC float
bm3d_u16_to_float (uint16_t v)
{
  return (float) v / BM3D_U16_PER_UNIT;
}

/* Clipped to 0..255 and rounded half up, without rounding error on
 * the way: floor (f + 0.5) and floor (f * 257 + 0.5) of the clipped f
 * (f * 257 is exact in double), NaN giving 0.  These are the command's
 * own rules for writing 8- and 16-bit files (imageio/image_io.c, to_u8 and
 * io_to_int), so a file written from either is the same.  */
BM3D_PIXEL_FUNC uint8_t
bm3d_float_to_u8 (float f)
{
  const float c = f > 0.0f ? (f < 255.0f ? f : 255.0f) : 0.0f;
  const int i = (int) c;

  /* c - i is exact: no sum that could round up to the next integer.  */
  return (uint8_t) (i + (c - (float) i >= 0.5f));
}

BM3D_PIXEL_FUNC uint16_t
bm3d_float_to_u16 (float f)
{
  const double c = f > 0.0f ? (f < 255.0f ? (double) f : 255.0) : 0.0;

  return (uint16_t) (c * BM3D_U16_PER_UNIT + 0.5);
}

#endif /* BM3D_PIXELS_H */
