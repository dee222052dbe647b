#!/bin/bash
# Dialog preview latency, measured by the dialog itself (BM3D_DIALOG_LOG):
# the time from a noise level change to the 400 x 400 RGB tile drawn,
# in real GIMP under a virtual display, per mode, on the CPU.  For each
# mode the engine has, the dialog opens with that mode and fast preview
# off, and sigma is typed REPEAT times: each change is previewed after
# GIMP's 200 ms debounce, which the figure leaves out (it starts when
# the dialog queues the render).  Then, with fast preview on, a slider
# drag: the fast mode's renders start at the change itself.  The preview
# shows a 400 x 400 selection inside the image, so that it is read with
# its whole context, as bm3d-preview-bench reads it.  The engine
# call alone is timed in the same run by bm3d-preview-bench, so that the
# figures can be compared on a shared machine.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/dialog-latency.sh [BUILD-DIR] [REPEAT]
#
# Needs what tests/gimp-dialog.sh needs (GIMP, xvfb-run, xdotool).
set -u
if test "${1:-}" != --inner; then
  top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
  top_builddir=$(cd "${1:-$top_srcdir/_build}" && pwd) || exit 1
  repeat=${2:-5}
  export top_srcdir top_builddir
fi
. "$top_srcdir/tests/gimp-lib.sh"

title='^BM3D Denoise$'

# session_log and wait_gone: the dialog tests' (tests/gimp-checks.sh).
# wait_log says a time-out on stderr here.
wait_log ()
{
  local i
  for i in $(seq 1 $(( ${2:-120} * 10 ))); do
    session_log | grep -q -E "$1" && return 0
    sleep 0.1
  done
  echo "timed out waiting for: $1" >&2
  return 1
}

# One dialog: wait for its first tile, then either type sigmas or drag.
drive ()
{
  local how=$1 window sigma geometry x y h i
  window=$(timeout 180 xdotool search --sync --name "$title" | head -n 1)
  test -n "$window" || return 1
  xdotool windowfocus --sync "$window" 2> /dev/null
  wait_log ' drawn '
  if test "$how" = type; then
    for i in $(seq 1 "$repeat"); do
      sigma=$((10 + 2 * i))
      xdotool key alt+n ctrl+a
      xdotool type --delay 20 "$sigma"
      xdotool key Tab
      wait_log "drawn .* fast=0 .*sigma=$sigma "
    done
  else
    geometry=$(session_log | grep -m 1 'geometry sigma-scale')
    x=$(echo "$geometry" | sed 's/.* x=\([0-9]*\).*/\1/')
    y=$(echo "$geometry" | sed 's/.* y=\([0-9]*\).*/\1/')
    h=$(echo "$geometry" | sed 's/.* height=\([0-9]*\).*/\1/')
    y=$((y + h / 2)) x=$((x + 30))
    xdotool mousemove "$x" "$y" mousedown 2
    for i in $(seq 1 $((10 * repeat))); do
      xdotool mousemove $((x + 2 * i)) "$y"
      sleep 0.15
    done
    xdotool mouseup 2
    # The chosen mode, once the slider rests: a second unhurried tile.
    for i in $(seq 1 600); do
      test "$(session_log | grep -c 'drawn .* fast=0 ')" -ge 2 && break
      sleep 0.1
    done
  fi
  xdotool key alt+o
  wait_gone
}

inner ()
{
  local log=$1 mode gimp_pid
  shift
  gimp_runs=0
  run_gimp "$log" "$@" &
  gimp_pid=$!
  for mode in $modes; do
    drive type
  done
  drive drag
  wait "$gimp_pid"
}

if test "${1:-}" = --inner; then
  shift
  inner "$@"
  exit 0
fi

require_tools
for tool in xvfb-run xdotool dbus-run-session; do
  command -v $tool > /dev/null 2>&1 || { echo "$tool not found" >&2; exit 1; }
done
setup_gimp
"$command" --add-noise 20 --seed 7 "$top_srcdir/tests/data/astronaut.png" \
  "$work/noisy.png" > /dev/null || exit 1

# The modes the engine has (the others answer "not implemented").
modes=
for mode in 0 1 2 3; do
  name=$(echo bm3d bm3d-fast nlm isoline | cut -d' ' -f$((mode + 1)))
  if "$command" --mode "$name" --sigma 20 --backend cpu \
       "$work/noisy.png" "$work/probe.png" > /dev/null 2>&1; then
    modes="$modes $mode"
  fi
done

# A 400 x 400 selection inside the 512 x 512 image: the preview shows
# it with its whole context around it (at the image's corner it would
# have less).
interactive="(t-denoise \"$work/noisy.png\" PRECISION-U8-GAMMA '(60 60 400 400)
              RUN-INTERACTIVE 99.0 7 7 #f \"$work/out.raw\")"
exprs=()
for mode in $modes; do
  exprs+=("(t-set-last-values $(saved_values 10 "$mode" 1 0))" "$interactive")
done
exprs+=("(t-set-last-values $(saved_values 10 0 1 1))" "$interactive")

dialog_log=$work/dialog.log
: > "$dialog_log"
export work dialog_log title modes repeat
# -noreset: no server reset when the last client leaves (see
# tests/gimp-dialog.sh).
BM3D_DIALOG_LOG=$dialog_log \
timeout 1800 xvfb-run -a -s "-screen 0 1280x900x24 -noreset" \
  dbus-run-session -- bash "$0" --inner "$work/gimp.log" "${exprs[@]}" \
  2> /dev/null

echo "# Dialog preview latency: 400x400 RGB, CPU, $(nproc) cores;" \
     "median of the tiles drawn (ms)"
printf '%-10s %-7s %-5s %6s %10s %10s\n' mode backend fast tiles latency engine
awk '/ drawn / && / width=400 height=400 / {
       for (i = 1; i <= NF; i++) { split ($i, kv, "="); f[kv[1]] = kv[2] }
       # The first tile of each dialog (sigma 10, saved) waits for the
       # probe and the first read: left out.
       if (f["sigma"] == "10") next
       key = f["mode"] " " f["backend"] " " f["fast"]
       n[key]++; lat[key, n[key]] = f["latency-ms"]; eng[key, n[key]] = f["engine-ms"]
     }
     function median (a, key, m,   i, j, t, v) {
       for (i = 1; i <= m; i++) v[i] = a[key, i] + 0
       for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
         if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
       return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
     }
     END {
       for (key in n) {
         split (key, k, " ")
         printf "%-10s %-7s %-5s %6d %10.0f %10.0f\n", k[1], k[2], k[3], n[key],
                median(lat, key, n[key]), median(eng, key, n[key])
       }
     }' "$dialog_log" | sort
echo "# Longest main-loop stall per dialog (ms):" \
     $(sed -n 's/.*longest-stall-ms=\([0-9.]*\).*/\1/p' "$dialog_log")
echo "# The same engine call without GIMP, same machine, same minute:"
"$top_builddir/bench/bm3d-preview-bench" --backends cpu --repeat "$repeat"
