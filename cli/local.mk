# The bm3d-denoise command: the engine without GIMP, on image files
# (read and written by imageio/).
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
bin_PROGRAMS += cli/bm3d-denoise
cli_bm3d_denoise_SOURCES = \
	cli/bm3d-denoise.c \
	cli/options.c \
	cli/options.h \
	cli/batch.c \
	cli/batch.h \
	cli/batch_paths.c \
	cli/batch_paths.h \
	cli/denoise_image.c \
	cli/denoise_image.h \
	cli/util.c \
	cli/util.h
cli_bm3d_denoise_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/imageio
cli_bm3d_denoise_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
cli_bm3d_denoise_LDADD = gpu/libbm3d.a $(IMAGE_IO_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm
