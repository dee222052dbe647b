#!/bin/sh
# NL-means against the IPOL figures and OpenCV: quality on Set12 and
# Kodak24 at sigma 10, 25 and 50, and CPU speed, as Markdown tables (see
# bench/nlm_compare.py for what each table compares and how the noisy
# inputs are made).  The sets are read from the shared benchmark folder,
# never copied into the project.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/nlm-quality.sh [BUILD-DIR] [nlm_compare.py options, e.g.
#                         --threads 2 --only speed --no-large]
#
# Environment: BENCHMARK_SETS (default /work/shared/benchmark-sets),
# PYTHON (a Python 3 with numpy and OpenCV, python3-opencv on Debian).
set -e
build=${1:-.}
[ $# -gt 0 ] && shift
src=$(cd "$(dirname "$0")/.." && pwd)
sets=${BENCHMARK_SETS:-/work/shared/benchmark-sets}

if [ ! -x "$build/cli/bm3d-denoise" ]; then
  echo "$0: $build/cli/bm3d-denoise not found: build it first" >&2
  exit 1
fi
if [ ! -d "$sets/set12" ] || [ ! -d "$sets/kodak24" ]; then
  echo "$0: benchmark sets not found in $sets" >&2
  exit 1
fi
python=
for p in ${PYTHON:-} python3 /usr/bin/python3; do
  if "$p" -c 'import cv2, numpy' 2>/dev/null; then
    python=$p
    break
  fi
done
if [ -z "$python" ]; then
  echo "$0: no Python 3 with OpenCV and numpy (apt-get install python3-opencv)" >&2
  exit 1
fi
exec "$python" "$src/bench/nlm_compare.py" --build "$build" --src "$src" \
  --sets "$sets" "$@"
