#!/bin/bash
# plug-in-bm3d-denoise inside GIMP, for RGB, RGBA, gray and gray+alpha
# layers at 8-bit, 16-bit and 32-bit float precision (perceptual), plus
# float linear light: the result is as good as the command's on the same
# noisy input, alpha comes back bit-exact, and with a selection every
# pixel outside it comes back bit-exact.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-.}/tests/gimp-lib.sh"

require_tools
setup_gimp
make_inputs

procedure_exprs
log=$work/gimp.log
run_gimp "$log" "${exprs[@]}"
check "GIMP ran without a plug-in crash" no_crash "$log"
check_procedure_results "$log"

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$log"
fi
finish
