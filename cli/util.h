/* BM3D Denoise — small helpers shared by the command line and the
 * benchmarks: a portable random generator, synthetic noise, PSNR and the
 * engine's view of an image.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef BM3D_UTIL_H
#define BM3D_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "bm3d.h"
#include "bm3d-options.h"
#include "image_io.h"

/* SplitMix64: fixed integer arithmetic, so a seed gives the same stream
 * on every platform.  */
uint64_t   splitmix64            (uint64_t *state);

/* Adds white Gaussian noise of deviation `sigma` to `n` values, unclipped:
 * Box-Muller on SplitMix64 uniforms, the stream fixed by `seed`.  */
void       add_gaussian_noise    (float *v, size_t n, double sigma,
                                  uint64_t seed);

/* PSNR (peak 255) of `samples` differences whose squares add up to
 * `squared_error`; infinite when there is no error.  */
double     psnr_of_squared_error (double squared_error, size_t samples);

/* The modes' expert options by their command-line names, without the
 * dashes: "isoline-variant", "nlm-patch", "nlm-search", "nlm-h" and
 * "nlm-gaussian" (which takes no value; pass NULL).  Sets the field of
 * `params`.  Returns 1 when set, 0 when `name` is none of them, and -1
 * with a one-line reason in `error` for a bad value.  */
int        engine_option_set     (bm3d_params *params, const char *name,
                                  const char *value, char *error,
                                  size_t error_len);

/* `text` as a value of the table of options' row `id` (bm3d-options.h)
 * for `what`: a number into `*value`, or a choice's value returned;
 * else -1 with a one-line reason in `error` that names the row's range
 * (and `also`, what else the caller takes).  */
int        engine_option_number  (bm3d_option_id id, const char *what,
                                  const char *also, const char *text,
                                  double *value, char *error,
                                  size_t error_len);
int        engine_option_choice  (bm3d_option_id id, const char *what,
                                  const char *text, char *error,
                                  size_t error_len);

/* Does the option `name` (as above) take a value?  */
int        engine_option_takes_value (const char *name);

/* Which mode an option of engine_option_set () belongs to.  */
bm3d_mode  engine_option_mode    (const char *name);

/* "gray", "gray+alpha", "RGB" or "RGBA".  */
const char *cli_layout_name      (const Image *img);

/* What --verbose says of each file's run, in the same words for one file
 * and for a batch:
 *   FILE: 512x512 RGB, 8 bits, mode bm3d, sigma 20.00, backend cpu
 * the sigma followed by "(estimated)" for --sigma auto; camera noise
 * named with its strengths, never with a white sigma it did not use.
 * `depth` is the file's bits per sample.  */
void       cli_run_line          (char *buf, size_t len, const char *file,
                                  const Image *img, int depth,
                                  const bm3d_params *params,
                                  int sigma_estimated, bm3d_backend used);

/* `img` as the engine sees it: no copy.  */
bm3d_image engine_view           (const Image *img);

#endif /* BM3D_UTIL_H */
