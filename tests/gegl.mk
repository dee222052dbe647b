# The GEGL operation bm3d:denoise (plugin/gegl.mk): through GEGL itself
# (tiles, the engine's pixels, alpha, gray, mipmaps), and through the
# `gegl` command against bm3d-denoise (skipped where there is no `gegl`
# command).  GIMP 3's non-destructive filter is tests/gimp3-filter.sh,
# the dialog's Keep editable choice tests/gimp3-dialog-filter.sh.
if HAVE_GEGL_OP
check_PROGRAMS += tests/gegl-op-tiles
TESTS += tests/gegl-op-tiles tests/gegl-op-cli.sh
tests_gegl_op_tiles_SOURCES = tests/gegl-op-tiles.c tests/engine-tap.h
tests_gegl_op_tiles_CFLAGS = $(AM_CFLAGS) $(GEGL_CFLAGS)
tests_gegl_op_tiles_LDADD = $(GEGL_LIBS) $(ENGINE_TEST_LIBS)
AM_TESTS_ENVIRONMENT += \
	BM3D_GEGL_MODULE_DIR='$(abs_top_builddir)/plugin'; \
	export BM3D_GEGL_MODULE_DIR;
endif

if GIMP3
TESTS += tests/gimp3-filter.sh tests/gimp3-dialog-filter.sh
endif

EXTRA_DIST += tests/gegl-op-cli.sh tests/gimp3-filter.sh tests/gimp3-filter.scm \
	tests/gimp3-dialog-filter.sh
