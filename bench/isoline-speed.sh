#!/bin/sh
# CPU speed of the isoline mode against a reference that runs in the same
# invocation (shared machines drift): OpenCV's bilateral filter (d 9) and
# 5x5 Gaussian blur on a float image of the same size and channels, on
# the same number of threads.  Rounds alternate the two, and each figure
# is the best of its rounds.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/isoline-speed.sh [BUILD-DIR] [THREADS] [ROUNDS]
#
# Needs python3 with OpenCV and NumPy (Debian: python3-opencv); PYTHON
# overrides the interpreter.
set -e
build=${1:-.}
threads=${2:-2}
rounds=${3:-5}
python=${PYTHON:-python3}
bench="$build/bench/bm3d-bench"

if [ ! -x "$bench" ]; then
  echo "$0: $bench not found: build it with 'make -C $build'" >&2
  exit 1
fi
if ! "$python" -c 'import cv2, numpy' 2>/dev/null; then
  echo "$0: $python cannot import cv2 and numpy (install python3-opencv)" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# best_of FILE: the smallest number in FILE.
best_of ()
{
  sort -g "$1" | head -n 1
}

for r in $(seq 1 "$rounds"); do
  for ch in 1 3; do
    for variant in hybrid pipd; do
      "$bench" --mode isoline --isoline-variant "$variant" --sizes 0.25 \
        --channels "$ch" --backends cpu --threads "$threads" --repeat 3 \
        | awk '$1 !~ /^#|^MP/ { print $9 }' >> "$tmp/iso-$variant-$ch"
    done
    "$python" - "$ch" "$threads" >> "$tmp/cv-$ch" <<'EOF'
import sys, time
import cv2, numpy as np
ch, threads = int(sys.argv[1]), int(sys.argv[2])
cv2.setNumThreads(threads)
rng = np.random.default_rng(1)
shape = (512, 512, 3) if ch == 3 else (512, 512)
img = (rng.random(shape) * 255).astype(np.float32)
def best(f):
    b = 1e9
    for _ in range(5):
        t = time.perf_counter(); f(); b = min(b, time.perf_counter() - t)
    return b * 1e3
print(best(lambda: cv2.bilateralFilter(img, 9, 50.0, 5.0)),
      best(lambda: cv2.GaussianBlur(img, (5, 5), 0)))
EOF
  done
done

for ch in 1 3; do
  awk '{ print $1 }' "$tmp/cv-$ch" > "$tmp/bil-$ch"
  awk '{ print $2 }' "$tmp/cv-$ch" > "$tmp/gau-$ch"
done

echo "# 512x512, $threads thread(s), best of $rounds rounds; times in ms"
echo "| channels | isoline hybrid | isoline PI-PD | OpenCV bilateral (d 9) | OpenCV Gaussian 5x5 | hybrid / bilateral | PI-PD / bilateral |"
echo "|---|---|---|---|---|---|---|"
for ch in 1 3; do
  h=$(best_of "$tmp/iso-hybrid-$ch")
  p=$(best_of "$tmp/iso-pipd-$ch")
  b=$(best_of "$tmp/bil-$ch")
  g=$(best_of "$tmp/gau-$ch")
  awk -v c="$ch" -v h="$h" -v p="$p" -v b="$b" -v g="$g" 'BEGIN {
    printf "| %s | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f |\n",
           c == 3 ? "3 (RGB)" : "1 (gray)", h, p, b, g, h / b, p / b }'
done
