/* The CPU BM3D backend's vector vocabulary: a patch row as one vector,
 * the function attributes of its hot loops.  Private to bm3d_cpu*.c.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#ifndef BM3D_CPU_SIMD_H
#define BM3D_CPU_SIMD_H

#include <string.h>

#include "bm3d_tables.h"

/* The hot loops are built twice, for AVX2 with FMA and for any x86-64,
 * and the loader picks the one the processor runs (core/hot_loop.h).  */
#include "core/hot_loop.h"

#if defined(__GNUC__)
#define INLINE inline __attribute__ ((always_inline))
#else
#define INLINE inline
#endif

#define K BM3D_PATCH

/* One patch row: eight floats in one AVX register in the AVX2 build, two
 * SSE registers in the other (GCC vector extension).  */
typedef float row8 __attribute__ ((vector_size (32)));
typedef int   row8i __attribute__ ((vector_size (32)));

/* Unaligned row access (vectors are passed by address: their by-value
 * ABI differs between the two builds).  */
#define load_row(v, p)  memcpy ((v), (p), sizeof (row8))
#define store_row(p, v) memcpy ((p), (v), sizeof (row8))

/* Whether any lane of a comparison result is set.  */
typedef long long row4l __attribute__ ((vector_size (32)));
#define ANY_LANE(m) \
  ((((row4l) (m))[0] | ((row4l) (m))[1] | ((row4l) (m))[2] \
    | ((row4l) (m))[3]) != 0)

#endif /* BM3D_CPU_SIMD_H */
