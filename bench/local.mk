# Benchmarks: engine-level programs, no GIMP.  Not installed.
noinst_PROGRAMS += bench/bm3d-bench bench/bm3d-quality

bench_bm3d_bench_SOURCES = bench/bm3d-bench.c cli/image_io.c cli/image_io.h \
	cli/util.c cli/util.h
bench_bm3d_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli
bench_bm3d_bench_CFLAGS = $(AM_CFLAGS) $(PNG_CFLAGS)
bench_bm3d_bench_LDADD = gpu/libbm3d.a $(PNG_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm

bench_bm3d_quality_SOURCES = bench/quality.c cli/image_io.c cli/image_io.h \
	cli/util.c cli/util.h
bench_bm3d_quality_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli
bench_bm3d_quality_CFLAGS = $(AM_CFLAGS) $(PNG_CFLAGS)
bench_bm3d_quality_LDADD = gpu/libbm3d.a $(PNG_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm
EXTRA_DIST += bench/transform-bench.cu
EXTRA_DIST += bench/quality.sh bench/bm3d_reference.py

# Noise estimation: accuracy per image and sigma, and its time against
# a BM3D run on the same image.
noinst_PROGRAMS += bench/bm3d-estimate-bench
bench_bm3d_estimate_bench_SOURCES = bench/estimate-bench.c cli/image_io.c \
	cli/image_io.h cli/util.c cli/util.h
bench_bm3d_estimate_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli
bench_bm3d_estimate_bench_CFLAGS = $(AM_CFLAGS) $(PNG_CFLAGS)
bench_bm3d_estimate_bench_LDADD = gpu/libbm3d.a $(PNG_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm
