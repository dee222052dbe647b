#!/bin/sh
# bm3d-denoise: denoising small synthetic images improves PSNR (gray,
# colour, alpha, 16-bit, PFM, odd and tiny sizes; NL-means on clipped
# noise); integer files give the float path's bytes; --psnr agrees with
# --compare; --verbose reports; the thread count does not change the
# result.  CPU backend, so the figures hold on any machine.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-$(dirname "$0")/..}/tests/cli-lib.sh"

prepare_images

cmd=$BM3D_DENOISE
img="python3 $IMAGES"
o=$work/out

# improves CLEAN NOISY DENOISED GAIN DESCRIPTION: PSNR gains at least GAIN.
improves ()
{
  before=$(psnr "$1" "$2")
  after=$(psnr "$1" "$3")
  echo "# $5: PSNR $before -> $after dB"
  if is_above "$after" "$(awk -v b="$before" -v g="$4" 'BEGIN { print b + g }')"
  then
    ok "$5: PSNR gains at least $4 dB"
  else
    not_ok "$5: PSNR gains at least $4 dB"
  fi
}

"$cmd" --add-noise 25 --seed 1 "$work/clean-gray.pgm" "$o/gray-noisy.pgm"
"$cmd" --backend cpu --sigma 25 "$o/gray-noisy.pgm" "$o/gray-bm3d.pgm"
improves "$work/clean-gray.pgm" "$o/gray-noisy.pgm" "$o/gray-bm3d.pgm" 6 \
  "gray, sigma 25, bm3d"
"$cmd" --backend cpu --sigma 25 --mode bm3d-fast \
  "$o/gray-noisy.pgm" "$o/gray-fast.pgm"
improves "$work/clean-gray.pgm" "$o/gray-noisy.pgm" "$o/gray-fast.pgm" 5 \
  "gray, sigma 25, bm3d-fast"

"$cmd" --add-noise 20 --seed 2 "$work/clean-rgb.ppm" "$o/rgb-noisy.ppm"
"$cmd" --backend cpu --sigma 20 "$o/rgb-noisy.ppm" "$o/rgb-bm3d.ppm"
improves "$work/clean-rgb.ppm" "$o/rgb-noisy.ppm" "$o/rgb-bm3d.ppm" 5 \
  "RGB, sigma 20, bm3d"

# --psnr prints the same figures as --compare on the written files.
run "$cmd" --backend cpu --sigma 20 --psnr "$work/clean-rgb.ppm" \
  "$o/rgb-noisy.ppm" "$o/rgb-psnr.ppm"
want="PSNR: input $(psnr "$work/clean-rgb.ppm" "$o/rgb-noisy.ppm") dB, output $(psnr "$work/clean-rgb.ppm" "$o/rgb-psnr.ppm") dB"
echo "# --psnr printed: $out"
check "--psnr agrees with --compare" test "$out" = "$want"
check "--psnr output file is the plain denoise" \
  cmp "$o/rgb-bm3d.ppm" "$o/rgb-psnr.ppm"

# Threads change the speed, never the result.
"$cmd" --backend cpu --threads 1 "$o/gray-noisy.pgm" "$o/gray-t1.pgm"
"$cmd" --backend cpu --threads 3 "$o/gray-noisy.pgm" "$o/gray-t3.pgm"
check "--threads 1 and --threads 3 give the same bytes" \
  cmp "$o/gray-t1.pgm" "$o/gray-t3.pgm"

# NL-means on clipped noise removes the bias it leaves near black (the
# scene's stripes and left edge, 30..40 under sigma 50).  The rule is
# the values' range: an integer file, or the same values as floats, are
# corrected alike; one float value below 0 shows the noise was not
# clipped, and the result is left as computed, the poorer one here.
"$cmd" --add-noise 50 --seed 3 "$work/clean-gray.pgm" "$o/gray-noisy50.pgm"
$img to-pfm "$o/gray-noisy50.pgm" "$o/gray-noisy50.pfm"
$img to-pfm "$o/gray-noisy50.pgm" "$o/gray-noisy50-out.pfm" -0.01
for input in gray-noisy50.pgm gray-noisy50.pfm gray-noisy50-out.pfm; do
  "$cmd" --backend cpu --mode nlm --sigma 50 "$o/$input" "$o/nlm-$input.pfm"
done
int_psnr=$(psnr "$work/clean-gray.pgm" "$o/nlm-gray-noisy50.pgm.pfm")
float_psnr=$(psnr "$work/clean-gray.pgm" "$o/nlm-gray-noisy50.pfm.pfm")
out_psnr=$(psnr "$work/clean-gray.pgm" "$o/nlm-gray-noisy50-out.pfm.pfm")
echo "# nlm, sigma 50: integer input $int_psnr dB, as floats $float_psnr dB, one float below 0: $out_psnr dB"
check "nlm: an integer file and its values as floats are corrected alike" \
  is_near "$int_psnr" "$float_psnr" 0.001
check "nlm: the correction of clipped noise gains over 0.3 dB here" \
  is_above "$int_psnr" "$(awk -v b="$out_psnr" 'BEGIN { print b + 0.3 }')"

