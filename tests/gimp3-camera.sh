#!/bin/bash
# GIMP 3: camera noise through plug-in-bm3d-denoise's arguments #:noise
# ("camera" or "white"), #:strength and #:chroma-strength.  Camera noise
# is measured on the image, printed, and gives the pixels of
# `bm3d-denoise --noise camera` on the same input (within one level);
# the strengths change the result; isoline filters a capped white sigma
# and still improves the input; a strength out of range is refused by
# GIMP; a call without #:noise is white noise of its sigma, as before.
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

in=$work/noisy-rgb.png
geometry=128x128x3xu8

# camera3 NOISE STRENGTH CHROMA MODE OUT: one call, the result dumped.
camera3 ()
{
  echo "(let* ((image (t-load \"$in\"))
               (drawable (t-drawable image)))
          (plug-in-bm3d-denoise #:run-mode RUN-NONINTERACTIVE #:image image
                                #:drawables (vector drawable) #:sigma 25.0
                                #:noise \"$1\" #:strength $2
                                #:chroma-strength $3 #:mode \"$4\"
                                #:backend \"cpu\")
          (t-dump image \"$work/$5.raw\")
          (gimp-image-delete image))"
}

log=$work/gimp.log
run_gimp "$log" \
  "$(camera3 camera 1.0 1.0 bm3d camera)" \
  "$(camera3 camera 2.0 1.0 bm3d strength-2)" \
  "$(camera3 camera 1.0 2.0 bm3d chroma-2)" \
  "$(camera3 camera 1.0 1.0 isoline isoline)" \
  "$(camera3 white 1.0 1.0 bm3d white)" \
  "(t-denoise \"$in\" $u8 #f RUN-NONINTERACTIVE 25.0 \"bm3d\" \"cpu\" #f
              \"$work/no-noise-argument.raw\")"
check "GIMP ran without a plug-in crash" no_crash "$log"
check "gimp-console exited 0" exited_with "$log" 0
check "the estimated camera noise levels are printed" \
  grep -q "estimated camera noise: luma [0-9.]*, chroma [0-9.]*" "$log"

noisy=$("$pixels" psnr "$work/clean-rgb.png" "$in")
for name in camera isoline; do
  psnr=$("$pixels" psnr "$work/clean-rgb.png" "$work/$name.raw" $geometry 2>&1)
  check "$name: PSNR $psnr dB >= the noisy input's $noisy dB + 1" \
    at_least "$psnr" "$(awk -v p="$noisy" 'BEGIN { print p + 1 }')"
done
for pair in camera:bm3d isoline:isoline; do
  out=${pair%%:*} mode=${pair#*:}
  if "$command" --noise camera --mode "$mode" --backend cpu \
       "$in" "$work/command-$out.png" > /dev/null 2>&1; then
    check "mode $mode: the pixels of bm3d-denoise --noise camera, within one level" \
      "$pixels" within "$work/command-$out.png" "$work/$out.raw" 1 $geometry
  else
    not_ok "bm3d-denoise --noise camera --mode $mode ran"
  fi
done
check "strength 2 changes the result" \
  files_differ "$work/camera.raw" "$work/strength-2.raw"
check "chroma strength 2 changes the result" \
  files_differ "$work/camera.raw" "$work/chroma-2.raw"
check "camera and white noise differ" \
  files_differ "$work/camera.raw" "$work/white.raw"
check "without #:noise: white noise of sigma, as before" \
  cmp "$work/white.raw" "$work/no-noise-argument.raw"

# GIMP checks the declared range itself: uncaught, the call stops the
# batch with GIMP's message and exit status 70.
run_gimp "$work/gimp-range.log" "$(camera3 camera 0.2 1.0 bm3d range)"
check "strength 0.2: GIMP names the range" \
  grep -q -F "out of range: 0.250000 to 4.000000" "$work/gimp-range.log"
check "strength 0.2: GIMP exited 70" exited_with "$work/gimp-range.log" 70
check "strength 0.2: nothing denoised" test ! -e "$work/range.raw"

finish
