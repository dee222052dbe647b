/* BM3D Denoise: the engine's hot loops, built for two processors.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * HOT_LOOP marks a function built twice, for AVX2 with FMA
 * (x86-64-v3) and for any x86-64; the loader picks the one the
 * processor runs.  Elsewhere (other compilers, other processors) it is
 * built once.  Vectors passed by value differ between the two builds'
 * ABIs: hot loops take pointers, or use macros.  Not installed.  */
#ifndef BM3D_HOT_LOOP_H
#define BM3D_HOT_LOOP_H

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 \
    && defined(__x86_64__) && defined(__linux__)
#define HOT_LOOP __attribute__ ((target_clones ("arch=x86-64-v3", "default")))
#else
#define HOT_LOOP
#endif

#endif /* BM3D_HOT_LOOP_H */