# PFM in, PFM out: floats end to end.
"$cmd" --add-noise 25 --seed 1 "$work/clean-gray.pgm" "$o/gray-noisy.pfm"
"$cmd" --backend cpu "$o/gray-noisy.pfm" "$o/gray-bm3d.pfm"
improves "$work/clean-gray.pgm" "$o/gray-noisy.pfm" "$o/gray-bm3d.pfm" 6 \
  "gray PFM, sigma 25"

# 16-bit in, 16-bit out.
"$cmd" --add-noise 10 --seed 4 --depth 16 "$work/clean-rgb.ppm" "$o/rgb16-noisy.ppm"
"$cmd" --backend cpu --sigma 10 "$o/rgb16-noisy.ppm" "$o/rgb16-bm3d.ppm"
check "16-bit input gives 16-bit output" \
  test "$($img info "$o/rgb16-bm3d.ppm")" = "64 64 3 16"
improves "$work/clean-rgb.ppm" "$o/rgb16-noisy.ppm" "$o/rgb16-bm3d.ppm" 3 \
  "16-bit RGB, sigma 10"

# A file written at its own 8 or 16 bits goes to the engine as integers
# (bm3d_denoise_pixels); the float path (PFM out) quantized by --convert
# gives the same file.
for mode in nlm isoline bm3d; do
  "$cmd" --backend cpu --mode $mode --sigma 20 "$o/rgb-noisy.ppm" \
    "$o/int-$mode.ppm"
  "$cmd" --backend cpu --mode $mode --sigma 20 "$o/rgb-noisy.ppm" \
    "$o/float-$mode.pfm"
  "$cmd" --convert "$o/float-$mode.pfm" "$o/float-$mode.ppm"
  check "$mode, 8-bit RGB kept at 8 bits: the float path's file" \
    cmp "$o/int-$mode.ppm" "$o/float-$mode.ppm"
done
"$cmd" --backend cpu --sigma 10 "$o/rgb16-noisy.ppm" "$o/rgb16-float.pfm"
"$cmd" --convert --depth 16 "$o/rgb16-float.pfm" "$o/rgb16-float.ppm"
check "16-bit RGB kept at 16 bits: the float path's file" \
  cmp "$o/rgb16-bm3d.ppm" "$o/rgb16-float.ppm"

if has_png; then
  "$cmd" --add-noise 15 --seed 6 "$work/flat-rgba.png" "$o/rgba-noisy.png"
  "$cmd" --backend cpu --sigma 15 "$o/rgba-noisy.png" "$o/rgba-bm3d.png"
  check "RGBA: alpha is copied bit-exact" \
    $img alpha-same "$work/flat-rgba.png" "$o/rgba-bm3d.png"
  improves "$work/flat-rgba.png" "$o/rgba-noisy.png" "$o/rgba-bm3d.png" 8 \
    "RGBA, sigma 15"
  "$cmd" --add-noise 15 --seed 6 "$work/ga8.png" "$o/ga-noisy.png"
  "$cmd" --backend cpu --sigma 15 "$o/ga-noisy.png" "$o/ga-bm3d.png"
  check "gray+alpha: alpha is copied bit-exact" \
    $img alpha-same "$work/ga8.png" "$o/ga-bm3d.png"
else
  skip "RGBA denoise" "built without libpng"
fi

# Odd sizes and images smaller than a patch.
"$cmd" --backend cpu "$work/rgb8.ppm" "$o/odd.ppm"
check "23x17 RGB: denoised" test "$($img info "$o/odd.ppm")" = "23 17 3 8"
printf 'P5\n3 2\n255\n\000\100\200\300\377\020' >"$work/tiny.pgm"
"$cmd" --backend cpu "$work/tiny.pgm" "$o/tiny.pgm"
check "3x2 gray: denoised" test "$($img info "$o/tiny.pgm")" = "3 2 1 8"
printf 'P6\n1 1\n255\n\001\002\003' >"$work/one.ppm"
"$cmd" --backend cpu "$work/one.ppm" "$o/one.ppm"
check "1x1 RGB: denoised" test "$($img info "$o/one.ppm")" = "1 1 3 8"

# --verbose: backend, phase times and memory on stderr; stdout quiet.
run "$cmd" --verbose --backend cpu "$o/gray-noisy.pgm" "$o/gray-v.pgm"
sed 's/^/#   /' "$work/run.err"
check "--verbose names the backend" grep -q 'backend cpu' "$work/run.err"
check "--verbose gives the phase times" \
  grep -q 'phase 1 (hard threshold) [0-9.]* s, phase 2 (Wiener) [0-9.]* s' \
  "$work/run.err"
check "--verbose gives the peak memory" \
  grep -q 'peak memory: process [0-9.]* MiB' "$work/run.err"
check "--verbose leaves stdout empty" test ! -s "$work/run.out"
check "--verbose output is the plain denoise" \
  cmp "$o/gray-bm3d.pgm" "$o/gray-v.pgm"

finish
