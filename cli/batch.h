/* BM3D Denoise — many files in one process: the command's batch form,
 * `bm3d-denoise [options] -o OUTDIR FILE...` or `--suffix S FILE...`.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * A pipeline of three stages joined by bounded queues: reader threads
 * decode files, engine workers (two per CUDA device by default, one on
 * the CPU) denoise (each calls
 * bm3d_denoise with its own params.device, and the engine keeps one
 * lock, stream and workspace per device, so GPUs work side by side), and
 * writer threads encode.  Decoding, denoising and encoding of different
 * files overlap; the queues hold at most one image per worker, so memory
 * stays bounded whatever the number of files.
 *
 * Each output goes to a temporary name in its folder and is renamed when
 * complete: an interrupted batch (SIGINT, SIGTERM, SIGHUP) stops, removes
 * its temporary files and leaves no half-written image.  An input is
 * never overwritten.  A file that fails is reported on one line and
 * skipped; the others are done.  */
#ifndef BM3D_BATCH_H
#define BM3D_BATCH_H

#include "bm3d.h"
#include "image_io.h"
/* The one-image helpers the batch shares with the one-file form.  */
#include "denoise_image.h"

#define BATCH_MAX_DEVICES    64
#define BATCH_MAX_IO_THREADS 64
#define BATCH_MAX_PER_DEVICE 8
/* Two engine workers per GPU by default: while one holds the device,
 * the other prepares its image on the host (the engine's colour
 * transform and tiling run outside its per-device lock).  */
#define BATCH_PER_DEVICE     2

typedef struct
{
  bm3d_params        params;        /* params.device: set per worker    */
  int                estimate_sigma;
  int                verbose;
  int                depth;         /* 0: follow each input             */
  ImageWriteOptions  write;         /* quality, PNG level               */
  const char        *output_dir;    /* NULL: beside each input          */
  const char        *suffix;        /* NULL: none                       */
  int                devices[BATCH_MAX_DEVICES];
  int                n_devices;     /* 0: every visible CUDA device     */
  int                io_threads;    /* readers, and writers; 0: auto    */
  int                per_device;    /* engine workers per CUDA device;
                                       0: BATCH_PER_DEVICE             */
  int                progress;      /* -1: on a terminal, 0 off, 1 on   */
} BatchOptions;

/* Denoise `files` as `options` say.  Returns the exit status: 0 when
 * every file was done, 1 when any failed.  On SIGINT, SIGTERM or SIGHUP
 * it cleans up and dies of that signal.  */
int  batch_run (const BatchOptions *options, char *const *files,
                int n_files);

#endif /* BM3D_BATCH_H */
