#!/bin/sh
# The quality table: PSNR of BM3D on six Set12 images at sigma 15, 25 and
# 50, and of CBM3D on Kodak24 at sigma 25, from the shared benchmark sets
# (never copied into the project).  Noise: white Gaussian, fixed seed,
# kept in floating point and not clipped; PSNR of the output clipped to
# 0..255, not rounded.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/quality.sh [BUILD-DIR] [bm3d-quality options, e.g. --backend cuda]
#
# Environment: BENCHMARK_SETS (default /work/shared/benchmark-sets).
set -e
build=${1:-.}
[ $# -gt 0 ] && shift
quality="$build/bench/bm3d-quality"
sets=${BENCHMARK_SETS:-/work/shared/benchmark-sets}

if [ ! -x "$quality" ]; then
  echo "$0: $quality not found: build it with 'make bench/bm3d-quality'" >&2
  exit 1
fi
if [ ! -d "$sets/set12" ] || [ ! -d "$sets/kodak24" ]; then
  echo "$0: benchmark sets not found in $sets" >&2
  exit 1
fi

set12="$sets/set12/01.png $sets/set12/02.png $sets/set12/03.png \
$sets/set12/08.png $sets/set12/09.png $sets/set12/10.png"

echo "| sigma | C.man | House | Peppers | Lena | Barbara | Boat | average | s/image |"
echo "|---|---|---|---|---|---|---|---|---|"
for sigma in 15 25 50; do
  # shellcheck disable=SC2086
  "$quality" --sigma "$sigma" "$@" $set12 | awk -v s="$sigma" '
    /^#/ { next }
    $1 == "average" { avg = $3; t = $4; next }
    { row = row " " $3 " |" }
    END { printf "| %s |%s %s | %.2f |\n", s, row, avg, t }'
done

echo
echo "| set | sigma | average PSNR | s/image |"
echo "|---|---|---|---|"
"$quality" --sigma 25 "$@" "$sets"/kodak24/kodim*.png | awk '
  $1 == "average" { printf "| Kodak24 (CBM3D) | 25 | %s | %.2f |\n", $3, $4 }'
