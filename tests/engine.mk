# Unit tests of the denoising engine and its CPU backend (TAP programs).
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
ENGINE_TESTS = \
	tests/engine-tables \
	tests/engine-options \
	tests/engine-match \
	tests/engine-threads \
	tests/engine-edge \
	tests/engine-quality \
	tests/engine-nlm \
	tests/engine-isoline \
	tests/engine-estimate \
	tests/engine-profile \
	tests/engine-warm-up \
	tests/engine-backend \
	tests/engine-pixels \
	tests/engine-devices
check_PROGRAMS += $(ENGINE_TESTS)
TESTS += $(ENGINE_TESTS)
# tests/data/ (camera.png, astronaut.png, their licence) is distributed
# by tests/gpu.mk, which shares the images.

ENGINE_TEST_LIBS = gpu/libbm3d.a $(CUDA_LIBS) $(OPENMP_CFLAGS) -lm

tests_engine_tables_SOURCES = tests/engine-tables.c tests/engine-tap.h
tests_engine_tables_LDADD = $(ENGINE_TEST_LIBS)

tests_engine_options_SOURCES = tests/engine-options.c tests/engine-tap.h
tests_engine_options_LDADD = $(ENGINE_TEST_LIBS)

tests_engine_match_SOURCES = tests/engine-match.c tests/engine-tap.h
tests_engine_match_LDADD = $(ENGINE_TEST_LIBS)

tests_engine_threads_SOURCES = tests/engine-threads.c tests/engine-tap.h
tests_engine_threads_LDADD = $(ENGINE_TEST_LIBS)

tests_engine_edge_SOURCES = tests/engine-edge.c tests/engine-tap.h \
	tests/engine-image.h
tests_engine_edge_LDADD = $(ENGINE_TEST_LIBS)

# Reads the PNG test images with the command's image code.
tests_engine_quality_SOURCES = tests/engine-quality.c tests/engine-tap.h
tests_engine_quality_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/imageio
tests_engine_quality_LDADD = $(IMAGE_IO_LIBS) $(ENGINE_TEST_LIBS)

# Non-local means; reads the PNG test images like engine-quality.
tests_engine_nlm_SOURCES = tests/engine-nlm.c tests/engine-tap.h \
	tests/engine-image.h
tests_engine_nlm_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/imageio
tests_engine_nlm_LDADD = $(IMAGE_IO_LIBS) $(ENGINE_TEST_LIBS)
# The isoline mode; reads the PNG test images like engine-quality.
tests_engine_isoline_SOURCES = tests/engine-isoline.c tests/engine-tap.h \
	tests/engine-image.h
tests_engine_isoline_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/imageio
tests_engine_isoline_LDADD = $(IMAGE_IO_LIBS) $(ENGINE_TEST_LIBS)

# Noise estimation on the test photographs (and Set12 when
# ../shared/benchmark-sets is there), with the command's noise generator.
tests_engine_estimate_SOURCES = tests/engine-estimate.c tests/engine-tap.h \
	cli/util.c cli/util.h
tests_engine_estimate_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli \
	-I$(top_srcdir)/imageio
tests_engine_estimate_LDADD = $(IMAGE_IO_LIBS) $(ENGINE_TEST_LIBS)
EXTRA_DIST += tests/data/coffee.png tests/data/chelsea.png \
	tests/data/brick.png tests/data/gravel.png \
	tests/data/dark-coffee-noisy.png tests/data/dark-coffee-clean.png \
	tests/make-dark-photo.py tests/data/phone-coffee-noisy.jpg \
	tests/data/phone-coffee-clean.png tests/make-phone-photo.py \
	tests/data/colour-brick-noisy.png tests/data/colour-brick-clean.png \
	tests/data/raw-coffee-noisy.png tests/data/raw-coffee-clean.png \
	tests/data/vng-astronaut-noisy.png tests/data/vng-astronaut-clean.png

# Noise profiles: the model, the text file, the estimator on synthetic
# correlated noise and camera mode against white mode.
tests_engine_profile_SOURCES = tests/engine-profile.c tests/engine-tap.h
tests_engine_profile_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/imageio
tests_engine_profile_LDADD = $(IMAGE_IO_LIBS) $(ENGINE_TEST_LIBS)

# bm3d_backend_warm_up (): processes exiting while the device starts.
tests_engine_warm_up_SOURCES = tests/engine-warm-up.c tests/engine-tap.h
tests_engine_warm_up_LDADD = $(ENGINE_TEST_LIBS)

# bm3d_backend_for_job (): the CPU or the device for backend auto.
tests_engine_backend_SOURCES = tests/engine-backend.c tests/engine-tap.h
tests_engine_backend_LDADD = $(ENGINE_TEST_LIBS)

# image_probe (): sizes from the headers, and bad files refused.
check_PROGRAMS += tests/io-probe
TESTS += tests/io-probe
tests_io_probe_SOURCES = tests/io-probe.c tests/engine-tap.h
tests_io_probe_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/imageio
tests_io_probe_LDADD = $(IMAGE_IO_LIBS) -lm

# The PNG writer's slices deflated on several threads (imageio/io_png.c).
check_PROGRAMS += tests/io-png
TESTS += tests/io-png
tests_io_png_SOURCES = tests/io-png.c tests/engine-tap.h
tests_io_png_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/imageio $(PNG_CFLAGS)
tests_io_png_LDADD = $(IMAGE_IO_LIBS) -lm

# A file's own integers (image_read_native) against its floats, and
# written again: the float image's file, byte for byte.
check_PROGRAMS += tests/io-native
TESTS += tests/io-native
tests_io_native_SOURCES = tests/io-native.c tests/engine-tap.h
tests_io_native_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/imageio
tests_io_native_LDADD = $(IMAGE_IO_LIBS) -lm

# The 8-bit conversions (vector and scalar) against the double rounding.
check_PROGRAMS += tests/io-convert
TESTS += tests/io-convert
tests_io_convert_SOURCES = tests/io-convert.c tests/engine-tap.h
tests_io_convert_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/imageio
tests_io_convert_LDADD = $(IMAGE_IO_LIBS) -lm

# bm3d_denoise_pixels: 8/16-bit pixels against converting them outside.
tests_engine_pixels_SOURCES = tests/engine-pixels.c tests/engine-tap.h
tests_engine_pixels_LDADD = $(ENGINE_TEST_LIBS)

# One image over several devices: the bands' rows windows on the CPU,
# the device list's checks and the test switch BM3D_TEST_FAIL_DEVICE.
tests_engine_devices_SOURCES = tests/engine-devices.c tests/engine-tap.h \
	tests/engine-image.h
tests_engine_devices_LDADD = $(ENGINE_TEST_LIBS)
