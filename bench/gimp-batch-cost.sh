#!/usr/bin/env bash
# The Script-Fu batch's cost per image beyond loading, denoising and
# saving, inside GIMP 2.10: one plug-in process for the whole list
# (plug-in-bm3d-denoise-files, what data/bm3d-denoise-batch.scm calls)
# against one plug-in process per image (plug-in-bm3d-denoise in a
# Script-Fu loop, what the batch script did before).  Each case is a
# whole gimp-console process over the same folder of photos:
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   load+save     each file loaded and saved again (gimp-file-save)
#   per image     the same with plug-in-bm3d-denoise on each image
#   one process   plug-in-bm3d-denoise-files over the list
#
# Both denoising cases run with BM3D_PLUGIN_PASSTHROUGH=1, so the engine
# costs nothing and (case - load+save) / images is the batch's cost per
# image beyond load, denoise and save.  --real adds the same two cases
# with a real denoise (isoline, CPU).  Alternated, median of --runs.
#
#   bench/gimp-batch-cost.sh [--runs N] [--count N] [--size WxH] [--real]
#                            [--keep DIR] BUILD_DIR
set -euo pipefail

runs=3 count=6 size=2000x1500 real=0 keep=
while [ $# -gt 1 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --real) real=1; shift ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] || { sed -n '2,/^[^#]/{/^#/p}' "$0" | sed '/Copyright (C)/,/any later version/d' >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/gimp-bench-lib.sh"
build_folder "$1"
gimp_console=${GIMP_CONSOLE:-gimp-console-2.10}

LC_ALL=C.UTF-8
export LC_ALL
work_folder "$keep" bm3d-gimp-batch-cost
mkdir -p "$work/in"
install_plugin "$work" "$plugin"
rm -rf "$work"/*.times "$work"/*.log "$work"/out-*
if [ ! -e "$work/in/photo-00.png" ]; then
  "$photos" --count "$count" --size "$size" --sigma 20 --formats png \
    "$work/in" "$src/tests/data/astronaut.png" "$src/data/sample.png" \
    > /dev/null
fi
count=$(ls "$work/in" | wc -l)

# expression CASE OUT-DIR: Script-Fu for one case.
expression ()
{
  local call
  case $1 in
    loadsave) call="" ;;
    per-image*) call="(plug-in-bm3d-denoise RUN-NONINTERACTIVE image drawable 20.0 3 1)" ;;
    one-process*)
      echo "(let ((found (file-glob \"$work/in/*.png\" 1)))
              (plug-in-bm3d-denoise-files RUN-NONINTERACTIVE (car found)
                                          (cadr found) \"$2\" 20.0 3 1))"
      return ;;
  esac
  echo "(for-each
          (lambda (file)
            (let* ((name (car (reverse (strbreakup file \"/\"))))
                   (out (string-append \"$2/\" name))
                   (image (car (gimp-file-load RUN-NONINTERACTIVE file file)))
                   (drawable (car (gimp-image-get-active-drawable image))))
              $call
              (gimp-file-save RUN-NONINTERACTIVE image drawable out out)
              (gimp-image-delete image)))
          (cadr (file-glob \"$work/in/*.png\" 1)))"
}

gimp "$work" "$work/warm.log" '(gimp-message "ready")'

cases="loadsave per-image one-process"
[ "$real" = 1 ] && cases="$cases per-image-isoline one-process-isoline"
echo "== machine: $(nproc) cores, $(uname -m), $("$gimp_console" --version | head -1)"
echo "== $count photos of $size RGB 8-bit PNG (bm3d-batch-photos, sigma 20), runs: $runs, median"
echo "== load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq "$runs"); do
  for case in $cases; do
    out=$work/out-$case
    rm -rf "$out"; mkdir -p "$out"
    env=()
    case $case in
      *-isoline) ;;
      loadsave) ;;
      *) env=(BM3D_PLUGIN_PASSTHROUGH=1) ;;
    esac
    start=$(now)
    gimp "$work" "$work/$case-$run.log" "$(expression "$case" "$out")" \
      "${env[@]}"
    end=$(now)
    [ "$(ls "$out" | wc -l)" = "$count" ] \
      || { echo "$case wrote $(ls "$out" | wc -l) of $count files" >&2; exit 1; }
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }' \
      >> "$work/$case.times"
  done
done
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

base=$(median < "$work/loadsave.times")
echo
echo "Seconds for the folder, median of $runs; per image: (case - load+save) / $count."
echo
echo "| case | folder (s) | beyond load+save, per image (s) |"
echo "|---|---|---|"
printf '| load+save | %.2f | - |\n' "$base"
for case in $cases; do
  [ "$case" = loadsave ] && continue
  t=$(median < "$work/$case.times")
  printf '| %s | %.2f | %s |\n' "$case" "$t" \
    "$(awk -v t="$t" -v b="$base" -v n="$count" 'BEGIN { printf "%.2f", (t - b) / n }')"
done
