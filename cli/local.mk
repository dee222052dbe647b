# The bm3d-denoise command: the engine without GIMP, on image files.
bin_PROGRAMS += cli/bm3d-denoise
cli_bm3d_denoise_SOURCES = \
	cli/bm3d-denoise.c \
	cli/image_io.c \
	cli/image_io.h \
	cli/util.c \
	cli/util.h
cli_bm3d_denoise_CFLAGS = $(AM_CFLAGS) $(PNG_CFLAGS)
cli_bm3d_denoise_LDADD = gpu/libbm3d.a $(PNG_LIBS) $(CUDA_LIBS) $(OPENMP_CFLAGS) -lm
