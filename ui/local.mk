# The plug-in's dialog, linked into plugin/bm3d-denoise-gimp: its
# toolkit-neutral core and the widgets of the build's toolkit (GTK 2 for
# GIMP 2.10, GTK 3 for GIMP 3).
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
if HAVE_GIMP
plugin_bm3d_denoise_gimp_SOURCES += \
	ui/bm3d-dialog.c \
	ui/bm3d-dialog.h \
	ui/bm3d-dialog-log.c \
	ui/bm3d-dialog-widgets.c \
	ui/bm3d-dialog-worker.c \
	ui/bm3d-dialog-private.h
if GIMP2
plugin_bm3d_denoise_gimp_SOURCES += ui/bm3d-dialog-gtk2.c
endif
if GIMP3
plugin_bm3d_denoise_gimp_SOURCES += ui/bm3d-dialog-gtk3.c
endif
endif
