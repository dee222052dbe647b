#!/bin/bash
# plug-in-bm3d-denoise mode 2 (non-local means) inside GIMP: RGB, RGBA,
# gray and gray+alpha layers at 8-bit and 32-bit float precision are
# denoised as well as `bm3d-denoise --mode nlm` does on the same noisy
# input, alpha comes back bit-exact, a selection leaves every pixel
# outside it bit-exact, strips of 40 rows give exactly the one-piece
# result, and the Script-Fu batch runs mode 2.
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

"$pixels" crop "$top_srcdir/data/sample.png" "$work/clean-tall.png" \
  150 40 128 200 || exit 1
"$command" --add-noise 25 --seed 7 "$work/clean-tall.png" \
  "$work/noisy-tall.png" || exit 1

# The command's result and PSNR on the same noisy input.
nlm_reference ()
{
  "$command" --sigma "$sigma" --mode nlm --backend auto \
    "$work/noisy-$1.png" "$work/command-nlm-$1.png" > /dev/null \
    || return 1
  "$pixels" psnr "$work/clean-$1.png" "$work/command-nlm-$1.png"
}

exprs=()
layout_exprs "2 0"
# One piece, on the CPU (strips are compared with it bit for bit).
exprs+=("(t-denoise \"$work/noisy-tall.png\" PRECISION-U8-GAMMA #f
          RUN-NONINTERACTIVE $sigma 2 1 #f \"$work/whole-after.raw\")")
mkdir -p "$work/in" "$work/out"
cp "$work/noisy-rgb.png" "$work/in/a.png"
cp "$work/noisy-graya.png" "$work/in/b.png"
exprs+=("(script-fu-bm3d-denoise-batch \"$work/in/*.png\" $sigma 2
          \"$work/out\")")

log=$work/gimp.log
run_gimp "$log" "${exprs[@]}"
check "GIMP ran without a plug-in crash" no_crash "$log"

log_strips=$work/gimp-strips.log
BM3D_STRIP_ROWS=40
export BM3D_STRIP_ROWS
run_gimp "$log_strips" \
  "(t-denoise \"$work/noisy-tall.png\" PRECISION-U8-GAMMA #f
     RUN-NONINTERACTIVE $sigma 2 1 #f \"$work/strips-after.raw\")"
unset BM3D_STRIP_ROWS
check "GIMP ran without a plug-in crash (strips)" no_crash "$log_strips"

for base in rgb gray; do
  reference=$(nlm_reference "$base") || reference=
  check "the command denoised noisy-$base.png with --mode nlm (PSNR ${reference:-?} dB)" \
    test -n "$reference"
  eval "reference_$base=\${reference:-999}"
done
noisy_rgb=$("$pixels" psnr "$work/clean-rgb.png" "$work/noisy-rgb.png" 2>&1)

k=0
check_layouts "$log" "mode 2, "
check "mode 2, rgb: the denoised image is clearly better than the noisy one ($reference_rgb > $noisy_rgb + 5 dB)" \
  at_least "$reference_rgb" "$(awk -v r="$noisy_rgb" 'BEGIN { print r + 5 }')"

k=$((k + 1))
check "mode 2, one piece on the CPU: the procedure succeeded" is_ok "$log" $k
check "mode 2, strips of 40 rows: the procedure succeeded" is_ok "$log_strips" 1
# Every strip is read with 48 rows of context, more than NL-means reaches
# (2 patch radii plus the search radius, at most 27 with the published
# parameters), so the strips join exactly.  (tests/gimp-strips.sh shows
# that BM3D_STRIP_ROWS reaches the plug-in.)
check "mode 2, strips of 40 rows: bit-identical to one piece" \
  cmp "$work/whole-after.raw" "$work/strips-after.raw"

k=$((k + 1))
check "batch with mode 2: succeeded" is_ok "$log" $k
for pair in a:rgb b:graya; do
  name=${pair%%:*} layout=${pair#*:}
  eval "reference=\$reference_${layout%a}"
  psnr=$("$pixels" psnr "$work/clean-$layout.png" "$work/out/$name.png" 2>&1)
  check "batch with mode 2: out/$name.png ($layout): PSNR $psnr dB >= the command's $reference dB - 0.05" \
    at_least "$psnr" "$(awk -v r="$reference" 'BEGIN { print r - 0.05 }')"
done
check "batch with mode 2: out/b.png alpha bit-exact" \
  "$pixels" same-alpha "$work/in/b.png" "$work/out/b.png"

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$log"
  sed 's/^/# gimp (strips): /' "$log_strips"
fi
finish
