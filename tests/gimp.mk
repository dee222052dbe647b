# The GIMP procedure, its dialog and the batch script, run inside real
# GIMP: headless, and the dialog under a virtual display (skipped without
# xvfb-run and xdotool).  Each test installs the built plug-in into a
# folder of its own first; see tests/gimp-lib.sh (GIMP 2.10) and
# tests/gimp3-lib.sh (GIMP 3), and the checks both share,
# tests/gimp-checks.sh and tests/gimp-checks.scm.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
GIMP_TESTS = \
	tests/gimp-procedure.sh \
	tests/gimp-strips.sh \
	tests/gimp-arguments.sh \
	tests/gimp-camera.sh \
	tests/gimp-batch.sh \
	tests/gimp-files.sh \
	tests/gimp-dialog.sh \
	tests/gimp-dialog-resize.sh \
	tests/gimp-nlm.sh \
	tests/gimp-isoline.sh \
	tests/gimp-dialog-de.sh \
	tests/gimp-save.sh \
	tests/gimp-undo.sh

GIMP3_TESTS = \
	tests/gimp3-procedure.sh \
	tests/gimp3-arguments.sh \
	tests/gimp3-camera.sh \
	tests/gimp3-batch.sh \
	tests/gimp3-files.sh \
	tests/gimp3-dialog.sh \
	tests/gimp3-save.sh \
	tests/gimp3-undo.sh

if GIMP2
TESTS += $(GIMP_TESTS)
endif
if GIMP3
TESTS += $(GIMP3_TESTS)
endif

if HAVE_GIMP
if HAVE_LIBPNG
check_PROGRAMS += tests/gimp-pixels
tests_gimp_pixels_SOURCES = tests/gimp-pixels.c
tests_gimp_pixels_CFLAGS = $(AM_CFLAGS) $(PNG_CFLAGS)
tests_gimp_pixels_LDADD = $(PNG_LIBS) -lm
endif

# After `make install`: the installed plug-in and translations, in GIMP
# 2.10.  (Not written for GIMP 3 yet: its tests install into a folder of
# their own, catalogues included.)
if GIMP2
installcheck-local: installcheck-gimp
installcheck-gimp:
	gimpplugindir='$(gimpplugindir)' top_srcdir='$(abs_top_srcdir)' \
	  $(SHELL) $(top_srcdir)/tests/gimp-installed.sh
endif
endif
.PHONY: installcheck-gimp

EXTRA_DIST += \
	$(GIMP_TESTS) \
	$(GIMP3_TESTS) \
	tests/gimp3-lib.sh \
	tests/gimp3-helpers.scm \
	tests/gimp-save-lib.sh \
	tests/gimp-saved.py \
	tests/gimp-installed.sh \
	tests/gimp-lib.sh \
	tests/gimp-helpers.scm \
	tests/gimp-checks.sh \
	tests/gimp-checks.scm \
	tests/gimp-pixels.c
