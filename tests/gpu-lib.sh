# The common part of the GPU test scripts (tests/gpu-*.sh), sourced by
# them after they set top_srcdir: paths, the skip without a CUDA device,
# a scratch folder, compute-sanitizer, and the TAP helpers.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
top_builddir=${top_builddir:-.}
denoise=$top_builddir/cli/bm3d-denoise
bench=$top_builddir/bench/bm3d-bench
data=$top_srcdir/tests/data

version=$("$denoise" --version 2>&1)
if ! printf '%s\n' "$version" | grep -q '^CUDA: available'; then
  printf '%s\n' "$version" | sed -n 's/^CUDA: /# CUDA: /p'
  echo "1..0 # SKIP no CUDA device"
  exit 0
fi

if [ -n "${BM3D_GPU_TEST_KEEP:-}" ]; then
  tmp=$BM3D_GPU_TEST_KEEP
  mkdir -p "$tmp"
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi

sanitizer=
for s in compute-sanitizer "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" \
         /usr/local/cuda/bin/compute-sanitizer; do
  if command -v "$s" >/dev/null 2>&1; then
    sanitizer=$(command -v "$s")
    break
  fi
done

quick=${BM3D_GPU_TEST_QUICK:-}
n=0
failed=0

ok () {
  n=$((n + 1))
  echo "ok $n - $1"
}

not_ok () {
  n=$((n + 1))
  failed=$((failed + 1))
  echo "not ok $n - $1"
}

skip () {
  n=$((n + 1))
  echo "ok $n - $1 # SKIP $2"
}

show () {
  sed 's/^/# /' "$1"
}

# $1 <= $2 (floating point)?
le () {
  awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'
}

# abs_diff A B: |A - B| with four decimals (two PSNRs' gap).
abs_diff () {
  awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; printf "%.4f", d }'
}
psnr_of () {
  "$bench" --diff "$1" "$2" | awk '{ print $2 }'
}

# cpu_gpu_psnr BASE REFERENCE LABEL: the PSNR of BASE-cpu.pfm and of
# BASE-gpu.pfm against REFERENCE into p_cpu and p_gpu, their gap into d,
# printed after LABEL with the two results' own difference.
cpu_gpu_psnr () {
  p_cpu=$(psnr_of "$1-cpu.pfm" "$2")
  p_gpu=$(psnr_of "$1-gpu.pfm" "$2")
  d=$(abs_diff "$p_cpu" "$p_gpu")
  echo "# $3 CPU $p_cpu dB, GPU $p_gpu dB, difference $d dB;" \
       "GPU vs CPU: $("$bench" --diff "$1-cpu.pfm" "$1-gpu.pfm")"
}

# cpu_gpu_agree BASE FLOOR: after cpu_gpu_psnr, the GPU within 0.05 dB
# of the CPU, BASE-gpu.log's call on CUDA, and both at least FLOOR dB.
cpu_gpu_agree () {
  le "$d" 0.05 && grep -q "backend cuda" "$1-gpu.log" \
    && le "$2" "$p_cpu" && le "$2" "$p_gpu"
}

# camera_both BASE INPUT: INPUT in camera mode on the CPU and on CUDA,
# into BASE-cpu.pfm and BASE-gpu.pfm, each call's --verbose lines into
# BASE-cpu.log and BASE-gpu.log and the profile it used into
# BASE-cpu.txt and BASE-gpu.txt; fails when either call does.
camera_both () {
  "$denoise" --backend cpu --noise camera --verbose \
    --save-noise-profile "$1-cpu.txt" "$2" "$1-cpu.pfm" 2>"$1-cpu.log" \
  && "$denoise" --backend cuda --noise camera --verbose \
       --save-noise-profile "$1-gpu.txt" "$2" "$1-gpu.pfm" 2>"$1-gpu.log"
}

# tests/gpu-cancel on MODE (one test): cancelled at each progress call,
# the result kept on the device, or with STREAM (a tile side) streamed
# tile by tile into the output.
cancel_test () {
  mode=$1 stream=$2
  name="cancelled at each progress call${stream:+ (streamed)}: no call after, output untouched${stream:+ unless streamed}, a run after it the same"
  BM3D_CUDA_STREAM_SIDE=$stream "$top_builddir/tests/gpu-cancel" "$mode" \
    >"$tmp/cancel-$mode$stream.log" 2>&1
  rc=$?
  show "$tmp/cancel-$mode$stream.log"
  case $rc in
    0) ok "$name" ;;
    77) skip "$name" "no CUDA device" ;;
    *) not_ok "$name" ;;
  esac
}
