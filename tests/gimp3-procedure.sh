#!/bin/bash
# GIMP 3: plug-in-bm3d-denoise for RGB, RGBA, gray and gray+alpha layers
# at 8-bit, 16-bit and 32-bit float precision (perceptual), plus float
# linear light and a layer mask: the 8-bit results are the command's
# pixels on the same input, every result is as good as the command's,
# alpha comes back bit-exact, and with a selection every pixel outside it
# comes back bit-exact.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-.}/tests/gimp3-lib.sh"

require_tools
setup_gimp
make_inputs

procedure_exprs
log=$work/gimp.log
run_gimp "$log" "${exprs[@]}"
check "GIMP ran without a plug-in crash" no_crash "$log"
check "gimp-console exited 0" exited_with "$log" 0
check_procedure_results "$log" exact-u8

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$log"
fi
finish
