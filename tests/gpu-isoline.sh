#!/bin/sh
# The isoline mode's CUDA backend against its CPU backend, on a machine
# with an NVIDIA GPU (TAP).  Both backends round alike (isoline_core.h),
# so the images should agree bit for bit; the test asks for a PSNR
# difference of at most 0.05 dB and at least 50 dB between the two
# outputs.  Without a usable device the whole script is skipped
# visibly.  Runs from `make check` or by hand:
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   top_builddir=BUILD top_srcdir=SRC sh tests/gpu-isoline.sh
#
# BM3D_GPU_TEST_KEEP=DIR keeps the images and logs in DIR;
# BM3D_GPU_TEST_QUICK=1 leaves out the large images.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top_srcdir/tests/gpu-lib.sh"

# agree NAME NOISY CLEAN VARIANT [SIGMA]: both backends on NOISY; one
# TAP line: PSNRs against CLEAN within 0.05 dB, and the two outputs
# within 50 dB of each other (or identical).
agree () {
  name=$1 noisy=$2 clean=$3 variant=$4 sigma=${5:-25}
  base=$tmp/$(basename "$noisy" .pfm)-$variant
  if ! "$denoise" --mode isoline --isoline-variant "$variant" --sigma "$sigma" \
         --backend cpu --verbose "$noisy" "$base-cpu.pfm" 2>"$base-cpu.log" \
     || ! "$denoise" --mode isoline --isoline-variant "$variant" \
            --sigma "$sigma" --backend cuda --verbose "$noisy" \
            "$base-gpu.pfm" 2>"$base-gpu.log"; then
    not_ok "$name (a command failed)"
    show "$base-cpu.log"
    show "$base-gpu.log"
    return
  fi
  p_cpu=$(psnr_of "$base-cpu.pfm" "$clean")
  p_gpu=$(psnr_of "$base-gpu.pfm" "$clean")
  between=$("$bench" --diff "$base-cpu.pfm" "$base-gpu.pfm")
  p_between=$(echo "$between" | awk '{ print $2 }')
  d=$(abs_diff "$p_cpu" "$p_gpu")
  echo "# $name: CPU $p_cpu dB, GPU $p_gpu dB, difference $d dB; GPU vs CPU: $between"
  grep -h "time:\|backend" "$base-gpu.log" | sed 's/^/#   /'
  if le "$d" 0.05 && { [ "$p_between" = inf ] || le 50 "$p_between"; }; then
    ok "$name"
  else
    not_ok "$name"
  fi
}

echo "1..29"
printf '%s\n' "$version" | sed 's/^/# /'

# ---- GPU and CPU agree on photographs (8 tests) --------------------------
for img in camera astronaut; do
  "$denoise" --convert "$data/$img.png" "$tmp/$img-clean.pfm"
  for sigma in 10 50; do
    "$denoise" --add-noise "$sigma" --seed 7 "$data/$img.png" \
      "$tmp/$img-$sigma.pfm"
    for variant in hybrid pipd; do
      agree "$img sigma $sigma, $variant: GPU agrees with the CPU" \
        "$tmp/$img-$sigma.pfm" "$tmp/$img-clean.pfm" "$variant" "$sigma"
    done
  done
done

# ---- odd sizes, gray and RGB (10 tests) ------------------------------------
for geom in "1 1 1" "7 7 3" "1000 9 1" "9 1000 3" "4000 3000 3"; do
  set -- $geom
  for variant in hybrid pipd; do
    name="${1}x${2}, $3 channel(s), $variant: GPU agrees with the CPU"
    if [ "$1" = 4000 ] && [ -n "$quick" ]; then
      skip "$name" "quick run"
      continue
    fi
    clean=$tmp/odd-$1x$2x$3-clean.pfm
    noisy=$tmp/odd-$1x$2x$3.pfm
    [ -e "$noisy" ] || { "$bench" --synth "$1" "$2" "$3" "$clean" \
                         && "$denoise" --add-noise 25 --seed 3 "$clean" "$noisy"; }
    agree "$name" "$noisy" "$clean" "$variant"
  done
done

