# Benchmarks: engine-level programs, no GIMP.  Not installed.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
noinst_PROGRAMS += bench/bm3d-bench bench/bm3d-quality bench/bm3d-isoline-quality

bench_bm3d_bench_SOURCES = bench/bm3d-bench.c cli/util.c cli/util.h
bench_bm3d_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli \
	-I$(top_srcdir)/imageio
bench_bm3d_bench_CFLAGS = $(AM_CFLAGS)
bench_bm3d_bench_LDADD = gpu/libbm3d.a $(IMAGE_IO_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm

bench_bm3d_quality_SOURCES = bench/quality.c cli/util.c cli/util.h
bench_bm3d_quality_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli \
	-I$(top_srcdir)/imageio
bench_bm3d_quality_CFLAGS = $(AM_CFLAGS)
bench_bm3d_quality_LDADD = gpu/libbm3d.a $(IMAGE_IO_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm
bench_bm3d_isoline_quality_SOURCES = bench/isoline_quality.c cli/util.c \
	cli/util.h
bench_bm3d_isoline_quality_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli \
	-I$(top_srcdir)/imageio
bench_bm3d_isoline_quality_LDADD = gpu/libbm3d.a $(IMAGE_IO_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm
EXTRA_DIST += bench/transform-bench.cu

# The noise profile estimate's block statistics: the engine's kernel
# against batched cuFFT (CUDA builds only; the one program that links
# cuFFT).
if HAVE_CUDA
noinst_PROGRAMS += bench/bm3d-autocov-bench
bench_bm3d_autocov_bench_SOURCES = bench/autocov-bench.cu
bench_bm3d_autocov_bench_LDADD = gpu/libbm3d.a $(CUDA_LIBS) $(CUFFT_LIBS) \
	$(OPENMP_CFLAGS) -lm

# What moving an image between host and device costs (pageable, pinned,
# registered, staged).
noinst_PROGRAMS += bench/bm3d-transfer-bench
bench_bm3d_transfer_bench_SOURCES = bench/transfer-bench.cu
bench_bm3d_transfer_bench_LDADD = $(CUDA_LIBS) -lm
endif
EXTRA_DIST += bench/autocov-bench.cu bench/transfer-bench.cu bench/ncu-kernels.sh
EXTRA_DIST += bench/quality.sh bench/bm3d_reference.py \
	bench/nlm-quality.sh bench/nlm_compare.py \
	bench/isoline-quality.sh bench/isoline-speed.sh

# Photos for bench/batch-bench.sh, and the file writers' speed.
noinst_PROGRAMS += bench/bm3d-batch-photos
bench_bm3d_batch_photos_SOURCES = bench/batch-photos.c cli/util.c cli/util.h
bench_bm3d_batch_photos_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli \
	-I$(top_srcdir)/imageio
bench_bm3d_batch_photos_LDADD = $(IMAGE_IO_LIBS) gpu/libbm3d.a $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm
EXTRA_DIST += bench/batch-bench.sh bench/camera-sweep.sh bench/user-wait.sh \
	bench/auto-backend.sh
# Camera mode beside G'MIC's denoise and OpenCV's NL-means (issue 35).
EXTRA_DIST += bench/peer-camera.sh

# The engine call of the dialog's preview, per mode and backend (no GIMP).
noinst_PROGRAMS += bench/bm3d-preview-bench
bench_bm3d_preview_bench_SOURCES = bench/preview-bench.c cli/util.c cli/util.h
bench_bm3d_preview_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli \
	-I$(top_srcdir)/imageio
bench_bm3d_preview_bench_LDADD = gpu/libbm3d.a $(IMAGE_IO_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm
EXTRA_DIST += bench/dialog-latency.sh bench/dialog-repeat.sh bench/dialog-screenshot.sh

# The CPU backend's thread sweep, its band schedules simulated from a
# traced one-thread run (BM3D_CPU_TRACE), and its speed beside BM3DCPU.
EXTRA_DIST += bench/cpu-scaling.sh bench/cpu-schedule.py bench/peer-speed.sh

# Hostile files through the command (run with an ASan+UBSan build).
EXTRA_DIST += bench/fuzz-corpus.py bench/fuzz-run.sh

# Noise estimation: accuracy per image and sigma, and its time against
# a BM3D run on the same image.
noinst_PROGRAMS += bench/bm3d-estimate-bench
bench_bm3d_estimate_bench_SOURCES = bench/estimate-bench.c cli/util.c cli/util.h
bench_bm3d_estimate_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli \
	-I$(top_srcdir)/imageio
bench_bm3d_estimate_bench_LDADD = gpu/libbm3d.a $(IMAGE_IO_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm

# Camera noise: the noise profile estimator and camera mode on real
# photographs with ground truth, against the best single white sigma.
noinst_PROGRAMS += bench/bm3d-camera-quality
bench_bm3d_camera_quality_SOURCES = bench/camera-quality.c cli/util.c cli/util.h
bench_bm3d_camera_quality_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli \
	-I$(top_srcdir)/imageio
bench_bm3d_camera_quality_LDADD = gpu/libbm3d.a $(IMAGE_IO_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm
# Whether any blind statistic reaches the whole frame's noise there.
EXTRA_DIST += bench/estimator-frame.py

# The plug-in's own cost inside GIMP 2.10 (BM3D_PLUGIN_PASSTHROUGH).
EXTRA_DIST += bench/plugin-cost.sh bench/gimp-batch-cost.sh bench/gimp-bench-lib.sh \
	bench/gimp-batch-stages.sh bench/gimp-png-levels.sh

# The GEGL operation bm3d:denoise against the engine alone: first tile,
# whole image, chunks (BENCHMARKS.md, "GIMP 3's non-destructive filter").
if HAVE_GEGL_OP
noinst_PROGRAMS += bench/bm3d-gegl-op-bench
bench_bm3d_gegl_op_bench_SOURCES = bench/gegl-op-bench.c
bench_bm3d_gegl_op_bench_CFLAGS = $(AM_CFLAGS) $(GEGL_CFLAGS)
bench_bm3d_gegl_op_bench_LDADD = gpu/libbm3d.a $(GEGL_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm
endif
# Packs it with CUDA, GEGL and babl for a machine without GEGL.
EXTRA_DIST += bench/pack-gegl-op.sh
