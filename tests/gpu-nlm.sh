#!/bin/sh
# Non-local means (--mode nlm): the CUDA backend against the CPU backend,
# on a machine with an NVIDIA GPU (TAP).  Without a usable device the
# whole script is skipped visibly.  Runs from `make check` or by hand:
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   top_builddir=BUILD top_srcdir=SRC sh SRC/tests/gpu-nlm.sh
#
# BM3D_GPU_TEST_KEEP=DIR keeps the images and logs in DIR;
# BM3D_GPU_TEST_QUICK=1 leaves out the 4000x3000 cases.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top_srcdir/tests/gpu-lib.sh"

# agree NAME CLEAN CPU GPU: the GPU's PSNR against the clean image within
# 0.05 dB of the CPU's, and the two results within 60 dB of each other
# (they differ only in the last bits of the exponential).
agree () {
  p_cpu=$(psnr_of "$3" "$2")
  p_gpu=$(psnr_of "$4" "$2")
  same=$("$bench" --diff "$3" "$4")
  p_same=$(echo "$same" | awk '{ print $2 }')
  d=$(abs_diff "$p_cpu" "$p_gpu")
  echo "# $1: CPU $p_cpu dB, GPU $p_gpu dB, difference $d dB; GPU vs CPU: $same"
  if le "$d" 0.05 && { [ "$p_same" = inf ] || le 60 "$p_same"; }; then
    ok "$1: GPU within 0.05 dB of the CPU, results agree"
  else
    not_ok "$1: GPU within 0.05 dB of the CPU, results agree"
  fi
}

# run_pair BASE ARGS...: BASE-cpu.pfm and BASE-gpu.pfm from BASE-noisy.pfm.
run_pair () {
  base=$1
  shift
  "$denoise" --mode nlm --backend cpu --verbose "$@" "$base-noisy.pfm" \
      "$base-cpu.pfm" 2>"$base-cpu.log" \
    && "$denoise" --mode nlm --backend cuda --verbose "$@" "$base-noisy.pfm" \
      "$base-gpu.pfm" 2>"$base-gpu.log"
}

echo "1..29"
printf '%s\n' "$version" | sed 's/^/# /'

# ---- photographs, gray and RGB, three noise levels (6 tests) -------------
for img in camera astronaut; do
  "$denoise" --convert "$data/$img.png" "$tmp/$img-clean.pfm"
  for sigma in 10 25 50; do
    base=$tmp/$img-$sigma
    if ! "$denoise" --add-noise "$sigma" --seed 7 "$data/$img.png" \
           "$base-noisy.pfm" \
       || ! run_pair "$base" --sigma "$sigma"; then
      not_ok "$img sigma $sigma (a command failed)"
      show "$base-cpu.log"
      show "$base-gpu.log"
      continue
    fi
    echo "# noisy: $(psnr_of "$base-noisy.pfm" "$tmp/$img-clean.pfm") dB"
    grep -h "time:" "$base-cpu.log" "$base-gpu.log" | sed 's/^/#   /'
    agree "$img sigma $sigma" "$tmp/$img-clean.pfm" "$base-cpu.pfm" \
      "$base-gpu.pfm"
  done
done

# ---- other patch sizes and options (4 tests) ------------------------------
# Gray sigma 90: 11x11 patches; RGB sigma 30 Gaussian: 5x5; RGB with the
# largest patch and window the options allow (15x15, 71x71): the block
# shrinks to fit shared memory; a tiny window.
"$bench" --synth 300 200 1 "$tmp/synth1-clean.pfm"
"$bench" --synth 300 200 3 "$tmp/synth3-clean.pfm"
for spec in "1 90 gray-90" "3 30 rgb-gauss --nlm-gaussian" \
            "3 40 rgb-max --nlm-patch 15 --nlm-search 71" \
            "1 20 gray-tiny --nlm-patch 1 --nlm-search 3"; do
  set -- $spec
  c=$1 sigma=$2 name=$3
  shift 3
  base=$tmp/opt-$name
  if ! "$denoise" --add-noise "$sigma" --seed 11 "$tmp/synth$c-clean.pfm" \
         "$base-noisy.pfm" \
     || ! run_pair "$base" --sigma "$sigma" "$@"; then
    not_ok "$name (a command failed)"
    show "$base-gpu.log"
    continue
  fi
  grep -h "time:" "$base-gpu.log" | sed 's/^/#   /'
  agree "$name (sigma $sigma${*:+ $*})" "$tmp/synth$c-clean.pfm" "$base-cpu.pfm" \
    "$base-gpu.pfm"
done

# ---- odd sizes (4 tests) ----------------------------------------------------
for geom in "1 1 1" "7 7 3" "1000 9 1" "37 23 3"; do
  set -- $geom
  base=$tmp/odd-$1x$2
  if ! "$bench" --synth "$1" "$2" "$3" "$base-clean.pfm" \
     || ! "$denoise" --add-noise 25 --seed 3 "$base-clean.pfm" "$base-noisy.pfm" \
     || ! run_pair "$base" --sigma 25; then
    not_ok "${1}x${2} with $3 channel(s) (a command failed)"
    show "$base-gpu.log"
    continue
  fi
  agree "${1}x${2} with $3 channel(s)" "$base-clean.pfm" "$base-cpu.pfm" \
    "$base-gpu.pfm"
