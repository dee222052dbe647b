# Script-Fu batch script, the sample image and its licence.
if HAVE_GIMP
gimpscript_DATA = data/bm3d-denoise-batch.scm

install-user-scripts:
	@$(gimp_user_dir); \
	echo " installing the batch script into $$dir/scripts"; \
	$(MKDIR_P) "$$dir/scripts" && \
	$(INSTALL_DATA) $(srcdir)/data/bm3d-denoise-batch.scm "$$dir/scripts/"

uninstall-user-scripts:
	@$(gimp_user_dir); \
	rm -f "$$dir/scripts/bm3d-denoise-batch.scm"
endif

EXTRA_DIST += \
	data/bm3d-denoise-batch.scm \
	data/sample.png \
	data/dialog.png \
	data/LICENSE-images.md \
	data/demo.sh \
	data/bm3d-slurm-array.sh

.PHONY: install-user-scripts uninstall-user-scripts
