# The bm3d-denoise command: the engine without GIMP, on image files.
# Image files: one source per format behind one table (image_io.c), a
# library shared with the benchmarks and the engine's quality test.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
noinst_LIBRARIES += cli/libimageio.a
cli_libimageio_a_CFLAGS = $(AM_CFLAGS) $(PNG_CFLAGS) $(JPEG_CFLAGS) \
	$(TIFF_CFLAGS)
cli_libimageio_a_SOURCES = \
	cli/image_io.c \
	cli/image_io.h \
	cli/io_codec.h \
	cli/io_png.c \
	cli/io_jpeg.c \
	cli/io_tiff.c \
	cli/io_exif.c \
	cli/io_exif.h \
	cli/io_pnm.c \
	cli/image_probe.c
IMAGE_IO_LIBS = cli/libimageio.a $(PNG_LIBS) $(JPEG_LIBS) $(TIFF_LIBS)

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
	cli/output_file.c \
	cli/output_file.h \
	cli/util.c \
	cli/util.h
cli_bm3d_denoise_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
cli_bm3d_denoise_LDADD = gpu/libbm3d.a $(IMAGE_IO_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm
