#!/bin/bash
# Backend auto against cuda and cpu for one photo: bm3d-denoise run cold
# (a new process each time), whole process timed from outside, N runs
# each, per mode; what auto chose (its --verbose line, or "device" when
# it printed none).  A 512x512 JPEG in every mode, then a 12 MP JPEG in
# modes bm3d and isoline under auto and cuda, to show the device is
# still taken there.  Then the CPU's engine time at 512x512 on 1, 2, 4,
# ... threads up to the cores, the figures bm3d_backend_for_job's
# constants (gpu/core/backend_choice.c) come from.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/auto-backend.sh BUILD
#       BUILD: a build folder (cli/bm3d-denoise, bench/bm3d-batch-photos)
#   Environment: N (runs, default 5), MODES (default "bm3d bm3d-fast nlm
#   isoline"), SIGMA (default 20), SOURCE (the picture the photos are
#   made from, default tests/data/chelsea.png), BIG (0: no 12 MP rows).
set -u

here=$(cd "$(dirname "$0")" && pwd)
N=${N:-5}
MODES=${MODES:-bm3d bm3d-fast nlm isoline}
SIGMA=${SIGMA:-20}
SOURCE=${SOURCE:-$here/../tests/data/chelsea.png}
BIG=${BIG:-1}

if [ $# -ne 1 ] || [ ! -x "$1/cli/bm3d-denoise" ]; then
  echo "usage: $0 BUILD (a build folder with cli/bm3d-denoise)" >&2
  exit 2
fi
build=$1
cmd=$build/cli/bm3d-denoise
work=$(mktemp -d /tmp/bm3d-auto-backend.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT

now () { date +%s.%N; }

# min, median and max of the numbers on standard input.
spread () {
  sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "- | - | -"; exit }
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.3f | %.3f | %.3f\n", v[1], m, v[NR] }'
}

for size in 512x512 4000x3000; do
  [ "$size" = 4000x3000 ] && [ "$BIG" = 0 ] && continue
  mkdir -p "$work/$size"
  if ! "$build/bench/bm3d-batch-photos" --count 1 --size "$size" \
       --formats jpg "$work/$size" "$SOURCE" > /dev/null; then
    echo "$0: cannot make the $size photo" >&2
    exit 1
  fi
done

# row SIZE MODE BACKEND: N cold runs; one table row.
row () {
  local in=$work/$1/photo-00.jpg choice=—
  : > "$work/times"
  for run in $(seq "$N"); do
    t0=$(now)
    if ! "$cmd" -v -m "$2" -b "$3" -s "$SIGMA" "$in" "$work/out.jpg" \
         2> "$work/log"; then
      echo "$0: failed: $cmd -m $2 -b $3 $in" >&2
      cat "$work/log" >&2
      exit 1
    fi
    t1=$(now)
    awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.4f\n", a - b }' \
      >> "$work/times"
  done
  if [ "$3" = auto ]; then
    choice=$no_device
    grep -q 'backend auto: the CPU' "$work/log" && choice=CPU
  fi
  used=$(sed -n 's/.*, backend \([a-z]*\).*/\1/p' "$work/log" | head -n 1)
  echo "| $1 | $2 | $3 | $choice | $used | $(spread < "$work/times") |"
}

# The cuda rows only where a device is usable; a build without CUDA has
# no choice to make.
backends="auto cpu"
no_device=device
"$cmd" --version | grep -q '^CUDA: not available (built without' \
  && no_device="none (no CUDA)"
"$cmd" --version | grep -q '^CUDA: available' && backends="auto cuda cpu"

echo "# Backend auto for one photo: bm3d-denoise, cold, $N runs each"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo \
  | sed 's/.*: //')$(command -v nvidia-smi > /dev/null \
  && nvidia-smi -L 2> /dev/null | head -1 | sed 's/^/, /; s/ (UUID.*//')"
echo "source tree: $(git -C "$here/.." rev-parse --short HEAD 2> /dev/null \
  || echo ?); sigma $SIGMA, JPEG -> JPEG"
echo
echo "| photo | mode | backend | auto chose | ran on | whole process min (s) | median | max |"
echo "|---|---|---|---|---|---|---|---|"
for mode in $MODES; do
  for backend in $backends; do
    row 512x512 "$mode" "$backend"
  done
done
if [ "$BIG" != 0 ]; then
  for mode in bm3d isoline; do
    for backend in ${backends% cpu}; do
      row 4000x3000 "$mode" "$backend"
    done
  done
fi

# The CPU's engine time at 512x512 by thread count: seconds per value
# (pixel and channel) per thread is engine * threads / 786432.
echo
echo "# CPU engine time, 512x512 RGB, median of $N (seconds; per value and thread in µs)"
echo
echo "| mode | threads | engine (s) | µs per value per thread |"
echo "|---|---|---|---|"
cores=$(nproc)
for mode in $MODES; do
  t=1
  while [ "$t" -le "$cores" ]; do
    : > "$work/times"
    for run in $(seq "$N"); do
      "$cmd" -v -m "$mode" -b cpu -t "$t" -s "$SIGMA" \
        "$work/512x512/photo-00.jpg" "$work/out.jpg" 2>&1 \
        | sed -n 's/.* engine \([0-9.]*\) s.*/\1/p' >> "$work/times"
    done
    engine=$(sort -g "$work/times" | awk '{ v[NR] = $1 } END {
      printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    awk -v m="$mode" -v t="$t" -v e="$engine" 'BEGIN {
      printf "| %s | %d | %.3f | %.3f |\n", m, t, e, e * t / 786432 * 1e6 }'
    [ "$t" -lt "$cores" ] && [ $((t * 2)) -gt "$cores" ] && t=$cores \
      || t=$((t * 2))
  done
done
