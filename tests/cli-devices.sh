#!/bin/sh
# bm3d-denoise's --devices for one image, and the test switch
# BM3D_TEST_FAIL_DEVICE, as far as a machine without a GPU can check
# them: the list read (a device may be given twice), refused with
# --backend cpu, and the work done on the CPU with the pixels of
# --backend cpu; the switch refused in one line when malformed, and of
# no matter where no device is used.  The split over real devices and
# a device failing are tests/gpu-tests.sh's (and cli-gpu-batch.sh's).
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-$(dirname "$0")/..}/tests/cli-lib.sh"

cmd=$BM3D_DENOISE
o=$work
if "$cmd" --version | grep -q '^CUDA: available'; then
  echo "1..0 # SKIP a CUDA device is here: tests/gpu-tests.sh checks --devices"
  exit 0
fi
if ! has_png; then
  echo "1..0 # SKIP PNG support is needed for the test photo"
  exit 0
fi
# The test photo with noise, in PFM: floats, the engine's float path.
"$cmd" --add-noise 20 --seed 3 "$top_srcdir/tests/data/chelsea.png" \
  "$o/noisy.pfm" || exit 1
run "$cmd" -b cpu -s 20 "$o/noisy.pfm" "$o/cpu.pfm"
if [ "$rc" -ne 0 ]; then
  echo "Bail out! --backend cpu failed: $err"
  exit 1
fi

# NAME FILE: ok when the last run succeeded and wrote --backend cpu's
# pixels to FILE; else not ok, with its messages.
as_cpu ()
{
  if [ "$rc" -eq 0 ] && cmp -s "$2" "$o/cpu.pfm"; then
    ok "$1"
  else
    not_ok "$1"
    printf '%s\n' "$err" | sed 's/^/# /'
  fi
}

# ---- --devices for one image
for list in 0 0,1 0,0 3,1,2; do
  run "$cmd" -s 20 --devices "$list" "$o/noisy.pfm" "$o/dev.pfm"
  as_cpu "--devices $list, one image, no GPU: --backend cpu's pixels" \
    "$o/dev.pfm"
done
expect_error 2 'CUDA backend' "--devices with --backend cpu, one image: exit 2" \
  "$cmd" --backend cpu --devices 0,1 "$o/noisy.pfm" "$o/never.pfm"
expect_error 2 'invalid device list' "--devices 0,,1, one image: exit 2" \
  "$cmd" --devices 0,,1 "$o/noisy.pfm" "$o/never.pfm"
mkdir "$o/batch"
run "$cmd" -s 20 --devices 0,0 -o "$o/batch" "$o/noisy.pfm"
as_cpu "--devices 0,0 in a batch: accepted, --backend cpu's pixels" \
  "$o/batch/noisy.pfm"
if "$cmd" --help | grep -q 'a single image of 32 megapixels'; then
  ok "--help says a large image spreads over the devices"
else
  not_ok "--help says a large image spreads over the devices"
fi

# ---- BM3D_TEST_FAIL_DEVICE
for value in x 1 1: :2 1:2:3 -1:0 1:-1 1:2x; do
  expect_error 1 'BM3D_TEST_FAIL_DEVICE must be DEVICE:TILES' \
    "BM3D_TEST_FAIL_DEVICE=$value: refused in one line, exit 1" \
    env BM3D_TEST_FAIL_DEVICE="$value" "$cmd" -s 20 "$o/noisy.pfm" \
    "$o/never.pfm"
done
if [ -e "$o/never.pfm" ]; then
  not_ok "a refused switch writes no output"
else
  ok "a refused switch writes no output"
fi
for value in 0:0 1:5; do
  run env BM3D_TEST_FAIL_DEVICE=$value "$cmd" -s 20 --devices 0,1 \
    "$o/noisy.pfm" "$o/fail.pfm"
  as_cpu "BM3D_TEST_FAIL_DEVICE=$value without a GPU: no matter" "$o/fail.pfm"
done
rm -f "$o/batch/noisy.pfm"
run env BM3D_TEST_FAIL_DEVICE=0:0 "$cmd" -s 20 -o "$o/batch" "$o/noisy.pfm"
as_cpu "BM3D_TEST_FAIL_DEVICE=0:0 in a batch without a GPU: no matter" \
  "$o/batch/noisy.pfm"

finish
