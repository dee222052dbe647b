# Script-Fu batch script (one per GIMP: their calls differ), the sample
# image and its licence.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
if HAVE_GIMP
if GIMP3
batch_script = data/bm3d-denoise-batch-gimp3.scm
else
batch_script = data/bm3d-denoise-batch.scm
endif
gimpscript_DATA = $(batch_script)

install-user-scripts:
	@$(gimp_user_dir); \
	echo " installing the batch script into $$dir/scripts"; \
	$(MKDIR_P) "$$dir/scripts" && \
	$(INSTALL_DATA) $(srcdir)/$(batch_script) "$$dir/scripts/"

uninstall-user-scripts:
	@$(gimp_user_dir); \
	rm -f "$$dir/scripts/$(notdir $(batch_script))"
endif

EXTRA_DIST += \
	data/bm3d-denoise-batch.scm \
	data/bm3d-denoise-batch-gimp3.scm \
	data/sample.png \
	data/dialog.png \
	data/dialog-gimp3.png \
	data/filter-gimp3.png \
	data/before-after.png \
	data/LICENSE-images.md \
	data/demo.sh \
	data/bm3d-slurm-array.sh

.PHONY: install-user-scripts uninstall-user-scripts
