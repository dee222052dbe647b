#!/bin/bash
# The CPU backend's scaling: one 12 MP RGB image (sigma 25, BM3D) denoised
# with 1, 2, 4, 8, 16 ... threads up to the CPUs online, engine time, and
# each count's speed-up over one thread.  Then one more one-thread run
# with BM3D_CPU_TRACE=1, whose band times bench/cpu-schedule.py turns
# into the speed-up each schedule would reach if threads cost nothing
# but the waits the bands' order imposes: the gap between that and the
# measured speed-up is the machine's (shared caches, memory bandwidth,
# clock, hyper-threads), not the schedule's.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/cpu-scaling.sh [BUILD-DIR] [MP] [CHANNELS]
#
# The order is 16 down to 1, so that a machine that heats up slows the
# many-thread runs no more than the one-thread one.
set -u
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top_srcdir/_build}" && pwd) || exit 1
mp=${2:-12}
channels=${3:-3}
bench="$build/bench/bm3d-bench"
test -x "$bench" || { echo "cpu-scaling.sh: no $bench (build first)" >&2; exit 1; }

cpus=$(nproc)
counts=
for t in 1 2 4 8 16 32 64 128; do
  test "$t" -le "$cpus" && counts="$t $counts"
done
test "$cpus" -gt 1 && ! echo " $counts" | grep -q " $cpus " && counts="$cpus $counts"

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), commit" \
     "$(git -C "$top_srcdir" rev-parse --short HEAD 2>/dev/null || echo unknown)," \
     "$cpus CPUs online"
lscpu 2>/dev/null | grep -E '^(Model name|Socket|Core|Thread|L2|L3|NUMA node\(s\))' \
  | sed 's/^/#   /'
echo "# $bench --sizes $mp --channels $channels --backends cpu --threads T --repeat 1 --no-warmup"

declare -A engine phase1 phase2
for t in $counts; do
  line=$("$bench" --sizes "$mp" --channels "$channels" --backends cpu \
           --threads "$t" --repeat 1 --no-warmup | awk '$4 == "cpu" { print }')
  test -n "$line" || { echo "cpu-scaling.sh: bm3d-bench failed at $t threads" >&2; exit 1; }
  phase1[$t]=$(echo "$line" | awk '{ print $6 }')
  phase2[$t]=$(echo "$line" | awk '{ print $7 }')
  engine[$t]=$(echo "$line" | awk '{ print $9 }')
done

echo
echo "| threads | phase 1 s | phase 2 s | engine s | speed-up over 1 |"
echo "|---|---|---|---|---|"
for t in $(echo $counts | tr ' ' '\n' | sort -n); do
  awk -v t="$t" -v p1="${phase1[$t]}" -v p2="${phase2[$t]}" \
      -v e="${engine[$t]}" -v e1="${engine[1]}" \
      'BEGIN { printf "| %d | %.2f | %.2f | %.2f | %.2f |\n",
               t, p1 / 1e3, p2 / 1e3, e / 1e3, e1 / e }'
done

trace=$(mktemp)
trap 'rm -f "$trace"' EXIT
BM3D_CPU_TRACE=1 "$bench" --sizes "$mp" --channels "$channels" \
  --backends cpu --threads 1 --repeat 1 --no-warmup 2> "$trace" > /dev/null
echo
echo "Simulated from a one-thread run's band times (bench/cpu-schedule.py):"
if command -v python3 > /dev/null; then
  python3 "$top_srcdir/bench/cpu-schedule.py" "$trace" \
    $(echo $counts | tr ' ' '\n' | sort -n)
else
  echo "(no python3: the trace's stage and band lines follow)"
  grep -E '^trace (stage|phase)' "$trace"
fi
