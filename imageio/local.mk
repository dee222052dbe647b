# Image files: PNG, JPEG, TIFF, Netpbm and PFM read and written by the
# project's own code, one source per format behind one table
# (image_io.c), and the safe write of an output (output_file.c: a
# temporary file renamed over it once complete).  One library, built
# once and linked by the bm3d-denoise command, the GIMP plug-in (the
# batch's PNG results), the benchmarks and the tests.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
noinst_LIBRARIES += imageio/libimageio.a
imageio_libimageio_a_CFLAGS = $(AM_CFLAGS) $(PNG_CFLAGS) $(JPEG_CFLAGS) \
	$(TIFF_CFLAGS)
imageio_libimageio_a_SOURCES = \
	imageio/image_io.c \
	imageio/image_io.h \
	imageio/io_codec.h \
	imageio/io_png.c \
	imageio/io_jpeg.c \
	imageio/io_tiff.c \
	imageio/io_exif.c \
	imageio/io_exif.h \
	imageio/io_pnm.c \
	imageio/image_probe.c \
	imageio/png_chunks.c \
	imageio/jpeg_markers.c \
	imageio/output_file.c \
	imageio/output_file.h
IMAGE_IO_LIBS = imageio/libimageio.a $(PNG_LIBS) $(JPEG_LIBS) $(TIFF_LIBS)
