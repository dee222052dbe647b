# The GEGL operation bm3d:denoise: a module GEGL loads at start (GIMP 3,
# the `gegl` command), built when configure finds gegl-0.4's development
# files.  It shares the procedure's pixel path (bm3d-render.c,
# bm3d-values.c) but no libgimp; the engine is linked in, built as
# position-independent code when this module is (gpu/local.mk).
if HAVE_GEGL_OP
geglopdir = $(gegloplugindir)
geglop_PROGRAMS = plugin/bm3d-denoise-gegl.so
plugin_bm3d_denoise_gegl_so_SOURCES = \
	plugin/bm3d-gegl-op.c \
	plugin/bm3d-gegl-estimate.c \
	plugin/bm3d-gegl-estimate.h \
	plugin/bm3d-render.c \
	plugin/bm3d-render.h \
	plugin/bm3d-values.c \
	plugin/bm3d-values.h \
	plugin/bm3d-intl.h
plugin_bm3d_denoise_gegl_so_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugin \
	-DPLUGIN_LOCALEDIR=\"$(localedir)\"
# Only GEGL's two module entry points are exported; the engine and the
# static CUDA runtime stay inside, whatever else GIMP loads.
plugin_bm3d_denoise_gegl_so_CFLAGS = $(AM_CFLAGS) $(GEGL_CFLAGS) -fPIC \
	-fvisibility=hidden
plugin_bm3d_denoise_gegl_so_LDFLAGS = -shared -Wl,--no-undefined \
	-Wl,--exclude-libs,ALL
plugin_bm3d_denoise_gegl_so_LDADD = gpu/libbm3d.a $(GEGL_LIBS) \
	$(CUDA_LIBS) $(OPENMP_CFLAGS) -lm

# Into the user's own GEGL folder, which GIMP 3 and the `gegl` command
# read at start: $XDG_DATA_HOME/gegl-0.4/plug-ins, else
# ~/.local/share/gegl-0.4/plug-ins.  (The Flatpak GIMP reads
# ~/.var/app/org.gimp.GIMP/data/gegl-0.4/plug-ins instead, GIMP for
# Windows %LOCALAPPDATA%\gegl-0.4\plug-ins; neither is installed into
# here: the module is copied there by hand.)
gegl_user_dir = \
	dir="$${XDG_DATA_HOME:-$$HOME/.local/share}/gegl-0.4/plug-ins"

install-user: install-user-gegl-op
uninstall-user: uninstall-user-gegl-op
install-user-gegl-op: plugin/bm3d-denoise-gegl.so
	@$(gegl_user_dir); \
	echo " installing the GEGL operation into $$dir"; \
	$(MKDIR_P) "$$dir" && \
	$(INSTALL_PROGRAM) plugin/bm3d-denoise-gegl.so "$$dir/bm3d-denoise-gegl.so"
uninstall-user-gegl-op:
	@$(gegl_user_dir); rm -f "$$dir/bm3d-denoise-gegl.so"
endif

.PHONY: install-user-gegl-op uninstall-user-gegl-op
