#!/bin/sh
# bm3d-denoise --add-noise: deterministic for a seed, different across
# seeds, the documented generator (re-implemented in tests/cli-images.py),
# the asked deviation, unclipped in PFM, alpha left alone.
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

for ext in pgm pfm png; do
  if [ "$ext" = png ] && ! has_png; then
    skip "seed determinism in PNG" "built without libpng"
    continue
  fi
  "$cmd" --add-noise 20 --seed 7 "$work/clean-gray.pgm" "$o/a.$ext"
  "$cmd" --add-noise 20 --seed 7 "$work/clean-gray.pgm" "$o/b.$ext"
  "$cmd" --add-noise 20 --seed 8 "$work/clean-gray.pgm" "$o/c.$ext"
  check "same seed, same $ext bytes" cmp "$o/a.$ext" "$o/b.$ext"
  check "another seed, other $ext bytes" \
    sh -c '! cmp -s "$1" "$2"' sh "$o/a.$ext" "$o/c.$ext"
done
"$cmd" --add-noise 20 "$work/clean-gray.pgm" "$o/default.pgm"
"$cmd" --add-noise 20 --seed 0 "$work/clean-gray.pgm" "$o/seed0.pgm"
check "the default seed is 0" cmp "$o/default.pgm" "$o/seed0.pgm"

# The generator is the documented one: splitmix64 -> xoshiro256** ->
# Box-Muller, colour samples in raster order.
"$cmd" --add-noise 10 --seed 42 "$work/clean-rgb.ppm" "$o/doc.pfm"
check "noise matches the documented generator (RGB, seed 42)" \
  $img expect-noise "$o/doc.pfm" "$work/clean-rgb.ppm" 10 42
"$cmd" --add-noise 3.5 --seed 18446744073709551615 \
  "$work/clean-gray.pgm" "$o/doc2.pfm"
check "noise matches the documented generator (gray, seed 2^64-1)" \
  $img expect-noise "$o/doc2.pfm" "$work/clean-gray.pgm" 3.5 18446744073709551615

# Deviation: a flat mid-gray 256x256 image, far from clipping.
"$cmd" --add-noise 10 --seed 3 "$work/flat-gray.pgm" "$o/flat.pfm"
set -- $($img noise "$work/flat-gray.pgm" "$o/flat.pfm")
echo "# PFM noise: mean $1, deviation $2 (asked 10)"
check "PFM noise mean is about 0" is_near "$1" 0 0.2
check "PFM noise deviation is about 10" is_near "$2" 10 0.15
"$cmd" --add-noise 10 --seed 3 "$work/flat-gray.pgm" "$o/flat.pgm"
set -- $($img noise "$work/flat-gray.pgm" "$o/flat.pgm")
echo "# PGM noise: mean $1, deviation $2 (asked 10, plus rounding)"
check "PGM noise deviation is about 10" is_near "$2" 10 0.15
p=$(psnr "$work/flat-gray.pgm" "$o/flat.pgm")
echo "# PSNR of the noisy flat image: $p dB (20 log10 (255 / 10) = 28.13)"
check "--compare gives 20 log10 (255 / sigma) for the noise" \
  is_near "$p" 28.13 0.1

# Clipping: PFM keeps values outside 0..255, integer formats clip.
"$cmd" --add-noise 60 --seed 1 "$work/clean-gray.pgm" "$o/wide.pfm"
set -- $($img range "$o/wide.pfm")
echo "# PFM range after sigma 60: $1 .. $2"
check "PFM noise is not clipped" \
  awk -v lo="$1" -v hi="$2" 'BEGIN { exit !(lo < 0 && hi > 255) }'
"$cmd" --add-noise 60 --seed 1 "$work/clean-gray.pgm" "$o/wide.pgm"
"$cmd" --convert "$o/wide.pfm" "$o/wide-clipped.pgm"
check "PGM noise is the PFM noise clipped and rounded" \
  cmp "$o/wide.pgm" "$o/wide-clipped.pgm"

# Alpha: untouched, and it draws no noise.
if has_png; then
  "$cmd" --add-noise 15 --seed 5 "$work/flat-rgba.png" "$o/rgba.png"
  check "alpha is untouched by the noise" \
    $img alpha-same "$work/flat-rgba.png" "$o/rgba.png"
  "$cmd" --convert "$work/flat-rgba.png" "$o/flat-rgb.ppm" 2>/dev/null
  "$cmd" --add-noise 15 --seed 5 "$o/flat-rgb.ppm" "$o/rgb.ppm"
  check "alpha draws no noise (RGBA and RGB get the same noise)" \
    test "$(psnr "$o/rgba.png" "$o/rgb.ppm")" = inf
else
  skip "alpha is untouched by the noise" "built without libpng"
  skip "alpha draws no noise" "built without libpng"
fi

"$cmd" --add-noise 0 "$work/rgb16.ppm" "$o/zero.ppm"
check "--add-noise 0 copies the image" cmp "$work/rgb16.ppm" "$o/zero.ppm"

finish
