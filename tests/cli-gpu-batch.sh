#!/bin/sh
# bm3d-denoise batches on CUDA devices (TAP; skipped without one): the
# batch gives what single runs give, and with two or more devices every
# device takes files.  By hand on a GPU machine:
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   top_builddir=BUILD top_srcdir=SRC sh SRC/tests/cli-gpu-batch.sh
. "${top_srcdir:-$(dirname "$0")/..}/tests/cli-lib.sh"

cmd=$BM3D_DENOISE
version=$("$cmd" --version)
if ! printf '%s\n' "$version" | grep -q '^CUDA: available'; then
  echo "1..0 # SKIP no CUDA device"
  exit 0
fi
devices=$(printf '%s\n' "$version" \
          | sed -n 's/^CUDA: available, \([0-9]*\) device.*/\1/p')
echo "# $(printf '%s\n' "$version" | grep '^CUDA')"

# PSNR between two results of the CUDA backend: equal, or all but equal.
close ()
{
  p=$("$cmd" --compare "$1" "$2" | sed 's/ dB$//')
  is_above "$p" 60 || { echo "# $1: $p dB"; return 1; }
}

in=$work/in
mkdir "$in" "$work/single" "$work/batch" "$work/one" "$work/all"
data=$top_srcdir/tests/data
for i in 0 1 2 3 4 5 6 7; do
  "$cmd" --add-noise 20 --seed "$i" "$data/astronaut.png" "$in/a$i.png"
done
"$cmd" --convert "$in/a0.png" "$in/j0.jpg"
"$cmd" --add-noise 15 --seed 9 --depth 16 "$data/camera.png" "$in/c16.tif"

run "$cmd" --backend cuda --sigma 20 -o "$work/batch" "$in"/*
check "CUDA batch of 10 files: exit 0" test "$rc" -eq 0
for f in a0.png a5.png j0.jpg c16.tif; do
  "$cmd" --backend cuda --sigma 20 "$in/$f" "$work/single/$f"
  check "CUDA batch $f: as a single run" close "$work/single/$f" "$work/batch/$f"
done

# Camera mode: 8-bit files go to the device as integers, their noise
# measured on a float copy on the host (the dark photo through its level
# function); each file as its single run gives it, and the batch says
# what the single runs say (a flat file: its noise not measured; the
# noisy astronaut: white noise under texture), a line each.
mkdir "$work/cam" "$work/cam-batch" "$work/cam-single"
cp "$data/dark-coffee-noisy.png" "$in/a1.png" "$work/cam/"
{ printf 'P5\n256 256\n255\n'; head -c 65536 /dev/zero | tr '\000' '\200'; } \
  >"$work/cam/flat.pgm"
: >"$work/cam-single.err"
for f in dark-coffee-noisy.png a1.png flat.pgm; do
  "$cmd" --backend cuda --noise camera "$work/cam/$f" "$work/cam-single/$f" \
    2>>"$work/cam-single.err"
done
run "$cmd" --backend cuda --noise camera -o "$work/cam-batch" "$work/cam"/*
sort "$work/run.err" >"$work/cam-batch.said"
sort "$work/cam-single.err" >"$work/cam-single.said"
check "CUDA batch in camera mode: exit 0, and what the single runs said, line for line" \
  sh -c "test $rc -eq 0 &&
         grep -q 'flat.pgm: no camera noise could be measured' '$work/cam-batch.said' &&
         cmp -s '$work/cam-batch.said' '$work/cam-single.said'"
for f in dark-coffee-noisy.png a1.png flat.pgm; do
  check "CUDA batch in camera mode, $f: as a single run" \
    close "$work/cam-single/$f" "$work/cam-batch/$f"
done

if [ "${devices:-1}" -ge 2 ]; then
  list=$(seq -s, 0 $((devices - 1)))
  run "$cmd" --backend cuda --sigma 20 --verbose --devices 0 -o "$work/one" \
    "$in"/a*.png
  run "$cmd" --backend cuda --sigma 20 --verbose --devices "$list" \
    -o "$work/all" "$in"/a*.png
  check "--devices $list: exit 0" test "$rc" -eq 0
  used=$(sed -n 's/.*, cuda \([0-9]*\): read.*/\1/p' "$work/run.err" | sort -u \
         | wc -l)
  check "--devices $list: files went to more than one device ($used)" \
    test "$used" -ge 2
  bad=0
  for f in "$work/one"/*.png; do
    close "$f" "$work/all/$(basename "$f")" || bad=$((bad + 1))
  done
  check "--devices $list: the same results as one device" test "$bad" -eq 0
else
  skip "--devices over several GPUs" "one CUDA device"
fi
expect_error 1 'no CUDA device' "--devices beyond the last device: exit 1" \
  "$cmd" --backend cuda --devices "${devices:-1}" -o "$work/batch" "$in/a0.png"

finish
