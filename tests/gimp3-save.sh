#!/bin/bash
# How the batch saves its results in GIMP 3: the Script-Fu batch (white
# noise) and plug-in-bm3d-denoise-files with camera noise write each
# result in its input's format and bit depth, with its ICC profile, EXIF
# and comment; JPEG at the input's quality and sampling, TIFF with its
# compression, PNG by the project's own PNG writer at zlib level 1 (the
# zlib header says so).  The argument png-compression chooses another
# level, and so does the gimprc setting bm3d-png-compression when the
# argument is left out.  The PNG and JPEG files are read and written by
# the plug-in itself (imageio), the TIFF files by GIMP.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-.}/tests/gimp3-lib.sh"
. "$top_srcdir/tests/gimp-save-lib.sh"

setup_save_test
mkdir -p "$work/white" "$work/camera" "$work/level9" "$work/level2"
# The batch's times lines say who read and wrote each file.
export BM3D_PLUGIN_TIMES=1

inputs=()
for name in $save_formats; do
  inputs+=("$work/save-in/$name")
done
files_call ()
{
  echo "(plug-in-bm3d-denoise-files #:run-mode RUN-NONINTERACTIVE
     #:files $(scheme_list "${inputs[@]}") #:out-dir \"$1\"
     #:mode \"isoline\" $2)"
}

run_gimp "$work/white.log" \
  "(script-fu-bm3d-denoise-batch \"$work/save-in/*\" 5.0 3 \"$work/white\")"
run_gimp "$work/camera.log" \
  "$(files_call "$work/camera" "#:noise \"camera\"")"
run_gimp "$work/level9.log" \
  "$(files_call "$work/level9" "#:sigma 5.0 #:png-compression 9")"
echo '(bm3d-png-compression "2")' >> "$work/gimprc"
run_gimp "$work/level2.log" \
  "$(files_call "$work/level2" "#:sigma 5.0")"

for run in white camera level9 level2; do
  check "$run: no plug-in crash" no_crash "$work/$run.log"
  check "$run: the batch succeeded" exited_with "$work/$run.log" 0
done
check_saved_folder "$work/white" 1 white
check_paths "$work/white.log" white
check_saved_folder "$work/camera" 1 camera
check_png_level "$work/level9" 9 "png-compression 9"
check_png_level "$work/level2" 2 "bm3d-png-compression \"2\""

if test $tap_failed -gt 0; then
  for run in white camera level9 level2; do
    sed "s/^/# gimp $run: /" "$work/$run.log"
  done
fi
finish
