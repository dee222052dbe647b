# The CUDA backend against the CPU backend (skipped without a device).
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
TESTS += tests/gpu-tests.sh tests/gpu-nlm.sh tests/gpu-isoline.sh
EXTRA_DIST += tests/gpu-lib.sh \
	tests/gpu-tests.sh \
	tests/gpu-nlm.sh \
	tests/gpu-isoline.sh \
	tests/data/camera.png \
	tests/data/astronaut.png \
	tests/data/LICENSE-images.md

# The expert options on both backends: run by tests/gpu-tests.sh and
# bench/cuda-round2.sh (built everywhere, so it is always compiled).
noinst_PROGRAMS += tests/gpu-options
tests_gpu_options_SOURCES = tests/gpu-options.c cli/util.c cli/util.h
tests_gpu_options_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli \
	-I$(top_srcdir)/imageio
tests_gpu_options_LDADD = gpu/libbm3d.a $(IMAGE_IO_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm

# Cancelling CUDA runs, the result on the device or streamed: run by
# tests/gpu-tests.sh, gpu-nlm.sh and gpu-isoline.sh.
noinst_PROGRAMS += tests/gpu-cancel
tests_gpu_cancel_SOURCES = tests/gpu-cancel.c
tests_gpu_cancel_LDADD = gpu/libbm3d.a $(CUDA_LIBS) $(OPENMP_CFLAGS) -lm