# ---- compute-sanitizer (4 tests) --------------------------------------------
"$bench" --synth 67 45 3 "$tmp/small-clean.pfm"
"$denoise" --add-noise 25 --seed 5 "$tmp/small-clean.pfm" "$tmp/small-noisy.pfm"
for tool in memcheck racecheck synccheck initcheck; do
  name="compute-sanitizer $tool is clean on a 67x45 RGB image, both variants"
  if [ -z "$sanitizer" ]; then
    skip "$name" "compute-sanitizer not found"
    continue
  fi
  clean=yes
  for variant in hybrid pipd; do
    if ! "$sanitizer" --tool "$tool" --error-exitcode 3 \
         "$denoise" --mode isoline --isoline-variant "$variant" \
         --backend cuda "$tmp/small-noisy.pfm" "$tmp/small-$tool.pfm" \
         >"$tmp/sanitizer-$tool-$variant.log" 2>&1; then
      clean=no
    fi
    tail -n 5 "$tmp/sanitizer-$tool-$variant.log" | show /dev/stdin
  done
  if [ "$clean" = yes ]; then
    ok "$name"
  else
    not_ok "$name"
  fi
done

# ---- output larger than the device budget: streamed tile by tile (2) ------
name="9000x7000 RGB (output over the device budget, streamed tile by tile): GPU agrees with the CPU"
if [ -n "$quick" ]; then
  skip "$name" "quick run"
  skip "9000x7000 RGB: at most 512 MiB of device memory" "quick run"
else
  "$bench" --synth 9000 7000 3 "$tmp/huge-clean.pfm"
  "$denoise" --add-noise 25 --seed 9 "$tmp/huge-clean.pfm" "$tmp/huge.pfm"
  agree "$name" "$tmp/huge.pfm" "$tmp/huge-clean.pfm" hybrid
  dev=$(sed -n 's/.*device \([0-9.]*\) MiB.*/\1/p' "$tmp/huge-hybrid-gpu.log" | head -n 1)
  if [ -n "$dev" ] && le "$dev" 512; then
    ok "9000x7000 RGB: at most 512 MiB of device memory ($dev MiB)"
  else
    not_ok "9000x7000 RGB: at most 512 MiB of device memory (${dev:-?} MiB)"
    show "$tmp/huge-hybrid-gpu.log"
  fi
fi

# ---- a result that fits, streamed by choice (2) ---------------------------
# The command's output is scratch (params.out_scratch): a 12 MP result of
# several tiles comes back tile by tile, the second smallest tile last.
name="4000x3000 RGB (result streamed by choice): GPU agrees with the CPU"
if [ -n "$quick" ]; then
  skip "$name" "quick run"
  skip "4000x3000 RGB: the result came back tile by tile" "quick run"
else
  "$bench" --synth 4000 3000 3 "$tmp/large-clean.pfm"
  "$denoise" --add-noise 25 --seed 11 "$tmp/large-clean.pfm" "$tmp/large.pfm"
  BM3D_CUDA_TIMES=1
  export BM3D_CUDA_TIMES
  agree "$name" "$tmp/large.pfm" "$tmp/large-clean.pfm" hybrid
  unset BM3D_CUDA_TIMES
  if grep -q "tiles: .*streamed" "$tmp/large-hybrid-gpu.log"; then
    ok "4000x3000 RGB: the result came back tile by tile"
  else
    not_ok "4000x3000 RGB: the result came back tile by tile"
    show "$tmp/large-hybrid-gpu.log"
  fi
fi

# ---- cancelling (1 test) ---------------------------------------------------
cancel_test isoline ""

# ---- fall-back when no device is visible (2 tests) ------------------------
in=$tmp/camera-10.pfm
# A start-up estimate of 0 keeps backend auto off the CPU it would take
# for this small image at once: the engine's fall-back is under test.
if CUDA_VISIBLE_DEVICES= BM3D_CUDA_STARTUP_SECONDS=0 "$denoise" --mode isoline \
     --sigma 10 --backend auto --verbose "$in" "$tmp/fallback.pfm" 2>"$tmp/fallback-auto.log" \
   && grep -q "backend cpu" "$tmp/fallback-auto.log" \
   && grep -q "CUDA unavailable.*denoised on the CPU" "$tmp/fallback-auto.log" \
   && [ "$(psnr_of "$tmp/fallback.pfm" "$tmp/camera-10-hybrid-cpu.pfm")" = inf ]; then
  ok "no visible device, backend auto: the CPU's result, and it says so"
else
  not_ok "no visible device, backend auto: the CPU's result, and it says so"
fi
show "$tmp/fallback-auto.log"
CUDA_VISIBLE_DEVICES= "$denoise" --mode isoline --backend cuda "$in" \
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
