#!/usr/bin/env bash
# The plug-in's own cost inside GIMP 2.10: real gimp-console, headless,
# one 12 MP RGB photo at 8-bit, 16-bit and float precision.  Each case is
# a whole gimp-console process, timed from outside:
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   load+save      load the PNG, convert the precision, save a PNG
#   passthrough    the same with plug-in-bm3d-denoise in between, run with
#                  BM3D_PLUGIN_PASSTHROUGH=1: the drawable is read, the
#                  strips go through and the shadow buffer is written and
#                  merged exactly as in a denoise, but the engine is not
#                  called
#   isoline        the same with a real denoise (isoline, CPU: the
#                  cheapest mode)
#
# The plug-in's cost beyond the engine is passthrough - load+save.  The
# cases run alternated, the table gives the median of --runs runs, and
# the plug-in's own stage times (read, copy/engine, write, merge; it
# prints them on stderr) from the same runs.  The load average is printed
# before and after: on a shared machine read the figures against it.
# --before PLUGIN adds the passthrough and isoline cases with another
# build of the plug-in (an earlier commit's), alternated with this one's
# in the same runs, and checks that both give the same pixels.
#
#   bench/plugin-cost.sh [--runs N] [--size WxH] [--precisions "u8 u16 float"]
#                        [--before PLUGIN] [--keep DIR] BUILD_DIR
#
# Precisions: u8 (8-bit gamma, as the PNG loads), u16 (16-bit gamma),
# float (32-bit float linear light, what Image > Precision > 32 bit
# floating point gives by default), float-gamma (32-bit float,
# perceptual).  The saved PNG uses compression level 1, so that saving
# adds little noise to the differences.
set -euo pipefail

runs=3 size=4000x3000 precisions="u8 u16 float" keep= before=
while [ $# -gt 1 ]; do
  case $1 in
    --before) before=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --precisions) precisions=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] || { sed -n '2,/^[^#]/{/^#/p}' "$0" | sed '/Copyright (C)/,/any later version/d' >&2; exit 2; }
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
plugin=$build/plugin/bm3d-denoise-gimp
photos=$build/bench/bm3d-batch-photos
gimp_console=${GIMP_CONSOLE:-gimp-console-2.10}
[ -x "$plugin" ] && [ -x "$photos" ] || { echo "build $build first" >&2; exit 1; }
command -v "$gimp_console" > /dev/null || { echo "$gimp_console not found" >&2; exit 1; }

if [ -n "$keep" ]; then
  work=$keep; mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/bm3d-plugin-cost.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
LC_ALL=C.UTF-8
export LC_ALL

# Each build of the plug-in in a folder of its own with its own GIMP
# configuration.  "now" is BUILD_DIR's.
. "$src/bench/gimp-bench-lib.sh"
builds=now
[ -n "$before" ] && builds="before now"
for b in $builds; do
  if [ "$b" = now ]; then binary=$plugin; else binary=$before; fi
  install_plugin "$work/$b" "$binary"
