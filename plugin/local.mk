# The GIMP procedure plug-in-bm3d-denoise: one executable that GIMP runs.
# GIMP 2.10 looks for plug-ins as PLUG-IN-DIR/NAME/NAME, so the program
# goes into a folder of its own under $(gimpplugindir) (set by configure,
# --with-gimp-plugin-dir; `make distcheck` points it into its own tree).
if HAVE_GIMP
bm3dpluginexecdir = $(gimpplugindir)/bm3d-denoise-gimp
bm3dpluginexec_PROGRAMS = plugin/bm3d-denoise-gimp

plugin_bm3d_denoise_gimp_SOURCES = \
	plugin/bm3d-denoise-gimp.c \
	plugin/bm3d-render.c \
	plugin/bm3d-values.c \
	plugin/bm3d-render.h \
	plugin/bm3d-values.h \
	plugin/bm3d-intl.h
# GTK 2's headers use GLib API that Debian 12's GLib marks deprecated:
# silence that for this program alone, so -Werror keeps guarding our code.
plugin_bm3d_denoise_gimp_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/plugin -I$(top_srcdir)/ui \
	-DGLIB_DISABLE_DEPRECATION_WARNINGS \
	-DPLUGIN_LOCALEDIR=\"$(localedir)\"
plugin_bm3d_denoise_gimp_CFLAGS = $(AM_CFLAGS) $(GIMP_CFLAGS)
plugin_bm3d_denoise_gimp_LDADD = gpu/libbm3d.a $(GIMP_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm

# Into the user's own GIMP folder, as `gimptool-2.0 --install-bin` does:
# $GIMP2_DIRECTORY (relative to the home folder unless absolute), else
# $XDG_CONFIG_HOME/GIMP/2.10, else ~/.config/GIMP/2.10.
gimp_user_dir = \
	dir="$${GIMP2_DIRECTORY:-$${XDG_CONFIG_HOME:-$$HOME/.config}/GIMP/2.10}"; \
	case "$$dir" in /*) ;; *) dir="$$HOME/$$dir" ;; esac

install-user: install-user-plugin install-user-scripts
uninstall-user: uninstall-user-plugin uninstall-user-scripts

install-user-plugin: plugin/bm3d-denoise-gimp
	@$(gimp_user_dir); \
	echo " installing the plug-in into $$dir/plug-ins/bm3d-denoise-gimp"; \
	$(MKDIR_P) "$$dir/plug-ins/bm3d-denoise-gimp" && \
	$(INSTALL_PROGRAM) plugin/bm3d-denoise-gimp \
	  "$$dir/plug-ins/bm3d-denoise-gimp/bm3d-denoise-gimp"

uninstall-user-plugin:
	@$(gimp_user_dir); \
	rm -f "$$dir/plug-ins/bm3d-denoise-gimp/bm3d-denoise-gimp"; \
	rmdir "$$dir/plug-ins/bm3d-denoise-gimp" 2>/dev/null || :
else
install-user uninstall-user:
	@echo "$@: this build has no GIMP plug-in (configured --without-gimp)" >&2
	@exit 1
endif

.PHONY: install-user uninstall-user install-user-plugin uninstall-user-plugin
