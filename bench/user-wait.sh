#!/bin/bash
# The user's wait for one photo, stage by stage: bm3d-denoise run cold (a
# new process each time) on a 512x512 and a 12 MP (4000x3000) photo,
# JPEG -> JPEG and PNG -> PNG; the median of N runs of each stage that
# --verbose reports (the CUDA start-up the engine still waited for, read,
# engine, write) and of the whole process, timed from outside.  Then the
# PNG writer against PIL's compress_level=1 on the same denoised 12 MP
# image in the same run (best of N each; skipped where no python3 has
# PIL), as a ratio, so that a busy or slower machine still compares.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/user-wait.sh BUILD [BUILD...]
#       BUILD: a build folder (cli/bm3d-denoise, bench/bm3d-batch-photos);
#       several (a baseline first) give rows side by side in one run.
#   Environment: N (runs, default 5), MODE (default bm3d), BACKEND
#   (default auto), SIGMA (default 20), SOURCE (the picture the photos
#   are made from, default tests/data/chelsea.png), PYTHON (one with PIL),
#   IO=both (each BUILD also with BM3D_CLI_FLOAT_IO=1: the float buffers
#   the command read and wrote 8/16-bit files through before).
#
# The photos are made by the first BUILD's bm3d-batch-photos (noisy,
# sigma 20, JPEG quality 95), in a temporary folder, removed at the end.
set -u

here=$(cd "$(dirname "$0")" && pwd)
N=${N:-5}
MODE=${MODE:-bm3d}
BACKEND=${BACKEND:-auto}
SIGMA=${SIGMA:-20}
SOURCE=${SOURCE:-$here/../tests/data/chelsea.png}

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD [BUILD...]" >&2
  exit 2
fi
for build in "$@"; do
  if [ ! -x "$build/cli/bm3d-denoise" ]; then
    echo "$0: no $build/cli/bm3d-denoise" >&2
    exit 2
  fi
done

work=$(mktemp -d /tmp/bm3d-user-wait.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT

now () { date +%s.%N; }

# The median of the numbers on standard input ("-" when there are none).
median () {
  sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) print "-";
    else if (NR % 2) printf "%.3f\n", v[(NR + 1) / 2];
    else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

photos=$1/bench/bm3d-batch-photos
for size in 512x512 4000x3000; do
  mkdir -p "$work/$size"
  if ! "$photos" --count 1 --size "$size" --formats png,jpg \
       "$work/$size" "$SOURCE" > /dev/null; then
    echo "$0: cannot make the $size photo" >&2
    exit 1
  fi
done

commit_of () {
  git -C "$here/.." rev-parse --short HEAD 2> /dev/null || echo "?"
}

echo "# The user's wait: bm3d-denoise, cold, median of $N"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo \
  | sed 's/.*: //')$(command -v nvidia-smi > /dev/null \
  && nvidia-smi -L 2> /dev/null | head -1 | sed 's/^/, /; s/ (UUID.*//')"
echo "source tree: $(commit_of); mode $MODE, backend $BACKEND, sigma $SIGMA"
echo
echo "| build | photo | files | start-up wait (s) | read (s) | engine (s) | write (s) | whole process (s) | max RSS (MiB) |"
echo "|---|---|---|---|---|---|---|---|---|"

# The variants measured: each BUILD, and with IO=both each BUILD again
# with BM3D_CLI_FLOAT_IO=1 (the float buffers of before the integer
# path) -- "BUILD float-io".  Their runs alternate, so that a busy
# machine slows them alike.
variants=()
for build in "$@"; do
  variants+=("$build")
  if [ "${IO:-integer}" = both ]; then
    variants+=("$build float-io")
  fi
done

for size in 512x512 4000x3000; do
  for ext in jpg png; do
    in=$work/$size/photo-00.$ext
    for v in "${!variants[@]}"; do
      : > "$work/times.$v"
    done
    for run in $(seq "$N"); do
      for v in "${!variants[@]}"; do
        build=${variants[$v]% float-io}
        float_io=$([ "$build" = "${variants[$v]}" ] && echo "" || echo 1)
        out=$work/out.$ext
        t0=$(now)
        if ! BM3D_CLI_FLOAT_IO=$float_io "$build/cli/bm3d-denoise" -v \
             -m "$MODE" -b "$BACKEND" -s "$SIGMA" "$in" "$out" \
             2> "$work/log"; then
          echo "$0: $build failed on $in:" >&2
          cat "$work/log" >&2
          exit 1
        fi
        t1=$(now)
        awk -v whole="$(awk -v a="$t1" -v b="$t0" 'BEGIN { print a - b }')" '
          /time: read/ {
            for (i = 1; i <= NF; i++) {
              if ($i == "read") read = $(i + 1);
              if ($i == "engine") engine = $(i + 1);
              if ($i == "write") write = $(i + 1);
            }
          }
          /start-up wait:/ { wait = $(NF - 1) }
          /peak memory:/ { rss = $5 }
          END { printf "%s %s %s %s %s %s\n", wait == "" ? "x" : wait, read,
                       engine, write, whole, rss }' "$work/log" \
          >> "$work/times.$v"
      done
    done
    for v in "${!variants[@]}"; do
      build=${variants[$v]% float-io}
      cols=""
      for c in 1 2 3 4 5 6; do
        cols="$cols | $(awk -v c=$c '$c != "x" { print $c }' \
                         "$work/times.$v" | median)"
      done
      label=$(basename "$(cd "$build" && pwd)")
      [ "$build" = "${variants[$v]}" ] || label="$label, float I/O"
      photo=$([ "$size" = 512x512 ] && echo "512x512" || echo "12 MP")
      echo "| $label | $photo | $ext -> $ext$cols |"
    done
  done
done

# The PNG writer against PIL on the 12 MP result (the last PNG written).
echo
echo "# PNG write, 12 MP denoised RGB, best of $N: this build against PIL"
python=${PYTHON:-}
if [ -z "$python" ]; then
  for p in /usr/bin/python3 python3; do
    if "$p" -c 'import PIL' 2> /dev/null; then
      python=$p
      break
    fi
  done
fi
last=${!#}
"$last/bench/bm3d-batch-photos" --write-speed --quick --repeat "$N" \
  "$work/out.png" | tee "$work/ours"
ours=$(awk -F'|' '/level 1, [0-9]+ threads? / && !seen { gsub(/ /, "", $4);
                   print $4; seen = 1 }' "$work/ours")
if [ -z "$python" ]; then
  echo "PIL: no python3 with PIL here; comparison skipped"
  exit 0
fi
pil=$("$python" - "$work/out.png" "$work/pil.png" "$N" <<'EOF'
import os, sys, time
from PIL import Image
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
image = Image.open(src)
image.load()
best = min(
    (lambda t0: (image.save(dst, compress_level=1), time.perf_counter() - t0)[1])(
        time.perf_counter())
    for _ in range(n))
print("%.3f %.2f" % (best, os.path.getsize(dst) / 1e6))
EOF
)
echo "| PIL | compress_level=1 | ${pil% *} | ${pil#* } |"
echo "ratio (this build's PNG writer, every core / PIL): $(awk -v a="$ours" \
  -v b="${pil% *}" 'BEGIN { printf "%.2f", a / b }')"
