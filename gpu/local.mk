# The denoising engine: a static library with no GIMP or GTK in it.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
noinst_LIBRARIES += gpu/libbm3d.a
gpu_libbm3d_a_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
if HAVE_GEGL_OP
# The GEGL operation, a shared module (plugin/gegl.mk), links this
# library too; nvcc's objects are position-independent already.
gpu_libbm3d_a_CFLAGS += -fPIC
endif
gpu_libbm3d_a_SOURCES = \
	gpu/bm3d.h \
	gpu/bm3d-options.h \
	gpu/core/engine.h \
	gpu/core/engine.c \
	gpu/core/algorithms.c \
	gpu/core/backend_choice.c \
	gpu/core/check.c \
	gpu/core/params.c \
	gpu/core/tiler.c \
	gpu/core/devices.c \
	gpu/core/pixels.h \
	gpu/core/pixels.c \
	gpu/core/job.h \
	gpu/core/job.c \
	gpu/core/env.h \
	gpu/core/hot_loop.h \
	gpu/core/env.c \
	gpu/core/options.c \
	gpu/bm3d/bm3d_tables.h \
	gpu/bm3d/bm3d_tables.c \
	gpu/bm3d/bm3d_cpu.h \
	gpu/bm3d/bm3d_cpu.c \
	gpu/bm3d/bm3d_cpu_band.h \
	gpu/bm3d/bm3d_cpu_match.c \
	gpu/bm3d/bm3d_cpu_simd.h \
	gpu/nlm/nlm_cpu.c \
	gpu/isoline/isoline_core.h \
	gpu/isoline/isoline_cpu.c \
	gpu/noise/noise.h \
	gpu/noise/photo_noise.c \
	gpu/noise/block_scales.c \
	gpu/noise/jpeg_lattice.c \
	gpu/noise/noise_estimate.c \
	gpu/noise/noise_profile.c \
	gpu/noise/noise_profile_estimate.c \
	gpu/noise/clipped_noise.c \
	gpu/noise/noise_vst.c \
	gpu/noise/noise_vst.h
