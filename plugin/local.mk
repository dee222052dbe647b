# The GIMP procedure plug-in-bm3d-denoise: one executable that GIMP runs,
# built for GIMP 2.10 or GIMP 3 (configure --with-gimp=2|3): the pixel
# path and the final run are shared, the front end is one file per API.
# GIMP looks for plug-ins as PLUG-IN-DIR/NAME/NAME, so the program
# goes into a folder of its own under $(gimpplugindir) (set by configure,
# --with-gimp-plugin-dir; `make distcheck` points it into its own tree).
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
if HAVE_GIMP
bm3dpluginexecdir = $(gimpplugindir)/bm3d-denoise-gimp
bm3dpluginexec_PROGRAMS = plugin/bm3d-denoise-gimp

plugin_bm3d_denoise_gimp_SOURCES = \
	plugin/bm3d-files.c \
	plugin/bm3d-files.h \
	plugin/bm3d-layout.c \
	plugin/bm3d-own.c \
	plugin/bm3d-own.h \
	plugin/bm3d-render.c \
	plugin/bm3d-run.c \
	plugin/bm3d-save.c \
	plugin/bm3d-save-png.c \
	plugin/bm3d-values.c \
	plugin/bm3d-drawable.h \
	plugin/bm3d-layout.h \
	plugin/bm3d-render.h \
	plugin/bm3d-run.h \
	plugin/bm3d-save.h \
	plugin/bm3d-values.h \
	plugin/bm3d-intl.h
if GIMP2
plugin_bm3d_denoise_gimp_SOURCES += plugin/bm3d-gimp2.c \
	plugin/bm3d-save-gimp2.c
endif
if GIMP3
plugin_bm3d_denoise_gimp_SOURCES += plugin/bm3d-gimp3.c \
	plugin/bm3d-save-gimp3.c \
	plugin/bm3d-filter.c plugin/bm3d-filter.h
endif
# GTK 2's headers use GLib API that Debian 12's GLib marks deprecated:
# silence that for this program alone, so -Werror keeps guarding our code.
plugin_bm3d_denoise_gimp_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/plugin -I$(top_srcdir)/ui -I$(top_srcdir)/imageio \
	-DGLIB_DISABLE_DEPRECATION_WARNINGS \
	-DPLUGIN_LOCALEDIR=\"$(localedir)\"
plugin_bm3d_denoise_gimp_CFLAGS = $(AM_CFLAGS) $(GIMP_CFLAGS) $(GEXIV2_CFLAGS)
plugin_bm3d_denoise_gimp_LDADD = gpu/libbm3d.a $(IMAGE_IO_LIBS) $(GIMP_LIBS) \
	$(GEXIV2_LIBS) $(CUDA_LIBS) \
	$(OPENMP_CFLAGS) -lm

# Into the user's own GIMP folder, as `gimptool-2.0 --install-bin` does:
# $GIMP2_DIRECTORY (relative to the home folder unless absolute), else
# $XDG_CONFIG_HOME/GIMP/2.10, else ~/.config/GIMP/2.10; for GIMP 3 the
# same with $GIMP3_DIRECTORY and GIMP/3.0.
if GIMP3
gimp_user_dir_variable = GIMP3_DIRECTORY
else
gimp_user_dir_variable = GIMP2_DIRECTORY
endif
gimp_user_dir = \
	dir="$${$(gimp_user_dir_variable):-$${XDG_CONFIG_HOME:-$$HOME/.config}/GIMP/$(GIMP_USER_VERSION)}"; \
	case "$$dir" in /*) ;; *) dir="$$HOME/$$dir" ;; esac

install-user: install-user-plugin install-user-scripts
uninstall-user: uninstall-user-plugin uninstall-user-scripts

install-user-plugin: install-user-plugin-binary $(install_user_catalogues)
install-user-plugin-binary: plugin/bm3d-denoise-gimp
	@$(gimp_user_dir); \
	echo " installing the plug-in into $$dir/plug-ins/bm3d-denoise-gimp"; \
	$(MKDIR_P) "$$dir/plug-ins/bm3d-denoise-gimp" && \
	$(INSTALL_PROGRAM) plugin/bm3d-denoise-gimp \
	  "$$dir/plug-ins/bm3d-denoise-gimp/bm3d-denoise-gimp"

uninstall-user-plugin:
	@$(gimp_user_dir); \
	rm -f "$$dir/plug-ins/bm3d-denoise-gimp/bm3d-denoise-gimp"; \
	$(uninstall_catalogues_from) "$$dir/plug-ins/bm3d-denoise-gimp"; \
	rmdir "$$dir/plug-ins/bm3d-denoise-gimp" 2>/dev/null || :

# GIMP 3 reads a plug-in's catalogues from the locale/ folder beside it
# and from nowhere else (set_i18n in plugin/bm3d-gimp3.c): the built
# catalogues go there too.
catalogues_into = \
	install_catalogues () { \
	  for gmo in $(top_srcdir)/po/*.gmo; do \
	    test -f "$$gmo" || continue; \
	    lang=`basename "$$gmo" .gmo`; \
	    $(MKDIR_P) "$$1/locale/$$lang/LC_MESSAGES" && \
	    $(INSTALL_DATA) "$$gmo" \
	      "$$1/locale/$$lang/LC_MESSAGES/$(GETTEXT_PACKAGE).mo" || return 1; \
	  done; \
	}; install_catalogues
uninstall_catalogues_from = \
	uninstall_catalogues () { \
	  rm -f "$$1"/locale/*/LC_MESSAGES/$(GETTEXT_PACKAGE).mo; \
	  rmdir "$$1"/locale/*/LC_MESSAGES "$$1"/locale/* "$$1"/locale \
	    2>/dev/null || :; \
	}; uninstall_catalogues

if GIMP3
install_user_catalogues = install-user-catalogues
install-user-catalogues: install-user-plugin-binary
	@$(gimp_user_dir); \
	$(catalogues_into) "$$dir/plug-ins/bm3d-denoise-gimp"

install-data-hook: install-gimp3-catalogues
install-gimp3-catalogues:
	@$(catalogues_into) "$(DESTDIR)$(bm3dpluginexecdir)"
uninstall-hook: uninstall-gimp3-catalogues
uninstall-gimp3-catalogues:
	@$(uninstall_catalogues_from) "$(DESTDIR)$(bm3dpluginexecdir)"
endif
else
install-user uninstall-user:
	@echo "$@: this build has no GIMP plug-in (configured --without-gimp)" >&2
	@exit 1
endif

.PHONY: install-user uninstall-user install-user-plugin uninstall-user-plugin \
	install-user-plugin-binary install-user-catalogues \
	install-gimp3-catalogues uninstall-gimp3-catalogues
