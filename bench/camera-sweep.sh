#!/bin/sh
# The oracle of the camera-noise benchmark: white CBM3D (CPU) on every
# noisy photograph of a PolyU-style folder (NAME_real.JPG, NAME_mean.JPG)
# at each sigma given, the result written as 8-bit PNG (clipped and
# rounded) and scored against the mean.  Prints "NAME SIGMA PSNR dB",
# which bm3d-camera-quality --oracle reads to take each photo's best.
# With --strength each value is camera mode's strength instead (its
# level as measured, times that): "NAME K PSNR dB", how far each
# photo's best strength lies from 1 (docs/camera-noise.md, "What the
# level does not see").
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/camera-sweep.sh [--strength] BM3D_DENOISE DIR VALUE...
#
# e.g. bench/camera-sweep.sh _build/cli/bm3d-denoise \
#        ../shared/benchmark-sets/real-noise-polyu 10 15 20 25 30
set -e
noise=white
if [ "$1" = --strength ]; then
  noise=camera
  shift
fi
usage="usage: $0 [--strength] BM3D_DENOISE DIR VALUE..."
cmd=${1:?$usage}
dir=${2:?$usage}
shift 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bm3d-sweep.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for value in "$@"; do
  for noisy in "$dir"/*_real.JPG; do
    name=$(basename "$noisy" _real.JPG)
    if [ $noise = white ]; then
      "$cmd" --backend cpu --sigma "$value" "$noisy" "$tmp/out.png"
    else
      "$cmd" --backend cpu --noise camera --strength "$value" "$noisy" \
        "$tmp/out.png"
    fi
    echo "$name $value $("$cmd" --compare "$tmp/out.png" "$dir/${name}_mean.JPG")"
  done
done
