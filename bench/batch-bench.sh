#!/usr/bin/env bash
# Whole folders of photos, file to file: photos per second of one
# bm3d-denoise process over a folder (JPEG -> JPEG and PNG -> PNG), the
# time per photo of each stage, and the whole-process time of a single
# 512x512 and a single large photo, cold.  Prints Markdown tables.
# On a GPU machine the folders run with one device and one engine worker,
# one device and two workers (the default), and every device.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/batch-bench.sh [--small] [--count N] [--backend auto|cpu|cuda]
#                        [--sigma S] [--keep DIR] BUILD_DIR
#
# The photos are made from the repository's own images (tests/data and
# data/sample.png) by bench/bm3d-batch-photos: 24 different 4000x3000
# RGB photos (cropped, mirrored, upscaled, tinted, each with its own
# noise, sigma 20), as JPEG quality 95 and as PNG.  --small makes 6 of
# 800x600 instead, for a CPU; --count N makes N (96 shows two devices'
# pace better: 24 photos leave the second device's start-up and the
# last photos' tail a large share).  With more than one CUDA device visible,
# the folders are also run with --devices 0 and with every device.
set -euo pipefail

small=0 backend=auto sigma=20 keep= count=
while [ $# -gt 1 ]; do
  case $1 in
    --small) small=1; shift ;;
    --backend) backend=$2; shift 2 ;;
    --sigma) sigma=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] || { sed -n '2,/^[^#]/{/^#/p}' "$0" | sed '/Copyright (C)/,/any later version/d' >&2; exit 2; }
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
cmd=$build/cli/bm3d-denoise
photos=$build/bench/bm3d-batch-photos
[ -x "$cmd" ] && [ -x "$photos" ] || { echo "build $build first" >&2; exit 1; }

if [ "$small" = 1 ]; then size=800x600; else size=4000x3000; fi
if [ -z "$count" ]; then
  if [ "$small" = 1 ]; then count=6; else count=24; fi
fi
if [ -n "$keep" ]; then
  work=$keep; mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/bm3d-batch-bench.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi

now () { date +%s.%N; }
seconds () { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

echo "== machine: $(nproc) cores, $(uname -m); $("$cmd" --version | grep '^CUDA')"
echo "== making $count photos of $size in $work"
mkdir -p "$work/all" "$work/jpg" "$work/png"
if [ ! -e "$work/png/photo-00.png" ]; then
  "$photos" --count "$count" --size "$size" --sigma 20 --formats png,jpg \
    "$work/all" "$src/tests/data/astronaut.png" "$src/data/sample.png" \
    "$src/tests/data/camera.png"
  mv "$work/all"/*.jpg "$work/jpg/"
  mv "$work/all"/*.png "$work/png/"
fi

devices=$("$cmd" --version | sed -n 's/^CUDA: available, \([0-9]*\) device.*/\1/p')
devices=${devices:-0}
runs=("")
if [ "$backend" != cpu ] && [ "$devices" -ge 1 ]; then
  # One engine worker per GPU against the default two (host preparation
  # of one image beside the GPU work of another), then every GPU.
  runs=("--devices 0 --workers-per-device 1" "--devices 0")
  if [ "$devices" -gt 1 ]; then
    runs+=("--devices $(seq -s, 0 $((devices - 1)))")
  fi
fi

echo
echo "### A folder of $count photos ($size RGB, sigma $sigma, backend $backend)"
echo
echo "Stages: seconds per photo, each file's own time in its stage (stages"
echo "of different files overlap, so they add up to more than wall / photos)."
echo
echo "| files | devices | photos/s | wall (s) | read | engine | of which phase 1 | phase 2 | set-up and transfers | write |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for fmt in jpg png; do
  for dev in "${runs[@]}"; do
    out=$work/out-$fmt
    rm -rf "$out"; mkdir -p "$out"
    t0=$(now)
    # shellcheck disable=SC2086
    "$cmd" --backend "$backend" $dev --sigma "$sigma" --verbose -o "$out" \
      "$work/$fmt"/*."$fmt" 2>"$work/log-$fmt" \
      || { cat "$work/log-$fmt" >&2; exit 1; }
    t1=$(now)
    wall=$(seconds "$t0" "$t1")
    line=$(grep 'per photo:' "$work/log-$fmt")
    stage () { printf '%s\n' "$line" | sed -n "s/.*$1 \([0-9.]*\) s.*/\1/p"; }
    rate=$(awk -v n="$count" -v w="$wall" 'BEGIN { printf "%.2f", n / w }')
    echo "| $fmt -> $fmt | ${dev:-default} | **$rate** | $wall | $(stage 'read') | $(stage 'engine') | $(stage 'phase 1') | $(stage 'phase 2') | $(stage 'transfers') | $(stage 'write') |"
  done
done

echo
echo "### One photo, one process, cold (whole-process wall time)"
echo
"$cmd" --add-noise 20 --seed 7 "$src/tests/data/astronaut.png" "$work/single-512.png"
echo "| image | first run (s) | second run (s) |"
echo "|---|---|---|"
for input in "$work/single-512.png" "$work/png/photo-00.png" "$work/jpg/photo-00.jpg"; do
  ext=${input##*.}
  label="$(basename "$input") ($size)"
  [ "$input" = "$work/single-512.png" ] && label="$(basename "$input") (512x512)"
  times=
  for run in 1 2; do
    t0=$(now)
    "$cmd" --backend "$backend" --sigma "$sigma" "$input" "$work/single-out.$ext"
    t1=$(now)
    times="$times | $(seconds "$t0" "$t1")"
  done
  echo "| $label$times |"
done
