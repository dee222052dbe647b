#!/bin/bash
# plug-in-bm3d-denoise with mode 3 (isoline) inside GIMP: RGB, RGBA, gray
# and gray+alpha layers at 8-bit and float precision denoise as well as
# the command's --mode isoline on the same noisy input, alpha comes back
# bit-exact, pixels outside a selection bit-exact, the Script-Fu batch
# runs mode 3 over a folder, and denoising in strips of 40 rows (each
# read with more context than the filter reaches) gives the one-piece
# result bit for bit.
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
precisions="u8 f32"
sel_x=37 sel_y=21 sel_w=50 sel_h=61

exprs=()
for layout in $layouts; do
  for precision in $precisions; do
    eval "p=\$$precision"
    in="$work/noisy-$layout.png"
    exprs+=("(t-denoise \"$in\" $p #f RUN-NONINTERACTIVE $sigma 3 0
              \"$work/$layout-$precision-before.raw\"
              \"$work/$layout-$precision-after.raw\")")
  done
  exprs+=("(t-denoise \"$in\" PRECISION-U8-GAMMA '($sel_x $sel_y $sel_w $sel_h)
            RUN-NONINTERACTIVE $sigma 3 0
            \"$work/$layout-sel-before.raw\" \"$work/$layout-sel-after.raw\")")
done
mkdir -p "$work/in" "$work/out"
cp "$work/noisy-rgb.png" "$work/in/a.png"
cp "$work/noisy-graya.png" "$work/in/b.png"
exprs+=("(script-fu-bm3d-denoise-batch \"$work/in/*.png\" $sigma 3 \"$work/out\")")

log=$work/gimp.log
run_gimp "$log" "${exprs[@]}"
check "GIMP ran without a plug-in crash" no_crash "$log"

# The command's isoline result on the same noisy inputs.
for base in rgb gray; do
  reference=
  if "$command" --sigma "$sigma" --mode isoline --backend auto \
       "$work/noisy-$base.png" "$work/command-$base.png" > /dev/null; then
    reference=$("$pixels" psnr "$work/clean-$base.png" "$work/command-$base.png")
    noisy=$("$pixels" psnr "$work/clean-$base.png" "$work/noisy-$base.png")
  fi
  check "the command denoised noisy-$base.png with --mode isoline (PSNR ${reference:-?} dB, noisy ${noisy:-?} dB)" \
    test -n "$reference"
  eval "reference_$base=\${reference:-999}"
done

k=0
for layout in $layouts; do
  eval "reference=\$reference_${layout%a}"
  c=$(channels_of "$layout")
  for precision in $precisions; do
    geometry=128x128x${c}x$precision
    name="$layout $precision, mode 3"

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
  done
  k=$((k + 1))
  check "$layout u8, mode 3, selection: the procedure succeeded" \
    is_ok "$log" $k
  check "$layout u8, mode 3, selection: pixels outside bit-exact, inside changed" \
    "$pixels" same-outside "$work/$layout-sel-before.raw" \
    "$work/$layout-sel-after.raw" 128x128x${c}xu8 \
    $sel_x $sel_y $sel_w $sel_h
done

k=$((k + 1))
check "Script-Fu batch, mode 3: succeeded" is_ok "$log" $k
psnr=$("$pixels" psnr "$work/clean-rgb.png" "$work/out/a.png" 2>&1)
check "batch out/a.png (rgb): PSNR $psnr dB >= the command's $reference_rgb dB - 0.05" \
  at_least "$psnr" "$(awk -v r="$reference_rgb" 'BEGIN { print r - 0.05 }')"
psnr=$("$pixels" psnr "$work/clean-graya.png" "$work/out/b.png" 2>&1)
check "batch out/b.png (graya): PSNR $psnr dB >= the command's $reference_gray dB - 0.05" \
  at_least "$psnr" "$(awk -v r="$reference_gray" 'BEGIN { print r - 0.05 }')"
check "batch out/b.png: alpha bit-exact" \
  "$pixels" same-alpha "$work/in/b.png" "$work/out/b.png"

# Strips: a 128 x 200 crop in one piece, then 40 rows at a time.
"$pixels" crop "$top_srcdir/data/sample.png" "$work/clean-tall.png" \
  150 40 128 200 || exit 1
"$command" --add-noise 25 --seed 7 "$work/clean-tall.png" \
  "$work/noisy-tall.png" || exit 1
tall ()
{
  echo "(t-denoise \"$work/noisy-tall.png\" PRECISION-U8-GAMMA #f
         RUN-NONINTERACTIVE $sigma 3 0 #f \"$work/tall-$1.raw\")"
}
log_whole=$work/gimp-whole.log
log_strips=$work/gimp-strips.log
run_gimp "$log_whole" "$(tall whole)"
BM3D_STRIP_ROWS=40
export BM3D_STRIP_ROWS
run_gimp "$log_strips" "$(tall strips)"
unset BM3D_STRIP_ROWS
check "one piece, mode 3: the procedure succeeded" is_ok "$log_whole" 1
check "strips of 40 rows, mode 3: the procedure succeeded" \
  is_ok "$log_strips" 1
check "strips of 40 rows, mode 3: the one-piece result, bit for bit" \
  cmp "$work/tall-whole.raw" "$work/tall-strips.raw"

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$log" "$log_whole" "$log_strips"
fi
finish
