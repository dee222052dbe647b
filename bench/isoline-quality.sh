#!/bin/sh
# The isoline mode's quality tables, from the shared benchmark sets
# (never copied into the project), all on the same noisy inputs
# (bm3d-quality's generator and seeds: white Gaussian, float, unclipped;
# PSNR of the output clipped to 0..255):
#   1. Set12 and 2. Kodak24 at sigma 25, image by image: BM3D (CBM3D for
#      colour), the hybrid (the default) and PI-PD, and whether the
#      hybrid meets the goal (within 2.5 dB of BM3D, 5 dB above the
#      noisy input);
#   3. colour led by the luminance (the default) against each channel
#      on its own (Kodak24 averages);
#   4. thresholds in units of the noise variance (the default) against
#      the paper's values held at their sigma-25 size, sigma 10, 25, 50;
#   5. thickened isolines.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/isoline-quality.sh [BUILD-DIR] [options for both programs,
#                            e.g. --backend cuda]
#
# Environment: BENCHMARK_SETS (default /work/shared/benchmark-sets).
set -e
build=${1:-.}
[ $# -gt 0 ] && shift
quality="$build/bench/bm3d-quality"
isoline="$build/bench/bm3d-isoline-quality"
sets=${BENCHMARK_SETS:-/work/shared/benchmark-sets}

for p in "$quality" "$isoline"; do
  if [ ! -x "$p" ]; then
    echo "$0: $p not found: build it with 'make -C $build'" >&2
    exit 1
  fi
done
if [ ! -d "$sets/set12" ] || [ ! -d "$sets/kodak24" ]; then
  echo "$0: benchmark sets not found in $sets" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

set12=$(ls "$sets"/set12/*.png)
kodak24=$(ls "$sets"/kodak24/*.png)
kodak=$kodak24
six="$sets/set12/01.png $sets/set12/02.png $sets/set12/03.png \
$sets/set12/08.png $sets/set12/09.png $sets/set12/10.png"

# average FILE: the average PSNR a run printed.
average ()
{
  awk '$1 == "average" { print $3 }' "$1"
}

# table NAME BM3D HYBRID PIPD: one row per image, then a summary.
table ()
{
  awk -v set="$1" '
    BEGIN {
      split("C.man House Peppers Starfish Monarch Airplane Parrot Lena " \
            "Barbara Boat Man Couple", names, " ")
    }
    FILENAME == ARGV[1] && $1 ~ /png$/ { noisy[$1] = $2; bm3d[$1] = $3;
                                         order[++n] = $1; next }
    FILENAME == ARGV[2] && $1 ~ /png$/ { hyb[$1] = $3; next }
    FILENAME == ARGV[3] && $1 ~ /png$/ { pipd[$1] = $3; next }
    END {
      print "| image | noisy | BM3D | hybrid | hybrid - BM3D | PI-PD | goal |"
      print "|---|---|---|---|---|---|---|"
      for (i = 1; i <= n; i++)
        {
          k = order[i]
          name = k
          if (set == "Set12")
            name = substr (k, 1, 2) " " names[substr (k, 1, 2) + 0]
          d = hyb[k] - bm3d[k]
          met = d >= -2.5 && hyb[k] >= noisy[k] + 5
          if (met) good++
          else miss = miss " " name
          printf "| %s | %.2f | %.2f | %.2f | %+.2f | %.2f | %s |\n", name,
                 noisy[k], bm3d[k], hyb[k], d, pipd[k], met ? "met" : "**no**"
          sn += noisy[k]; sb += bm3d[k]; sh += hyb[k]; sp += pipd[k]
        }
      printf "| average | %.2f | %.2f | %.2f | %+.2f | %.2f | %d of %d |\n",
             sn / n, sb / n, sh / n, (sh - sb) / n, sp / n, good, n
      if (miss != "")
        printf "\nGoal missed:%s\n", miss
    }' "$2" "$3" "$4"
}

for set in set12 kodak24; do
  eval "files=\$$set"
  # shellcheck disable=SC2086
  "$quality" --sigma 25 "$@" $files > "$tmp/$set-bm3d.txt"
  # shellcheck disable=SC2086
  "$isoline" --sigma 25 "$@" $files > "$tmp/$set-hybrid.txt"
  # shellcheck disable=SC2086
  "$isoline" --sigma 25 --isoline-variant pipd "$@" $files \
    > "$tmp/$set-pipd.txt"
done

echo "### Set12, sigma 25 (BM3D against the isoline filter)"
echo
table Set12 "$tmp/set12-bm3d.txt" "$tmp/set12-hybrid.txt" "$tmp/set12-pipd.txt"
echo
echo "### Kodak24, sigma 25 (CBM3D against the isoline filter)"
echo
table Kodak24 "$tmp/kodak24-bm3d.txt" "$tmp/kodak24-hybrid.txt" \
  "$tmp/kodak24-pipd.txt"

echo
echo "### Colour: one direction field from the luminance, or each channel alone"
echo
# shellcheck disable=SC2086
"$isoline" --sigma 25 --per-channel "$@" $kodak > "$tmp/pc-hybrid.txt"
# shellcheck disable=SC2086
"$isoline" --sigma 25 --per-channel --isoline-variant pipd "$@" $kodak \
  > "$tmp/pc-pipd.txt"
echo "| Kodak24, sigma 25 | hybrid | PI-PD |"
echo "|---|---|---|"
echo "| luminance leads, opponent channels follow (default) | $(average "$tmp/kodak24-hybrid.txt") | $(average "$tmp/kodak24-pipd.txt") |"
echo "| R, G and B each denoised as a gray image | $(average "$tmp/pc-hybrid.txt") | $(average "$tmp/pc-pipd.txt") |"

echo
echo "### Thresholds and sigma (Set12: C.man, House, Peppers, Lena, Barbara, Boat)"
echo
echo "| sigma | BM3D | hybrid, sigma^2 units (default) | hybrid, sigma-25 values fixed | PI-PD, sigma^2 units | PI-PD, fixed |"
echo "|---|---|---|---|---|---|"
for sigma in 10 25 50; do
  # shellcheck disable=SC2086
  "$quality" --sigma "$sigma" "$@" $six > "$tmp/s-bm3d.txt"
  # shellcheck disable=SC2086
  "$isoline" --sigma "$sigma" "$@" $six > "$tmp/s-h.txt"
  # shellcheck disable=SC2086
  "$isoline" --sigma "$sigma" --fixed-thresholds "$@" $six > "$tmp/s-hf.txt"
  # shellcheck disable=SC2086
  "$isoline" --sigma "$sigma" --isoline-variant pipd "$@" $six > "$tmp/s-p.txt"
  # shellcheck disable=SC2086
  "$isoline" --sigma "$sigma" --isoline-variant pipd --fixed-thresholds "$@" \
    $six > "$tmp/s-pf.txt"
  echo "| $sigma | $(average "$tmp/s-bm3d.txt") | $(average "$tmp/s-h.txt") | $(average "$tmp/s-hf.txt") | $(average "$tmp/s-p.txt") | $(average "$tmp/s-pf.txt") |"
done

echo
echo "### Thickened isolines (sigma 25, the six Set12 images; Kodak24)"
echo
# shellcheck disable=SC2086
"$isoline" --sigma 25 --thicken "$@" $six > "$tmp/t-h.txt"
# shellcheck disable=SC2086
"$isoline" --sigma 25 --thicken --isoline-variant pipd "$@" $six > "$tmp/t-p.txt"
# shellcheck disable=SC2086
"$isoline" --sigma 25 "$@" $six > "$tmp/n-h.txt"
# shellcheck disable=SC2086
"$isoline" --sigma 25 --isoline-variant pipd "$@" $six > "$tmp/n-p.txt"
# shellcheck disable=SC2086
"$isoline" --sigma 25 --thicken "$@" $kodak > "$tmp/t-k.txt"
echo "| isolines | hybrid (six) | PI-PD (six) | hybrid (Kodak24) |"
echo "|---|---|---|---|"
echo "| one pixel wide (default) | $(average "$tmp/n-h.txt") | $(average "$tmp/n-p.txt") | $(average "$tmp/kodak24-hybrid.txt") |"
echo "| three pixels wide | $(average "$tmp/t-h.txt") | $(average "$tmp/t-p.txt") | $(average "$tmp/t-k.txt") |"
