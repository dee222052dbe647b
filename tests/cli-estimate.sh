#!/bin/sh
# bm3d-denoise --sigma auto: the noise level estimated from the input
# (printed with --verbose) is close to the noise added, the result is
# denoised with it, and inputs it cannot take fail with one line.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-$(dirname "$0")/..}/tests/cli-lib.sh"

cmd=$BM3D_DENOISE
data=$top_srcdir/tests/data
mkdir "$work/out"
o=$work/out

# estimated_sigma: the level printed by the last run, from its stderr.
estimated_sigma ()
{
  sed -n 's/^bm3d-denoise: estimated noise level: sigma \([0-9.]*\) .*/\1/p' \
    "$work/run.err"
}

# auto_case NAME CLEAN SIGMA NOISY_EXT TOLERANCE: add noise, denoise with
# --sigma auto --verbose, check the estimate and that it denoised.
auto_case ()
{
  name=$1 clean=$2 sigma=$3 ext=$4 tol=$5
  "$cmd" --add-noise "$sigma" --seed 5 "$clean" "$o/$name-noisy.$ext"
  run "$cmd" --sigma auto --verbose --mode bm3d-fast --threads 2 \
    "$o/$name-noisy.$ext" "$o/$name-out.pfm"
  est=$(estimated_sigma)
  echo "# $name: sigma $sigma added, estimated ${est:-nothing}"
  if [ "$rc" -eq 0 ] && is_near "$est" "$sigma" "$tol"; then
    ok "$name: --sigma auto estimates $est for sigma $sigma (within $tol)"
  else
    not_ok "$name: --sigma auto estimates ${est:-nothing} for sigma $sigma"
    sed 's/^/#   /' "$work/run.err"
  fi
  before=$(psnr "$clean" "$o/$name-noisy.$ext")
  after=$(psnr "$clean" "$o/$name-out.pfm")
  check "$name: denoised at the estimate ($before -> $after dB)" \
    is_above "$after" "$(awk -v b="$before" 'BEGIN { print b + 4 }')"
}

if has_png; then
  # Float noise (PFM keeps it unclipped), gray and colour.
  auto_case "camera gray float" "$data/camera.png" 15 pfm 1.5
  auto_case "astronaut RGB float" "$data/astronaut.png" 30 pfm 3
  # 8-bit noise: clipped and rounded by the PNG writer.
  auto_case "brick gray 8-bit" "$data/brick.png" 10 png 1
  auto_case "coffee RGB 8-bit" "$data/coffee.png" 20 png 2

  # Without --verbose the estimate is not printed.
  run "$cmd" --sigma auto --mode bm3d-fast "$o/camera gray float-noisy.pfm" \
    "$o/quiet.pfm"
  if [ "$rc" -eq 0 ] && [ ! -s "$work/run.err" ]; then
    ok "--sigma auto without --verbose prints nothing"
  else
    not_ok "--sigma auto without --verbose prints nothing"
    sed 's/^/#   /' "$work/run.err"
  fi
else
  skip "--sigma auto on the test photographs" "built without libpng"
fi

# A constant image has no noise: estimated 0, still written (denoised at
# the least level).
{ printf 'P5\n64 64\n255\n'; head -c 4096 /dev/zero | tr '\0' '\200'; } \
  >"$work/flat.pgm"
run "$cmd" --sigma auto --verbose "$work/flat.pgm" "$o/flat-out.pgm"
if [ "$rc" -eq 0 ] && [ "$(estimated_sigma)" = "0.00" ] \
   && cmp -s "$work/flat.pgm" "$o/flat-out.pgm"; then
  ok "a constant image estimates to sigma 0.00 and comes out unchanged"
else
  not_ok "a constant image estimates to sigma 0.00 and comes out unchanged"
  sed 's/^/#   /' "$work/run.err"
fi

# Smaller than a patch: one line, exit 1, nothing written.
{ printf 'P5\n7 30\n255\n'; head -c 210 /dev/zero; } >"$work/tiny.pgm"
expect_error 1 \
  "tiny.pgm: cannot estimate the noise level: a 7x30 image is too small" \
  "--sigma auto on a 7x30 image fails with one line" \
  "$cmd" --sigma auto "$work/tiny.pgm" "$o/tiny-out.pgm"
check "nothing written for the tiny image" test ! -e "$o/tiny-out.pgm"

finish
