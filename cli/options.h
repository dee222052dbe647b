/* BM3D Denoise — the command's options: what bm3d-denoise was asked to
 * do, read from its arguments (cli/options.c), with --help and
 * --version.  The engine's options take their names, ranges and
 * choices from the engine's table (bm3d-options.h).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef BM3D_CLI_OPTIONS_H
#define BM3D_CLI_OPTIONS_H

#include <stdint.h>

#include "batch.h"
#include "bm3d.h"
#include "image_io.h"

#define PROGRAM "bm3d-denoise"

#define EXIT_RUNTIME 1
#define EXIT_USAGE   2

typedef enum
{
  ACTION_DENOISE,
  ACTION_ADD_NOISE,
  ACTION_COMPARE,
  ACTION_CONVERT
} Action;

typedef struct
{
  Action        action;
  bm3d_params   params;
  int           verbose;
  int           depth;          /* 8 or 16, 0 = follow the input       */
  double        noise_sigma;    /* --add-noise                          */
  uint64_t      seed;
  const char   *reference;      /* --psnr                               */
  const char   *input;
  const char   *output;
  ImageWriteOptions write;      /* --quality, --png-level               */
  BatchOptions  batch;          /* -o, --suffix, --devices, --io-threads */
  int           is_batch;
  char *const  *files;          /* the batch's FILE...                  */
  int           n_files;
  int           seen_devices;
  /* Options seen, to refuse those that do not apply to the action.  */
  int           seen_denoise_option;
  int           seen_seed;
  int           estimate_sigma; /* --sigma auto                         */
  int           seen_nlm_option;
  int           seen_isoline_option;
  /* Camera noise: --noise, --noise-profile, --save-noise-profile,
   * --strength, --chroma-strength.  */
  int           seen_noise;         /* --noise given                    */
  int           seen_sigma;
  int           seen_strength;
  const char   *profile_in;
  const char   *profile_out;
  bm3d_noise_profile profile;       /* loaded from profile_in           */
} Options;

/* One line on stderr: "bm3d-denoise: " and the message.  */
void cli_message     (const char *format, ...)
  __attribute__ ((format (printf, 1, 2)));

/* Reads the arguments into `opt`.  Returns -1 to exit with a usage
 * error (said on stderr), 1 to exit successfully (--help, --version),
 * 0 to go on.  */
int  parse_arguments (int argc, char **argv, Options *opt);

#endif /* BM3D_CLI_OPTIONS_H */
