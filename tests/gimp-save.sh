#!/bin/bash
# How the Script-Fu batch saves its results in GIMP 2.10, white and
# camera forms: each in its input's format and bit depth, with its ICC
# profile, EXIF and comment; JPEG at the input's quality and sampling,
# TIFF with its compression, PNG by the project's own PNG writer at zlib
# level 1 (the zlib header says so), or at the level the gimprc setting
# bm3d-png-compression names; a setting that is not a level is told on
# one line and the default used.  The PNG and JPEG files are read and
# written by the plug-in itself (imageio), the TIFF files by GIMP.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-.}/tests/gimp-lib.sh"
. "$top_srcdir/tests/gimp-save-lib.sh"

setup_save_test
mkdir -p "$work/white" "$work/camera" "$work/level9" "$work/level-bad"
# The batch's times lines say who read and wrote each file.
export BM3D_PLUGIN_TIMES=1

log=$work/gimp.log
run_gimp "$log" \
  "(script-fu-bm3d-denoise-batch \"$work/save-in/*\" 5.0 3 \"$work/white\")" \
  "(script-fu-bm3d-denoise-camera-batch \"$work/save-in/*\" 1.0 1.0 3
                                        \"$work/camera\")"
check "GIMP ran without a plug-in crash" no_crash "$log"
check "the white batch succeeded" is_ok "$log" 1
check "the camera batch succeeded" is_ok "$log" 2
check_saved_folder "$work/white" 1 white
check_paths "$log" "white and camera"
check_saved_folder "$work/camera" 1 camera

# The setting, in a gimprc of its own.
cp "$work/gimprc" "$work/gimprc-plain"
for setting in 9:level9 fast:level-bad; do
  value=${setting%%:*} out=$work/${setting#*:}
  cp "$work/gimprc-plain" "$work/gimprc"
  echo "(bm3d-png-compression \"$value\")" >> "$work/gimprc"
  run_gimp "$work/$value.log" \
    "(script-fu-bm3d-denoise-batch \"$work/save-in/*.png\" 5.0 3 \"$out\")"
  check "bm3d-png-compression \"$value\": the batch succeeded" \
    is_ok "$work/$value.log" 1
done
check_png_level "$work/level9" 9 "bm3d-png-compression \"9\""
check_png_level "$work/level-bad" 1 "bm3d-png-compression \"fast\""
check "... which is told on one line" \
  grep -q 'BM3D batch: the gimprc setting bm3d-png-compression is "fast", not a zlib level 0..9; PNG files are written at the default level' \
  "$work/fast.log"

if test $tap_failed -gt 0; then
  for f in "$log" "$work/9.log" "$work/fast.log"; do
    sed 's/^/# gimp: /' "$f"
  done
fi
finish
