/* The CPU backend's inside, shown to the unit tests: the reference grid
 * and block matching on a whole plane.  Not installed.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef BM3D_CPU_H
#define BM3D_CPU_H

#include <stdint.h>

#include "core/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reference positions along an axis of `length` pixels (>= BM3D_PATCH):
 * 0, step, 2 step, ... up to length - BM3D_PATCH, plus length -
 * BM3D_PATCH itself.  Writes them to `pos` (room for length values) and
 * returns how many there are.  */
int         bm3d_cpu_reference_grid (int length, int step, int *pos);

/* Block matching of every reference of a `width` x `height` plane with
 * the parameters of `phase`, on `threads` threads.  For reference r (row
 * by row over the grid), sizes[r] is the group size m and
 * members[r * phase->group_max + i], i < m, the raster index (y * width
 * + x) of each patch, the reference first, then by distance and raster
 * index.  `sizes` and `members` must have room for every reference.  */
bm3d_status bm3d_cpu_match_plane    (const float              *plane,
                                     int                       width,
                                     int                       height,
                                     const bm3d_phase_profile *phase,
                                     int                       threads,
                                     int                      *sizes,
                                     int32_t                  *members);

#ifdef __cplusplus
}
#endif

#endif /* BM3D_CPU_H */
