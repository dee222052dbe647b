# Benchmarks: engine-level programs, no GIMP.  Not installed.
noinst_PROGRAMS += bench/bm3d-bench bench/bm3d-quality

bench_bm3d_bench_SOURCES = bench/bm3d-bench.c cli/util.c cli/util.h
bench_bm3d_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli
bench_bm3d_bench_CFLAGS = $(AM_CFLAGS)
bench_bm3d_bench_LDADD = gpu/libbm3d.a $(IMAGE_IO_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm

bench_bm3d_quality_SOURCES = bench/quality.c cli/util.c cli/util.h
bench_bm3d_quality_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli
bench_bm3d_quality_CFLAGS = $(AM_CFLAGS)
bench_bm3d_quality_LDADD = gpu/libbm3d.a $(IMAGE_IO_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm
EXTRA_DIST += bench/transform-bench.cu
EXTRA_DIST += bench/quality.sh bench/bm3d_reference.py

# Photos for bench/batch-bench.sh, and the file writers' speed.
noinst_PROGRAMS += bench/bm3d-batch-photos
bench_bm3d_batch_photos_SOURCES = bench/batch-photos.c cli/util.c cli/util.h
bench_bm3d_batch_photos_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli
bench_bm3d_batch_photos_LDADD = $(IMAGE_IO_LIBS) gpu/libbm3d.a $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm
EXTRA_DIST += bench/batch-bench.sh
