# The plug-in's GTK 2 dialog, linked into plugin/bm3d-denoise-gimp.
if HAVE_GIMP
plugin_bm3d_denoise_gimp_SOURCES += \
	ui/bm3d-dialog.c \
	ui/bm3d-dialog.h
endif
