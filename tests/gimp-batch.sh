#!/bin/bash
# script-fu-bm3d-denoise-batch inside GIMP: a folder of three images
# (RGB, gray, RGBA) is denoised into another folder, same names, as well
# as the command does; a pattern matching nothing and an output folder
# that would overwrite the inputs are refused.
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

mkdir -p "$work/in" "$work/out" "$work/keep"
cp "$work/noisy-rgb.png" "$work/in/a.png"
cp "$work/noisy-gray.png" "$work/in/b.png"
cp "$work/noisy-rgba.png" "$work/in/c.png"
echo "not an image" > "$work/in/notes.txt"
cp "$work/in/"* "$work/keep/"

log=$work/gimp.log
run_gimp "$log" \
  "(script-fu-bm3d-denoise-batch \"$work/in/*.png\" 25.0 0 \"$work/out\")" \
  "(gimp-message (if (= TRUE (car (gimp-procedural-db-proc-exists
                     \"script-fu-bm3d-denoise-batch\")))
                     \"t-registered: yes\" \"t-registered: no\"))" \
  "(script-fu-bm3d-denoise-batch \"$work/none/*.png\" 25.0 0 \"$work/out\")" \
  "(script-fu-bm3d-denoise-batch \"$work/in/*.png\" 25.0 0 \"$work/in\")"
check "GIMP ran without a plug-in crash" no_crash "$log"

said=
is_ok "$log" 1 >/dev/null || said=$(batch_said "$log" 1)
check "the batch over in/*.png succeeded$said" is_ok "$log" 1
check "the script is registered in the PDB" grep -q "t-registered: yes" "$log"
reference_rgb=$(command_psnr rgb 25 0)
reference_gray=$(command_psnr gray 25 0)
for pair in a:rgb b:gray c:rgba; do
  name=${pair%%:*} layout=${pair#*:}
  eval "reference=\$reference_${layout%a}"
  check "out/$name.png written" test -f "$work/out/$name.png"
  psnr=$("$pixels" psnr "$work/clean-$layout.png" "$work/out/$name.png" 2>&1)
  check "out/$name.png ($layout): PSNR $psnr dB >= the command's $reference dB - 0.05" \
    at_least "$psnr" "$(awk -v r="$reference" 'BEGIN { print r - 0.05 }')"
done
check "out/c.png: alpha bit-exact" \
  "$pixels" same-alpha "$work/in/c.png" "$work/out/c.png"
check "only the matching files were written" \
  test "$(ls "$work/out" | tr '\n' ' ')" = "a.png b.png c.png "

check "a pattern matching nothing is refused" \
  test "$(batch_result "$log" 3)" = error
said=
grep -q "BM3D batch: no file matches" "$log" || said=$(batch_said "$log" 3)
check "... saying so$said" grep -q "BM3D batch: no file matches" "$log"
check "writing over the inputs is refused" \
  test "$(batch_result "$log" 4)" = error
said=
grep -q "refusing to overwrite the input" "$log" || said=$(batch_said "$log" 4)
check "... saying so$said" grep -q "refusing to overwrite the input" "$log"
check "... and the inputs are untouched" diff -r "$work/keep" "$work/in"

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$log"
fi
finish
