#!/bin/sh
# The oracle of the camera-noise benchmark: white CBM3D (CPU) on every
# noisy photograph of a PolyU-style folder (NAME_real.JPG, NAME_mean.JPG)
# at each sigma given, the result written as 8-bit PNG (clipped and
# rounded) and scored against the mean.  Prints "NAME SIGMA PSNR dB",
# which bm3d-camera-quality --oracle reads to take each photo's best.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/camera-sweep.sh [BM3D_DENOISE] DIR SIGMA...
#
# e.g. bench/camera-sweep.sh _build/cli/bm3d-denoise \
#        ../shared/benchmark-sets/real-noise-polyu 10 15 20 25 30
set -e
cmd=${1:?usage: $0 BM3D_DENOISE DIR SIGMA...}
dir=${2:?usage: $0 BM3D_DENOISE DIR SIGMA...}
shift 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bm3d-sweep.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for sigma in "$@"; do
  for noisy in "$dir"/*_real.JPG; do
    name=$(basename "$noisy" _real.JPG)
    "$cmd" --backend cpu --sigma "$sigma" "$noisy" "$tmp/out.png"
    echo "$name $sigma $("$cmd" --compare "$tmp/out.png" "$dir/${name}_mean.JPG")"
  done
done
