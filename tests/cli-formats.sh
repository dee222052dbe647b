#!/bin/sh
# bm3d-denoise: every file format read and written back, checked by an
# independent reader (tests/cli-images.py): lossless round trips are
# bit-exact, PFM byte orders and row order are honoured, palette and
# 1-bit PNGs are expanded, 16-bit data stays 16-bit.
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

# Netpbm: the same bytes back (the header is written the same way).
for name in gray8.pgm gray16.pgm rgb8.ppm rgb16.ppm; do
  "$cmd" --convert "$work/$name" "$o/$name"
  check "$name -> $name: bit-exact" cmp "$work/$name" "$o/$name"
done
"$cmd" --convert "$work/comments.pgm" "$o/comments.pgm"
check "PGM header with comments is read" \
  $img expect "$o/comments.pgm" gray8
"$cmd" --convert "$work/gray1000.pgm" "$o/gray1000.pgm"
check "PGM maxval 1000 is read as 16-bit and rescaled" \
  $img expect "$o/gray1000.pgm" gray1000-as-16bit
"$cmd" --convert "$work/gray1bit.pgm" "$o/gray1bit.pgm"
check "PGM maxval 1 is rescaled to 0/255" \
  $img expect "$o/gray1bit.pgm" gray1bit-expanded
"$cmd" --convert "$work/gray8.pgm" "$o/upper.PGM"
check "extension in capitals" cmp "$work/gray8.pgm" "$o/upper.PGM"
"$cmd" --convert "$work/gray8.pgm" "$o/gray8.pnm"
check ".pnm extension" cmp "$work/gray8.pgm" "$o/gray8.pnm"

# PFM: both byte orders and the bottom-to-top row order, checked through
# 8-bit Netpbm written by the test script from the same samples.
for order in le be; do
  "$cmd" --convert "$work/gray8-$order.pfm" "$o/gray8-$order.pgm"
  check "PFM gray, byte order $order -> PGM: bit-exact" \
    cmp "$work/gray8.pgm" "$o/gray8-$order.pgm"
  "$cmd" --convert "$work/rgb8-$order.pfm" "$o/rgb8-$order.ppm"
  check "PFM colour, byte order $order -> PPM: bit-exact" \
    cmp "$work/rgb8.ppm" "$o/rgb8-$order.ppm"
done
"$cmd" --convert "$work/rgb8.ppm" "$o/rgb8.pfm"
"$cmd" --convert "$o/rgb8.pfm" "$o/rgb8-again.ppm"
check "PPM -> PFM -> PPM: bit-exact" cmp "$work/rgb8.ppm" "$o/rgb8-again.ppm"
"$cmd" --convert "$work/gray16.pgm" "$o/gray16.pfm"
"$cmd" --convert --depth 16 "$o/gray16.pfm" "$o/gray16-again.pgm"
check "16-bit PGM -> PFM -> 16-bit PGM: bit-exact" \
  cmp "$work/gray16.pgm" "$o/gray16-again.pgm"
"$cmd" --convert "$work/wild.pfm" "$o/wild.pfm"
check "PFM -> PFM: within one float ulp, out-of-range values kept" \
  $img close-pfm "$work/wild.pfm" "$o/wild.pfm"
"$cmd" --convert "$work/gray8-be.pfm" "$o/gray8-native.pfm"
check "big-endian PFM -> PFM: within one float ulp" \
  $img close-pfm "$work/gray8-be.pfm" "$o/gray8-native.pfm"

# Depth: 16-bit stays 16-bit unless asked otherwise.
"$cmd" --convert "$work/gray16.pgm" "$o/g16.pgm"
check "16-bit input gives 16-bit output" \
  test "$($img info "$o/g16.pgm")" = "23 17 1 16"
"$cmd" --convert --depth 8 "$work/gray16.pgm" "$o/g8.pgm"
check "--depth 8 gives 8-bit output" \
  test "$($img info "$o/g8.pgm")" = "23 17 1 8"
"$cmd" --convert --depth 16 "$work/gray8.pgm" "$o/g8to16.pgm"
"$cmd" --convert --depth 8 "$o/g8to16.pgm" "$o/g8back.pgm"
check "8 -> 16 -> 8 bits: bit-exact" cmp "$work/gray8.pgm" "$o/g8back.pgm"

if has_png; then
  for kind in gray ga rgb rgba; do
    for depth in 8 16; do
      name=$kind$depth.png
      "$cmd" --convert "$work/$name" "$o/$name"
      check "PNG $kind $depth-bit -> PNG: same samples and layout" \
        $img same "$work/$name" "$o/$name"
    done
  done
  "$cmd" --convert "$work/palette.png" "$o/palette.png"
  check "palette PNG with transparency -> 8-bit RGBA" \
    $img expect "$o/palette.png" palette
  "$cmd" --convert "$work/gray1bit.png" "$o/gray1bit.png"
  check "1-bit gray PNG -> 8-bit gray 0/255" \
    $img expect "$o/gray1bit.png" gray1bit-expanded
  "$cmd" --convert "$work/rgb16.ppm" "$o/rgb16-from-ppm.png"
  check "16-bit PPM -> PNG: same samples" \
    $img same "$work/rgb16.png" "$o/rgb16-from-ppm.png"
  "$cmd" --convert "$work/rgb8.png" "$o/rgb8-from-png.ppm"
  check "8-bit PNG -> PPM: bit-exact" cmp "$work/rgb8.ppm" "$o/rgb8-from-png.ppm"
  run "$cmd" --convert "$work/rgba8.png" "$o/rgba8.ppm"
  if [ "$rc" -eq 0 ] && grep -q 'alpha dropped' "$work/run.err"; then
    ok "RGBA PNG -> PPM: alpha dropped with a notice"
  else
    not_ok "RGBA PNG -> PPM: alpha dropped with a notice"
  fi
  check "RGBA PNG -> PPM: colour samples kept" \
    test "$(psnr "$work/rgba8.png" "$o/rgba8.ppm")" = inf
  expect_error 1 'truncated PNG' "truncated PNG: exit 1" \
    "$cmd" --convert "$work/truncated.png" "$o/x.png"
  expect_error 1 'badcrc.png' "PNG with damaged data: exit 1" \
    "$cmd" --convert "$work/badcrc.png" "$o/x.png"
  expect_error 1 'garbage.png' "PNG with garbage chunks: exit 1" \
    "$cmd" --convert "$work/garbage.png" "$o/x.png"
  expect_error 1 'hugedims.png' "PNG of 2^31-1 squared pixels: exit 1" \
    "$cmd" --convert "$work/hugedims.png" "$o/x.png"
  expect_error 1 'cannot create' "PNG into a missing folder: exit 1" \
    "$cmd" --convert "$work/rgb8.png" "$o/missing/x.png"
else
  skip "PNG round trips" "built without libpng"
fi

# The PFM samples of a Netpbm image are k / 255, black..white = 0..1.
"$cmd" --convert "$work/gray8.pgm" "$o/range.pfm"
check "PFM samples are on the 0..1 scale" \
  test "$($img range "$o/range.pfm")" = "0.0000 255.0000"

finish
