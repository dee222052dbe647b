#!/usr/bin/env bash
# The Script-Fu batch inside GIMP, stage by stage: seconds per photo
# loading, denoising and saving a folder of 12 MP photos, PNG and JPEG,
# from the plug-in's own times (BM3D_PLUGIN_TIMES=1 prints, for each
# file of plug-in-bm3d-denoise-files, its load, denoise and save, and
# for each denoise the engine's share).  "Beyond the engine" is load +
# denoise - engine + save: what the batch adds to the engine's work.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
# The PNG photos go through once for each zlib level of --levels (the
# gimprc setting bm3d-png-compression; "default" leaves it unset), the
# JPEG photos once.  Each PNG result's size is compared with the same
# photo exported by GIMP's own PNG export at level 9 (GIMP's default,
# what gimp-file-save wrote before the batch chose its saves): one more
# GIMP run loads the first case's results and exports them so.  The
# denoise is isoline (CPU), fast and deterministic, so that every level
# compresses the same pixels.  Median over the photos of each case.  On a
# busy machine the wall seconds swell; the CPU seconds of the whole batch
# (GIMP and every plug-in) a photo are steadier, and a reference piece
# of work timed before and after the batches says how loaded and how
# fast the machine was.
#
#   bench/gimp-batch-stages.sh [--count N] [--size WxH] [--levels "default 9"]
#                              [--gimp3] [--keep DIR] BUILD_DIR
#
# --gimp3: GIMP 3 (gimp-console-3.0, the GIMP 3 batch script); the build
# must be configured --with-gimp=3.  GIMP_CONSOLE overrides the program.
set -euo pipefail

count=2 size=4000x3000 levels="default 9" gimp3=0 keep=
while [ $# -gt 1 ]; do
  case $1 in
    --count) count=$2; shift 2 ;;
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
if [ "$gimp3" = 1 ]; then
  gimp_console=${GIMP_CONSOLE:-gimp-console-3.0}
  script=bm3d-denoise-batch-gimp3.scm
else
  gimp_console=${GIMP_CONSOLE:-gimp-console-2.10}
  script=bm3d-denoise-batch.scm
fi

LC_ALL=C.UTF-8
export LC_ALL
work_folder "$keep" bm3d-gimp-batch-stages
install_plugin "$work" "$plugin"
mkdir -p "$work/scripts" "$work/in"
cp "$src/data/$script" "$work/scripts/"
echo "(script-fu-path \"\${gimp_dir}/scripts:\${gimp_data_dir}/scripts:$work/scripts\")" \
  >> "$work/gimprc"
cp "$work/gimprc" "$work/gimprc-plain"
if [ ! -e "$work/in/photo-00.png" ]; then
  "$photos" --count "$count" --size "$size" --sigma 20 --formats png,jpg \
    "$work/in" "$src/tests/data/astronaut.png" "$src/data/sample.png" \
    > /dev/null
fi

# batch CASE PATTERN [LEVEL]: the Script-Fu batch over PATTERN into
# $work/out-CASE, with the gimprc setting LEVEL when given; its log
# in $work/CASE.log.
batch ()
{
  local case=$1 pattern=$2 level=${3:-} out=$work/out-$1 status=0
  rm -rf "$out"; mkdir -p "$out"
  cp "$work/gimprc-plain" "$work/gimprc"
  case $level in
    '' | default) ;;
    *) echo "(bm3d-png-compression \"$level\")" >> "$work/gimprc" ;;
  esac
  local call="(script-fu-bm3d-denoise-batch \"$work/in/$pattern\" 20.0 3 \"$out\")"
  # The CPU seconds of GIMP and all its plug-ins (bash's time counts
  # the reaped descendants): steadier than wall time on a busy machine.
  TIMEFORMAT="%U %S"
  if [ "$gimp3" = 1 ]; then
    rm -rf "$work/gimpdir3"
    { time env GIMP3_DIRECTORY="$work/gimpdir3" BM3D_PLUGIN_TIMES=1 \
        timeout 1800 "$gimp_console" -i -d -f --quit \
        --gimprc="$work/gimprc" --batch-interpreter=plug-in-script-fu-eval \
        -b "$call" > "$work/$case.log" 2>&1 || status=$?; } 2> "$work/$case.cpu"
    [ "$status" = 0 ] || { sed 's/^/  /' "$work/$case.log" >&2; exit 1; }
  else
    { time gimp "$work" "$work/$case.log" "$call" BM3D_PLUGIN_TIMES=1; } \
      2> "$work/$case.cpu"
  fi
}

# cpu_per_photo CASE: the batch's CPU seconds (user + system, GIMP and
# its plug-ins, start-up included) over its photos.
cpu_per_photo ()
{
  awk -v n="$(ls "$work/out-$1" | wc -l)" \
    'END { printf "%.1f", ($1 + $2) / n }' "$work/$1.cpu"
}

# stages CASE: per photo "load denoise engine save beyond", from the log.
stages ()
{
  awk '/: [0-9]+ x [0-9]+: read .* engine / {
         for (i = 1; i <= NF; i++) if ($i == "engine") engine = $(i + 1) }
       / load [0-9.]+ s, denoise / {
         for (i = 1; i <= NF; i++) {
           if ($i == "load") load = $(i + 1)
           if ($i == "denoise") denoise = $(i + 1)
           if ($i == "save") save = $(i + 1)
         }
         printf "%s %s %s %s %.3f\n", load, denoise, engine, save,
                load + denoise - engine + save }' "$work/$1.log"
}