done
rm -rf "$work/out" "$work"/*.times "$work"/*.stages "$work"/*.log
mkdir -p "$work/out"
input=$work/photo-00.png
if [ ! -e "$input" ]; then
  "$photos" --count 1 --size "$size" --sigma 20 --formats png "$work" \
    "$src/tests/data/astronaut.png" "$src/data/sample.png" > /dev/null
fi

precision_call ()
{
  case $1 in
    u8) echo "" ;;
    u16) echo "(gimp-image-convert-precision image PRECISION-U16-GAMMA)" ;;
    float) echo "(gimp-image-convert-precision image PRECISION-FLOAT-LINEAR)" ;;
    float-gamma) echo "(gimp-image-convert-precision image PRECISION-FLOAT-GAMMA)" ;;
    *) echo "unknown precision $1" >&2; exit 2 ;;
  esac
}

# expression PRECISION CASE OUTPUT
expression ()
{
  local denoise=
  case $2 in
    passthrough|isoline)
      denoise="(plug-in-bm3d-denoise RUN-NONINTERACTIVE image drawable 20.0 3 1)" ;;
  esac
  cat <<EOF
(let* ((image (car (gimp-file-load RUN-NONINTERACTIVE "$input" "$input")))
       (drawable (car (gimp-image-get-active-drawable image))))
  $(precision_call "$1")
  $denoise
  (file-png-save2 RUN-NONINTERACTIVE image drawable "$3" "$3" 0 1 0 0 0 0 0 0 0)
  (gimp-image-delete image))
EOF
}

# First start: GIMP sets the configuration up and queries the plug-in.
for b in $builds; do
  gimp "$work/$b" "$work/warm-$b.log" '(gimp-message "ready")'
done

# A case is BUILD:WHAT; load+save does not run the plug-in.
cases="now:loadsave"
for b in $builds; do
  cases="$cases $b:passthrough $b:isoline"
done
echo "== machine: $(nproc) cores, $(uname -m), $("$gimp_console" --version | head -1)"
echo "== photo: $size RGB 8-bit PNG (bm3d-batch-photos, sigma 20), runs: $runs, median"
echo "== load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq "$runs"); do
  for precision in $precisions; do
    for case in $cases; do
      b=${case%%:*} what=${case#*:}
      name=$precision-$b-$what
      env=()
      [ "$what" = passthrough ] && env=(BM3D_PLUGIN_PASSTHROUGH=1)
      [ "$what" = isoline ] && env=(BM3D_PLUGIN_TIMES=1)
      start=$(now)
      gimp "$work/$b" "$work/$name-$run.log" \
        "$(expression "$precision" "$what" "$work/out/$name.png")" "${env[@]}"
      end=$(now)
      awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }' \
        >> "$work/$name.times"
      # The plug-in's own stages: read, copy or engine, write, merge.
      sed -n 's/.*: read \([0-9.]*\) s, [a-z]* \([0-9.]*\) s, write \([0-9.]*\) s, merge \([0-9.]*\) s$/\1 \2 \3 \4/p' \
        "$work/$name-$run.log" >> "$work/$name.stages"
    done
  done
done
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

median ()
{
  sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
                                        else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# stage FILE COLUMN: the median of one stage over the runs.
stage ()
{
  if [ -s "$1" ]; then
    awk -v c="$2" '{ print $c }' "$1" | median
  else
    echo "-"
  fi
}

compare=$build/cli/bm3d-denoise
echo
echo "Seconds, median of $runs. Cost: passthrough - load+save. Its stages are the"
echo "plug-in's own (BM3D_PLUGIN_PASSTHROUGH prints them); the rest of the cost is"
echo "the plug-in process starting, the procedure call and the process ending."
echo "Pixels: PSNR of the passthrough's output against load+save's (inf: equal)."
echo
echo "| precision | plug-in | load+save | + passthrough | + isoline CPU | plug-in cost | read / copy / write / merge | rest | isoline engine | pixels |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for precision in $precisions; do
  base=$(median < "$work/$precision-now-loadsave.times")
  for b in $builds; do
    pass=$(median < "$work/$precision-$b-passthrough.times")
    real=$(median < "$work/$precision-$b-isoline.times")
    cost=$(awk -v a="$pass" -v b="$base" 'BEGIN { printf "%.2f", a - b }')
    p=$work/$precision-$b-passthrough.stages
    read=$(stage "$p" 1) copy=$(stage "$p" 2) write=$(stage "$p" 3) merge=$(stage "$p" 4)
    rest=$(awk -v c="$cost" -v r="$read" -v p="$copy" -v w="$write" -v m="$merge" \
           'BEGIN { printf "%.2f", c - r - p - w - m }')
    engine=$(stage "$work/$precision-$b-isoline.stages" 2)
    psnr=$("$compare" --compare "$work/out/$precision-now-loadsave.png" \
           "$work/out/$precision-$b-passthrough.png" 2>&1 || echo "?")
    printf '| %s | %s | %.2f | %.2f | %.2f | %s | %s / %s / %s / %s | %s | %s | %s |\n' \
      "$precision" "$b" "$base" "$pass" "$real" "$cost" "$read" "$copy" \
      "$write" "$merge" "$rest" "$engine" "$psnr"
  done
done
if [ -n "$before" ]; then
  echo
  for precision in $precisions; do
    for what in passthrough isoline; do
      psnr=$("$compare" --compare "$work/out/$precision-before-$what.png" \
             "$work/out/$precision-now-$what.png" 2>&1 || echo "?")
      echo "$precision $what: before against now, PSNR $psnr"
    done
  done
fi
