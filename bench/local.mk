# Benchmarks: engine-level programs, no GIMP.  Not installed.
noinst_PROGRAMS += bench/bm3d-bench bench/bm3d-quality bench/bm3d-isoline-quality

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
bench_bm3d_isoline_quality_SOURCES = bench/isoline_quality.c cli/image_io.c \
	cli/image_io.h cli/util.c cli/util.h
bench_bm3d_isoline_quality_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli
bench_bm3d_isoline_quality_CFLAGS = $(AM_CFLAGS) $(PNG_CFLAGS)
bench_bm3d_isoline_quality_LDADD = gpu/libbm3d.a $(PNG_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm
EXTRA_DIST += bench/transform-bench.cu
EXTRA_DIST += bench/quality.sh bench/bm3d_reference.py \
	bench/nlm-quality.sh bench/nlm_compare.py \
	bench/isoline-quality.sh bench/isoline-speed.sh
