# The denoising engine: a static library with no GIMP or GTK in it.
noinst_LIBRARIES += gpu/libbm3d.a
gpu_libbm3d_a_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
gpu_libbm3d_a_SOURCES = \
	gpu/bm3d.h \
	gpu/engine.h \
	gpu/engine.c \
	gpu/engine_noise.c \
	gpu/pixels.h \
	gpu/pixels.c \
	gpu/job.h \
	gpu/job.c \
	gpu/bm3d_tables.h \
	gpu/bm3d_tables.c \
	gpu/bm3d_cpu.c \
	gpu/bm3d_cpu_band.h \
	gpu/bm3d_cpu_match.c \
	gpu/bm3d_cpu_simd.h \
	gpu/nlm_cpu.c \
	gpu/isoline_core.h \
	gpu/isoline_cpu.c \
	gpu/noise_estimate.c \
	gpu/noise_profile.c \
	gpu/noise_profile_estimate.c \
	gpu/clipped_noise.c
