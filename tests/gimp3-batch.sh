#!/bin/bash
# GIMP 3: script-fu-bm3d-denoise-batch, called as docs/gimp.md's one-liner
# calls it: a folder of three images (RGB, gray, RGBA) is denoised into
# another folder, same names, as well as the command does, and GIMP exits
# 0; a pattern matching nothing and an output folder that would
# overwrite the inputs are refused with a message, GIMP exits 70, and
# the inputs are untouched.
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

mkdir -p "$work/in" "$work/out" "$work/keep"
cp "$work/noisy-rgb.png" "$work/in/a.png"
cp "$work/noisy-gray.png" "$work/in/b.png"
cp "$work/noisy-rgba.png" "$work/in/c.png"
echo "not an image" > "$work/in/notes.txt"
cp "$work/in/"* "$work/keep/"

GIMPDIR=$work/gimpdir
export GIMPDIR
run_gimp "$work/gimp-1.log" \
  "(script-fu-bm3d-denoise-batch \"$work/in/*.png\" 25.0 0 \"$work/out\")"
run_gimp "$work/gimp-2.log" \
  "(script-fu-bm3d-denoise-batch \"$work/none/*.png\" 25.0 0 \"$work/out\")"
run_gimp "$work/gimp-3.log" \
  "(script-fu-bm3d-denoise-batch \"$work/in/*.png\" 25.0 0 \"$work/in\")"
run_gimp "$work/gimp-4.log" \
  "(gimp-message (if (= TRUE (car (gimp-pdb-procedure-exists
                     \"script-fu-bm3d-denoise-batch\")))
                     \"t-registered: yes\" \"t-registered: no\"))"

for j in 1 2 3 4; do
  check "GIMP run $j: no plug-in crash" no_crash "$work/gimp-$j.log"
done
check "the batch over in/*.png succeeded" is_ok "$work/gimp-1.log" 1
check "... and GIMP exited 0" exited_with "$work/gimp-1.log" 0
check "the script is registered in the PDB" \
  grep -q "t-registered: yes" "$work/gimp-4.log"
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
  test "$(batch_result "$work/gimp-2.log" 1)" = error
check "... saying so" grep -q "BM3D batch: no file matches" "$work/gimp-2.log"
check "... and GIMP exited 70" exited_with "$work/gimp-2.log" 70
check "writing over the inputs is refused" \
  test "$(batch_result "$work/gimp-3.log" 1)" = error
check "... saying so" grep -q "refusing to overwrite the input" \
  "$work/gimp-3.log"
check "... GIMP exited 70" exited_with "$work/gimp-3.log" 70
check "... and the inputs are untouched" diff -r "$work/keep" "$work/in"

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$work"/gimp-*.log
fi
finish
