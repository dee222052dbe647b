#!/usr/bin/env bash
# GIMP's PNG export of one denoised photo at each zlib level: seconds and
# bytes, to choose the level the batch writes (plugin/bm3d-save.h).  The
# photo is made as the batch benchmark makes its photos (12 MP, sigma 20)
# and denoised by the command (isoline), smooth data as the batch's
# results are; GIMP loads it once and exports it at each level in turn
# (file-png-save2 in GIMP 2.10, file-png-export in GIMP 3), each export
# timed by the moments its messages reach stderr.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/gimp-png-levels.sh [--size WxH] [--levels "1 2 ... 9"] [--gimp3]
#                            [--keep DIR] BUILD_DIR
set -euo pipefail

size=4000x3000 levels="1 2 3 4 5 6 7 8 9" gimp3=0 keep=
while [ $# -gt 1 ]; do
  case $1 in
    --size) size=$2; shift 2 ;;
    --levels) levels=$2; shift 2 ;;
    --gimp3) gimp3=1; shift ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] || { sed -n '2,/^[^#]/{/^#/p}' "$0" | sed '/Copyright (C)/,/any later version/d' >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/gimp-bench-lib.sh"
build_folder "$1"
LC_ALL=C.UTF-8
export LC_ALL
work_folder "$keep" bm3d-gimp-png-levels
if [ ! -e "$work/denoised.png" ]; then
  "$photos" --count 1 --size "$size" --sigma 20 --formats png "$work" \
    "$src/tests/data/astronaut.png" > /dev/null
  "$build/cli/bm3d-denoise" --mode isoline --sigma 20 --backend cpu \
    "$work/photo-00.png" "$work/denoised.png" > /dev/null
fi

in=$work/denoised.png
if [ "$gimp3" = 1 ]; then
  gimp_console=${GIMP_CONSOLE:-gimp-console-3.0}
  open="(let ((image (gimp-file-load RUN-NONINTERACTIVE \"$in\")))"
  save () { echo "(file-png-export #:run-mode RUN-NONINTERACTIVE #:image image #:file \"$1\" #:compression $2)"; }
  run () { env GIMP3_DIRECTORY="$work/gimpdir3" "$gimp_console" -i -d -f \
             --quit --batch-interpreter=plug-in-script-fu-eval -b "$1"; }
else
  gimp_console=${GIMP_CONSOLE:-gimp-console-2.10}
  open="(let* ((image (car (gimp-file-load RUN-NONINTERACTIVE \"$in\" \"$in\")))
               (drawable (car (gimp-image-get-active-drawable image))))"
  # GIMP's PNG defaults but the level, as the batch writes (bm3d-save-gimp2.c).
  save () { echo "(file-png-save2 RUN-NONINTERACTIVE image drawable \"$1\" \"$1\" 0 $2 1 0 0 1 1 1 1)"; }
  run () { env GIMP2_DIRECTORY="$work/gimpdir" "$gimp_console" -i -d -f \
             -b "$1" -b '(gimp-quit 0)'; }
fi
expr=$open
for level in $levels; do
  expr="$expr (gimp-message \"t-start $level\") $(save "$work/level-$level.png" "$level") (gimp-message \"t-end $level\")"
done
expr="$expr (gimp-image-delete image))"

echo "== machine: $(nproc) cores, $(uname -m), $("$gimp_console" --version | head -1)"
echo "== one $size photo (bm3d-batch-photos, sigma 20), denoised by bm3d-denoise --mode isoline"
echo "== load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
run "$expr" 2>&1 | while IFS= read -r line; do echo "$(now) $line"; done \
  > "$work/levels.log"
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
nine=$( [ -e "$work/level-9.png" ] && stat -c %s "$work/level-9.png" || echo 0)
echo "| zlib level | export (s) | MB | size / level 9 |"
echo "|---|---|---|---|"
for level in $levels; do
  awk -v l="$level" '$0 ~ "t-start " l "$" { s = $1 } $0 ~ "t-end " l "$" { e = $1 }
                     END { if (!e) exit 1; printf "%.2f\n", e - s }' \
    "$work/levels.log" > "$work/t" \
    || { echo "level $level: no times in $work/levels.log" >&2; exit 1; }
  bytes=$(stat -c %s "$work/level-$level.png")
  awk -v l="$level" -v t="$(cat "$work/t")" -v b="$bytes" -v n="$nine" \
    'BEGIN { printf "| %s | %s | %.1f | %s |\n", l, t, b / 1e6,
             n ? sprintf("%.3f", b / n) : "-" }'
done
