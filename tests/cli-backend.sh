#!/bin/sh
# bm3d-denoise's backend auto for one photo (bm3d_backend_for_job): the
# CPU when it is sure to finish before the GPU could start, said in one
# --verbose line, with the same pixels as --backend cpu; a build without
# CUDA says what it always said.  BM3D_CUDA_STARTUP_SECONDS moves the
# start-up estimate so that both choices show on any machine; no GPU is
# faked: where the device is chosen and missing, the engine's own
# fall-back runs.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-$(dirname "$0")/..}/tests/cli-lib.sh"

if ! has_png; then
  echo "1..0 # SKIP PNG support is needed for the test photo"
  exit 0
fi

cmd=$BM3D_DENOISE
photo=$top_srcdir/tests/data/chelsea.png
o=$work
chose_cpu='^bm3d-denoise: backend auto: the CPU for this 451x300 photo'
if "$cmd" --version | grep -q '^CUDA: not available (built without CUDA'; then
  cuda_built=no
else
  cuda_built=yes
fi
echo "# CUDA backend built: $cuda_built"

# A build without CUDA: nothing new, the fall-back's line as before.
if [ "$cuda_built" = no ]; then
  run env BM3D_CUDA_STARTUP_SECONDS=1000 "$cmd" -v -b auto -m isoline \
    "$photo" "$o/auto.png"
  if [ "$rc" -eq 0 ] && ! printf '%s\n' "$err" | grep -q 'backend auto:' \
     && printf '%s\n' "$err" | grep -q \
       '^bm3d-denoise: CUDA unavailable (built without CUDA support); denoised on the CPU$' \
     && printf '%s\n' "$err" | grep -q 'backend cpu$'; then
    ok "no CUDA: -v -b auto says only that CUDA is unavailable"
  else
    not_ok "no CUDA: -v -b auto says only that CUDA is unavailable"
    printf '%s\n' "$err" | sed 's/^/# /'
  fi
  run "$cmd" -b auto -m isoline "$photo" "$o/quiet.png"
  if [ "$rc" -eq 0 ] && [ -z "$err" ]; then
    ok "no CUDA: without -v, not a word"
  else
    not_ok "no CUDA: without -v, not a word"
  fi
fi

if [ "$cuda_built" = yes ]; then
  # The CPU chosen: one line saying so, and no device tried.
  run env BM3D_CUDA_STARTUP_SECONDS=1000 "$cmd" -v -b auto -m isoline -t 2 \
    "$photo" "$o/auto.png"
  if [ "$rc" -eq 0 ] \
     && [ "$(printf '%s\n' "$err" | grep -c "$chose_cpu (about [0-9.]* s on 2 threads against 1000.00 s to start the GPU)\$")" -eq 1 ] \
     && ! printf '%s\n' "$err" | grep -q 'CUDA unavailable' \
     && printf '%s\n' "$err" | grep -q 'backend cpu$'; then
    ok "start-up 1000 s: -v -b auto takes the CPU and says why in one line"
  else
    not_ok "start-up 1000 s: -v -b auto takes the CPU and says why in one line"
    printf '%s\n' "$err" | sed 's/^/# /'
  fi
  run env BM3D_CUDA_STARTUP_SECONDS=1000 "$cmd" -b auto -m isoline "$photo" \
    "$o/quiet.png"
  if [ "$rc" -eq 0 ] && [ -z "$err" ]; then
    ok "start-up 1000 s: without -v, not a word"
  else
    not_ok "start-up 1000 s: without -v, not a word"
  fi

  # The device chosen: no such line; the engine uses the device or falls
  # back as before.
  run env BM3D_CUDA_STARTUP_SECONDS=0 "$cmd" -v -b auto -m isoline \
    "$photo" "$o/device.png"
  if [ "$rc" -eq 0 ] && ! printf '%s\n' "$err" | grep -q 'backend auto:'
  then
    ok "start-up 0 s: -v -b auto keeps the device (or its fall-back)"
  else
    not_ok "start-up 0 s: -v -b auto keeps the device (or its fall-back)"
    printf '%s\n' "$err" | sed 's/^/# /'
  fi
fi

# --backend cuda is never turned into the CPU.
run env BM3D_CUDA_STARTUP_SECONDS=1000 "$cmd" -v -b cuda -m isoline "$photo" \
  "$o/cuda.png"
if ! printf '%s\n' "$err" | grep -q 'backend auto:' \
   && { { [ "$rc" -eq 0 ] && printf '%s\n' "$err" | grep -q '(GPU)$'; } \
        || { [ "$rc" -eq 1 ] && one_line_error 'CUDA backend unavailable'; }; }
then
  ok "start-up 1000 s: -b cuda still takes the device (rc $rc)"
else
  not_ok "start-up 1000 s: -b cuda still takes the device (rc $rc)"
  printf '%s\n' "$err" | sed 's/^/# /'
fi

# A batch keeps the device, whatever the estimate.
mkdir "$o/batch"
cp "$photo" "$o/a.png"
cp "$photo" "$o/b.png"
run env BM3D_CUDA_STARTUP_SECONDS=1000 "$cmd" -v -b auto -m isoline \
  -o "$o/batch" "$o/a.png" "$o/b.png"
if [ "$rc" -eq 0 ] && ! printf '%s\n' "$err" | grep -q 'backend auto:'; then
  ok "start-up 1000 s: a batch is not probed for the CPU"
else
  not_ok "start-up 1000 s: a batch is not probed for the CPU"
  printf '%s\n' "$err" | sed 's/^/# /'
fi

# The CPU backend auto chose gives --backend cpu's pixels.
BM3D_CUDA_STARTUP_SECONDS=1000 "$cmd" -b auto -m bm3d-fast -s 20 -t 2 \
  "$photo" "$o/auto-fast.png"
"$cmd" -b cpu -m bm3d-fast -s 20 -t 2 "$photo" "$o/cpu-fast.png"
if [ "$cuda_built" = no ]; then
  skip "the CPU chosen gives --backend cpu's file" "no CUDA backend: \
auto is the CPU anyway"
elif cmp -s "$o/auto-fast.png" "$o/cpu-fast.png"; then
  ok "the CPU chosen gives --backend cpu's file, byte for byte"
else
  not_ok "the CPU chosen gives --backend cpu's file, byte for byte"
fi

# A file whose header cannot be probed: the read reports it, once.
printf 'not a picture at all' > "$o/bad.png"
expect_error 1 'bad\.png' \
  "an unreadable file: one line, from the read" \
  env BM3D_CUDA_STARTUP_SECONDS=1000 "$cmd" -v -b auto "$o/bad.png" \
  "$o/never.png"
if [ -e "$o/never.png" ]; then
  not_ok "an unreadable file writes no output"
else
  ok "an unreadable file writes no output"
fi

finish
