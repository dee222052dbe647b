/* BM3D Denoise — one image file's pixels through the engine, as both the
 * one-file form (bm3d-denoise.c) and the batch (batch.c) denoise them:
 * the output's depth, the integer or float path, the output image and
 * the call.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef BM3D_DENOISE_IMAGE_H
#define BM3D_DENOISE_IMAGE_H

#include "bm3d.h"
#include "image_io.h"

/* The depth an output file gets: `requested` when set, else the input's
 * (16 stays 16, float stays float where the format holds it, else 8).  */
int  cli_output_depth (int requested, const Image *in, ImageFormat format);

/* Does the command read 8- and 16-bit files as their integers for a
 * denoise that needs no floats (image_read_native)?  Yes, unless the
 * environment sets BM3D_CLI_FLOAT_IO to anything but "0": that keeps the
 * float buffers of old, for tests and benchmarks to compare with.  */
int  cli_integer_io (void);

/* After reading `in` for an output file of `out_depth` bits: an integer
 * image to be written at another depth becomes floats, and `out` is
 * allocated alike (its size, channels and samples).  Returns 0, or -1
 * with `error` set.  */
int  cli_alloc_output (Image *in, Image *out, int out_depth, char *error,
                       size_t error_len);

/* Denoise `in` into `out` (from cli_alloc_output) for an output file of
 * `out_depth` bits: bm3d_denoise (), or for an 8- or 16-bit image kept
 * at its depth bm3d_denoise_pixels () on its integers, which gives the
 * same file: straight from and into an integer image's own buffers,
 * through integer copies of a float one's.  */
bm3d_status cli_denoise (const Image *in, Image *out, int out_depth,
                         const bm3d_params *params, bm3d_report *report);

#endif /* BM3D_DENOISE_IMAGE_H */
