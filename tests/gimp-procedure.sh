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

sigma=25
layouts="rgb rgba gray graya"
precisions="u8 u16 f32"
# A rectangle that touches no image edge and no multiple of 8.
sel_x=37 sel_y=21 sel_w=50 sel_h=61

precision_constant ()
{
  case $1 in
    u8) echo PRECISION-U8-GAMMA ;;
    u16) echo PRECISION-U16-GAMMA ;;
    f32) echo PRECISION-FLOAT-GAMMA ;;
  esac
}

exprs=()
for layout in $layouts; do
  for precision in $precisions; do
    p=$(precision_constant "$precision")
    in="$work/noisy-$layout.png"
    exprs+=("(t-denoise \"$in\" $p #f RUN-NONINTERACTIVE $sigma 0 0
              \"$work/$layout-$precision-before.raw\"
              \"$work/$layout-$precision-after.raw\")")
    exprs+=("(t-denoise \"$in\" $p '($sel_x $sel_y $sel_w $sel_h)
              RUN-NONINTERACTIVE $sigma 0 0
              \"$work/$layout-$precision-sel-before.raw\"
              \"$work/$layout-$precision-sel-after.raw\")")
  done
done
# Linear light: GIMP converts to the perceptual encoding for the engine
# and back; measured after converting the result to perceptual float.
exprs+=("(t-denoise-convert \"$work/noisy-rgba.png\" PRECISION-FLOAT-LINEAR
          $sigma 0 0 \"$work/rgba-lin-before.raw\"
          \"$work/rgba-lin-after.raw\" PRECISION-FLOAT-GAMMA
          \"$work/rgba-lin-converted.raw\")")
# A layer mask is denoised as gray; its layer stays as it was.
exprs+=("(t-denoise-mask \"$work/noisy-rgb.png\" $sigma
          \"$work/mask-before.raw\" \"$work/mask-after.raw\"
          \"$work/layer-before.raw\" \"$work/layer-after.raw\")")

log=$work/gimp.log
run_gimp "$log" "${exprs[@]}"
check "GIMP ran without a plug-in crash" no_crash "$log"

for base in rgb gray; do
  reference=$(command_psnr "$base" "$sigma" 0) || reference=
  check "the command denoised noisy-$base.png (PSNR ${reference:-?} dB)" \
    test -n "$reference"
  eval "reference_$base=\${reference:-999}"
done

k=0
for layout in $layouts; do
  eval "reference=\$reference_${layout%a}"
  c=$(channels_of "$layout")
  for precision in $precisions; do
    geometry=128x128x${c}x$precision
    name="$layout $precision"

    k=$((k + 1))
    check "$name: the procedure succeeded" is_ok "$log" $k
    psnr=$("$pixels" psnr "$work/clean-$layout.png" \
             "$work/$layout-$precision-after.raw" "$geometry" 2>&1)
    check "$name: PSNR $psnr dB >= the command's $reference dB - 0.05" \
      at_least "$psnr" "$(awk -v r="$reference" 'BEGIN { print r - 0.05 }')"
    case $layout in
      *a)
        check "$name: alpha bit-exact" "$pixels" same-alpha \
          "$work/$layout-$precision-before.raw" \
          "$work/$layout-$precision-after.raw" "$geometry" ;;
    esac

    k=$((k + 1))
    check "$name, selection: the procedure succeeded" is_ok "$log" $k
    check "$name, selection: pixels outside bit-exact, inside changed" \
      "$pixels" same-outside "$work/$layout-$precision-sel-before.raw" \
      "$work/$layout-$precision-sel-after.raw" "$geometry" \
      $sel_x $sel_y $sel_w $sel_h
  done
done

k=$((k + 1))
check "rgba float linear: the procedure succeeded" is_ok "$log" $k
psnr=$("$pixels" psnr "$work/clean-rgba.png" "$work/rgba-lin-converted.raw" \
         128x128x4xf32 2>&1)
check "rgba float linear: PSNR $psnr dB >= the command's $reference_rgb dB - 0.05" \
  at_least "$psnr" "$(awk -v r="$reference_rgb" 'BEGIN { print r - 0.05 }')"
check "rgba float linear: alpha bit-exact" "$pixels" same-alpha \
  "$work/rgba-lin-before.raw" "$work/rgba-lin-after.raw" 128x128x4xf32

k=$((k + 1))
check "layer mask: the procedure succeeded" is_ok "$log" $k
check "layer mask: denoised as one gray channel" "$pixels" same-outside \
  "$work/mask-before.raw" "$work/mask-after.raw" 128x128x1xu8 0 0 128 128
check "layer mask: the layer itself unchanged" \
  cmp "$work/layer-before.raw" "$work/layer-after.raw"

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$log"
fi
finish
