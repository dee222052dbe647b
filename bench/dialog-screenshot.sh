#!/bin/bash
# Retakes the README's picture of the dialog: data/dialog.png in a GIMP
# 2.10 build, data/dialog-gimp3.png in a GIMP 3 build.  The dialog opens
# in a fresh GIMP configuration, Reset brings its defaults (camera noise,
# strengths 1, BM3D), and the window is taken once the preview shows
# their result, on a dark photograph with a phone's noise.  The photograph
# is coffee.png (tests/data, CC0) through the pipeline of
# tests/make-dark-photo.py, whole: back to linear light, under-exposed
# ten times, Poisson-Gaussian noise, amplified back, 8 bits.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/dialog-screenshot.sh [BUILD-DIR] [OUT.png]
#
# OUT defaults to the picture of the build's GIMP, in the source tree.
# Needs what tests/gimp-dialog.sh needs (GIMP, xvfb-run, xdotool,
# ImageMagick's import), and python3.
set -u
if test "${1:-}" != --inner; then
  top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
  top_builddir=$(cd "${1:-$top_srcdir/_build}" && pwd) || exit 1
  out=${2:-}
  export top_srcdir top_builddir
fi
if grep -q '^GIMP3_TRUE=$' "$top_builddir/config.status" 2> /dev/null \
   || grep -q 'S\["GIMP3_TRUE"\]=""' "$top_builddir/config.status" 2> /dev/null
then
  . "$top_srcdir/tests/gimp3-lib.sh"
  picture=dialog-gimp3.png
else
  . "$top_srcdir/tests/gimp-lib.sh"
  picture=dialog.png
fi
title='^BM3D Denoise$'

inner ()
{
  local window
  gimp_runs=0
  run_gimp "$work/gimp.log" \
    "(let* ((image (t-load \"$work/dark.png\")))
       (t-run RUN-INTERACTIVE image (t-drawable image) 25.0 $bm3d_auto))" &
  gimp_pid=$!
  window=$(wait_window)
  if test -n "$window"; then
    focus "$window"
    # Reset: the defaults, whatever values the configuration folder
    # holds (a fresh one opens at them already).
    wait_log ' drawn ' 300
    xdotool key alt+r
    if wait_log 'drawn .* fast=0 .*noise=camera strength=1 chroma-strength=1$' 300
    then
      sleep 1
      import -window "$window" "$work/shot.png" 2>> "$work/driver.out"
    fi
    xdotool key Escape
  fi
  wait "$gimp_pid"
}

if test "${1:-}" = --inner; then
  shift
  inner
  exit 0
fi

# The tests' helper program, which make check builds.
make -s -C "$top_builddir" tests/gimp-pixels > /dev/null 2>&1 || :
require_tools
require_display_tools
setup_gimp
: > "$work/driver.out"
dialog_log=$work/dialog.log
: > "$dialog_log"

# The dark photograph, through PPM: python3 alone, no imaging library.
"$command" --convert "$top_srcdir/tests/data/coffee.png" "$work/coffee.ppm" \
  || exit 1
python3 - "$work/coffee.ppm" "$work/dark.ppm" <<'PY'
import math, random, sys
EXPOSURE, SHOT, READ, SEED = 0.1, 0.0008, 4e-6, 35
data = open(sys.argv[1], "rb").read()
parts = data.split(maxsplit=4)
assert parts[0] == b"P6" and parts[3] == b"255"
w, h = int(parts[1]), int(parts[2])
pixels = parts[4][:w * h * 3]
rng = random.Random(SEED)
out = bytearray(len(pixels))
for i, v in enumerate(pixels):
    raw = (v / 255) ** 2.2 * EXPOSURE
    noisy = raw + rng.gauss(0, 1) * math.sqrt(SHOT * raw + READ)
    x = min(max(noisy / EXPOSURE, 0.0), 1.0)
    out[i] = round(255 * x ** (1 / 2.2))
open(sys.argv[2], "wb").write(b"P6\n%d %d\n255\n" % (w, h) + bytes(out))
PY
"$command" --convert "$work/dark.ppm" "$work/dark.png" || exit 1

export work dialog_log title
BM3D_DIALOG_LOG=$dialog_log \
timeout 600 xvfb-run -a -s "-screen 0 1280x900x24 -noreset" \
  dbus-run-session -- bash "$0" --inner 2> "$work/xvfb.err"

if test -s "$work/shot.png"; then
  cp "$work/shot.png" "${out:-$top_srcdir/data/$picture}"
  echo "wrote ${out:-$top_srcdir/data/$picture}"
  grep -m 1 'drawn .* fast=0 .*noise=camera' "$dialog_log"
else
  echo "no screenshot: $(cat "$work/driver.out")" >&2
  exit 1
fi