median_of ()   # median_of COLUMN < rows
{
  awk -v c="$1" '{ print $c }' | median
}

# gimp_level9 CASE: CASE's PNG results exported by GIMP's own PNG export
# at level 9 (GIMP's other PNG defaults) into $work/out-gimp-9.
gimp_level9 ()
{
  local f expr= status=0
  rm -rf "$work/out-gimp-9"; mkdir -p "$work/out-gimp-9"
  for f in "$work/out-$1"/*.png; do
    local to=$work/out-gimp-9/$(basename "$f")
    if [ "$gimp3" = 1 ]; then
      # GIMP 3's Script-Fu returns a procedure's values as a list, as
      # 2.10's does: the image is its car.
      expr="$expr (let ((image (car (gimp-file-load RUN-NONINTERACTIVE \"$f\"))))
        (file-png-export #:run-mode RUN-NONINTERACTIVE #:image image
                         #:file \"$to\" #:compression 9)
        (gimp-image-delete image))"
    else
      expr="$expr (let* ((image (car (gimp-file-load RUN-NONINTERACTIVE \"$f\" \"$f\")))
                         (drawable (car (gimp-image-get-active-drawable image))))
        (file-png-save2 RUN-NONINTERACTIVE image drawable \"$to\" \"$to\"
                        0 9 1 0 0 1 1 1 1)
        (gimp-image-delete image))"
    fi
  done
  if [ "$gimp3" = 1 ]; then
    env GIMP3_DIRECTORY="$work/gimpdir3" timeout 1800 "$gimp_console" -i -d -f \
      --quit --batch-interpreter=plug-in-script-fu-eval -b "(begin $expr)" \
      > "$work/gimp-9.log" 2>&1 || status=$?
    [ "$status" = 0 ] || { sed 's/^/  /' "$work/gimp-9.log" >&2; exit 1; }
  else
    gimp "$work" "$work/gimp-9.log" "(begin $expr)"
  fi
}

# size_ratio CASE: median over the PNG results of size / the size of
# GIMP's own level-9 export of the same result.
size_ratio ()
{
  local f name
  [ -d "$work/out-gimp-9" ] || { echo "-"; return; }
  for f in "$work/out-$1"/*.png; do
    name=$(basename "$f")
    awk -v a="$(stat -c %s "$f")" \
        -v b="$(stat -c %s "$work/out-gimp-9/$name")" \
        'BEGIN { printf "%.3f\n", a / b }'
  done | median_of 1 | awk '{ printf "%.3f", $1 }'
}

# reference: a fixed piece of work, the command converting the first PNG
# photo to PPM (one thread decoding, then the write), timed before and after
# the batches: "wall / CPU" above 1 is the share of the time the
# machine's load took from it, the CPU seconds against another
# invocation's say how fast the cores were.
reference ()
{
  local wall user sys
  TIMEFORMAT="%R %U %S"
  { time "$build/cli/bm3d-denoise" --convert "$work/in/photo-00.png" \
      "$work/reference.ppm" > /dev/null 2>&1; } 2> "$work/reference.time" \
    || { echo "reference: the command failed" >&2; exit 1; }
  read -r wall user sys < "$work/reference.time"
  awk -v w="$wall" -v u="$user" -v s="$sys" \
    'BEGIN { printf "reference (one photo decoded, one thread): %.2f s wall, %.2f s CPU, wall / CPU %.2f", w, u + s, w / (u + s) }'
}

echo "== machine: $(nproc) cores, $(uname -m), $("$gimp_console" --version | head -1)"
echo "== $count photos of $size RGB 8-bit (bm3d-batch-photos, sigma 20), PNG and JPEG (quality 95)"
echo "== batch: script-fu-bm3d-denoise-batch, isoline, sigma 20, backend auto"
echo "== load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $(reference)"
cases=
for level in $levels; do
  batch "png-$level" '*.png' "$level"
  cases="$cases png-$level"
done
batch jpeg '*.jpg'
cases="$cases jpeg"
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $(reference)"
first=$(echo $cases | cut -d' ' -f1)
case $first in png-*) gimp_level9 "$first" ;; esac
echo
echo "Seconds per photo, median over the photos."
echo
echo "| case | load | denoise (engine) | save | beyond the engine | CPU s a photo | MB a file | size / GIMP's level 9 |"
echo "|---|---|---|---|---|---|---|---|"
for case in $cases; do
  rows=$(stages "$case")
  [ -n "$rows" ] || { echo "no stage times in $work/$case.log" >&2; exit 1; }
  mb=$(for f in "$work/out-$case"/*; do stat -c %s "$f"; done \
       | median_of 1 | awk '{ printf "%.1f", $1 / 1e6 }')
  ratio=-
  case $case in png-*) ratio=$(size_ratio "$case") ;; esac
  printf '| %s | %.2f | %.2f (%.2f) | %.2f | %.2f | %s | %s | %s |\n' \
    "$(echo "$case" | sed 's/^png-default$/PNG, default level/; s/^png-/PNG, level /; s/^jpeg$/JPEG/')" \
    "$(echo "$rows" | median_of 1)" "$(echo "$rows" | median_of 2)" \
    "$(echo "$rows" | median_of 3)" "$(echo "$rows" | median_of 4)" \
    "$(echo "$rows" | median_of 5)" "$(cpu_per_photo "$case")" "$mb" \
    "$ratio"
done
