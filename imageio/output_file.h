/* BM3D Denoise — writing an output without risking what is there: both
 * forms of the command (IN OUT, and the batch) and the GIMP plug-in's
 * batch (its PNG results) write through here.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * The image goes to a temporary file in the output's folder, which is
 * renamed over the output only once complete: a full disk, an error or a
 * signal leaves the old output (or none) in place, never a truncated
 * one.  The new file keeps the permissions of the one it replaces.  */
#ifndef BM3D_OUTPUT_FILE_H
#define BM3D_OUTPUT_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "image_io.h"

/* The folder part of `path` ("." when it has none), newly allocated;
 * the name part, in `path`.  */
char  *path_folder            (const char *path);
const char *path_base         (const char *path);

/* Told the temporary file's path when it is created, and NULL when it
 * is gone (renamed or removed), so that a signal can remove it.  */
typedef void (*OutputTempFunc) (const char *temp, void *data);

/* The mode of a new file: 0666 less the umask.  Reads the umask by
 * setting it: call before starting threads.  */
mode_t output_file_new_mode   (void);

/* Is `output` the file `input` (by device and inode, whatever the path:
 * "./", a symbolic or a hard link)?  1 yes, 0 no or no such output.  */
int    output_file_is_input   (const char *output, const char *input);

/* Writes `img` to `output` as above: `new_mode` when there is no file
 * there yet.  `note_temp` (may be NULL) follows the temporary file.
 * Returns 0, or -1 with a one-line reason naming `output`.  */
int    output_file_write      (const char *output, ImageFormat format,
                               const Image *img,
                               const ImageWriteOptions *options,
                               mode_t new_mode, OutputTempFunc note_temp,
                               void *data, char *error, size_t error_len);

/* For a single-threaded writer: SIGINT, SIGTERM and SIGHUP remove the
 * temporary file that output_file_signal_note () was last told of, then
 * end the process by the same signal.  */
void   output_file_guard_signals (void);
void   output_file_signal_note   (const char *temp, void *data);

#endif /* BM3D_OUTPUT_FILE_H */
