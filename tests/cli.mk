# Tests of the bm3d-denoise command: TAP shell scripts.  They find the
# command through top_builddir (exported by AM_TESTS_ENVIRONMENT) and
# write their images with tests/cli-images.py (python3, standard library
# only; the scripts that need it skip without it).
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
CLI_TESTS = \
	tests/cli-usage.sh \
	tests/cli-formats.sh \
	tests/cli-noise.sh \
	tests/cli-denoise.sh \
	tests/cli-files.sh \
	tests/cli-safety.sh \
	tests/cli-batch.sh \
	tests/cli-gpu-batch.sh \
	tests/cli-estimate.sh \
	tests/cli-camera.sh \
	tests/cli-backend.sh \
	tests/cli-devices.sh \
	tests/cli-intio.sh \
	tests/cli-verbose.sh
TESTS += $(CLI_TESTS)
EXTRA_DIST += $(CLI_TESTS) tests/cli-lib.sh tests/cli-images.py \
	tests/cli-files.py