done

# ---- 4000x3000 RGB: the whole-image path and the host's tiles (2 tests) ---
name="4000x3000 RGB"
if [ -n "$quick" ]; then
  skip "$name, whole-image path" "quick run"
  skip "$name, host tiles of 1000" "quick run"
else
  base=$tmp/big
  if ! "$bench" --synth 4000 3000 3 "$base-clean.pfm" \
     || ! "$denoise" --add-noise 25 --seed 5 "$base-clean.pfm" "$base-noisy.pfm" \
     || ! run_pair "$base" --sigma 25 \
     || ! BM3D_NLM_TILE_SIDE=1000 "$denoise" --mode nlm --backend cuda --verbose \
            --sigma 25 "$base-noisy.pfm" "$base-tiled.pfm" 2>"$base-tiled.log"; then
    not_ok "$name, whole-image path (a command failed)"
    not_ok "$name, host tiles of 1000 (a command failed)"
    show "$base-gpu.log"
    show "$base-tiled.log"
  else
    grep -h "time:\|peak" "$base-cpu.log" "$base-gpu.log" "$base-tiled.log" \
      | sed 's/^/#   /'
    agree "$name, whole-image path" "$base-clean.pfm" "$base-cpu.pfm" \
      "$base-gpu.pfm"
    agree "$name, host tiles of 1000" "$base-clean.pfm" "$base-cpu.pfm" \
      "$base-tiled.pfm"
  fi
fi

# ---- the result streamed tile by tile, cancelling (3 tests) -----------------
# gpu/core/cuda_tiled_image.cu; BM3D_CUDA_STREAM_SIDE streams small images.
base=$tmp/astronaut-25
if BM3D_CUDA_STREAM_SIDE=200 "$denoise" --mode nlm --backend cuda --sigma 25 \
     "$base-noisy.pfm" "$base-streamed.pfm" 2>"$base-streamed.log"; then
  agree "astronaut sigma 25, streamed in tiles of 200" "$tmp/astronaut-clean.pfm" \
    "$base-cpu.pfm" "$base-streamed.pfm"
else
  not_ok "astronaut sigma 25, streamed in tiles of 200 (the command failed)"
  show "$base-streamed.log"
fi
for stream in "" 160; do
  cancel_test nlm "$stream"
done

# ---- compute-sanitizer, both paths (8 tests) --------------------------------
"$bench" --synth 67 45 3 "$tmp/small-clean.pfm"
"$denoise" --add-noise 25 --seed 5 "$tmp/small-clean.pfm" "$tmp/small-noisy.pfm"
for tool in memcheck racecheck synccheck initcheck; do
  for path in whole tiles; do
    name="compute-sanitizer $tool is clean on a 67x45 RGB image ($path)"
    if [ -z "$sanitizer" ]; then
      skip "$name" "compute-sanitizer not found"
      continue
    fi
    if [ "$path" = tiles ]; then
      side=32
    else
      side=
    fi
    if BM3D_NLM_TILE_SIDE=$side "$sanitizer" --tool "$tool" --error-exitcode 3 \
         "$denoise" --mode nlm --backend cuda "$tmp/small-noisy.pfm" \
         "$tmp/small-$tool-$path.pfm" >"$tmp/sanitizer-$tool-$path.log" 2>&1; then
      ok "$name"
    else
      not_ok "$name"
    fi
    tail -n 3 "$tmp/sanitizer-$tool-$path.log" | show /dev/stdin
  done
done

# ---- fall-back when no device is visible (2 tests) ------------------------
in=$tmp/camera-25-noisy.pfm
# A start-up estimate of 0 keeps backend auto off the CPU it would take
# for this small image at once: the engine's fall-back is under test.
if CUDA_VISIBLE_DEVICES= BM3D_CUDA_STARTUP_SECONDS=0 "$denoise" --mode nlm \
     --backend auto --verbose "$in" "$tmp/fallback.pfm" 2>"$tmp/fallback-auto.log" \
   && grep -q "backend cpu" "$tmp/fallback-auto.log" \
   && grep -q "CUDA unavailable.*denoised on the CPU" "$tmp/fallback-auto.log" \
   && cmp -s "$tmp/fallback.pfm" "$tmp/camera-25-cpu.pfm"; then
  ok "no visible device, backend auto: the CPU's result, and says so"
else
  not_ok "no visible device, backend auto: the CPU's result, and says so"
fi
show "$tmp/fallback-auto.log"
CUDA_VISIBLE_DEVICES= "$denoise" --mode nlm --backend cuda "$in" \
  "$tmp/fallback2.pfm" 2>"$tmp/fallback-cuda.log"
rc=$?
show "$tmp/fallback-cuda.log"
if [ "$rc" = 1 ] && grep -qi "cuda" "$tmp/fallback-cuda.log" \
   && [ ! -e "$tmp/fallback2.pfm" ]; then
  ok "no visible device, backend cuda: an error, no output"
else
  not_ok "no visible device, backend cuda: an error, no output (exit $rc)"
fi

[ "$failed" = 0 ]
