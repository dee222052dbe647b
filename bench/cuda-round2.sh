#!/bin/sh
# The CUDA BM3D backend against the CPU, in one run of at most about six
# minutes on a machine with an NVIDIA GPU.  From a build folder configured with
# `--without-gimp --with-cuda` (and built):
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   sh SRCDIR/bench/cuda-round2.sh OUTDIR
#
# Writes text files to OUTDIR (a few hundred KB in all) and prints
# OUTDIR/summary.txt at the end:
#   info.txt         machine, driver, toolkit, command versions
#   quality.txt      camera and astronaut at sigma 10/25/50: PSNR of the
#                    CPU and CUDA backends, and how far apart the outputs are
#   options.txt      expert options (tests/gpu-options)
#   sanitizer-*.txt  compute-sanitizer memcheck, racecheck, synccheck and
#                    initcheck on a 67x45 RGB image, and initcheck on
#                    camera 512x512, with their counts
#   bench*.txt       bm3d-bench timings
#   ncu-*.csv        Nsight Compute metrics per kernel (base clocks), and
#                    ncu-table.txt, the per-kernel table for BENCHMARKS.md
#
# The kernels from the second round of CUDA work, which this script
# once compared with these, were removed after commit 80a54dd.
set -u

if [ $# -ne 1 ]; then
  echo "usage: sh SRCDIR/bench/cuda-round2.sh OUTDIR (from a build folder)" >&2
  exit 2
fi
out=$1
mkdir -p "$out" || exit 2
src=$(cd "$(dirname "$0")/.." && pwd)
denoise=./cli/bm3d-denoise
bench=./bench/bm3d-bench
options=./tests/gpu-options
data=$src/tests/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
# The whole run stays under about six minutes: each step gets what is
# left of the budget (and a cap of its own) and is cut short past it.
budget=${CUDA_ROUND2_BUDGET:-350}

for f in "$denoise" "$bench" "$options"; do
  if [ ! -x "$f" ]; then
    echo "cuda-round2: $f not found: run from a build folder after make" >&2
    exit 2
  fi
done

left () {
  echo $((budget - ($(date +%s) - start)))
}

# step CAP COMMAND...: run with the smaller of CAP and what is left.
step () {
  cap=$1
  shift
  l=$(left)
  if [ "$l" -le 5 ]; then
    echo "# skipped (time budget spent): $*"
    return 124
  fi
  [ "$cap" -lt "$l" ] && l=$cap
  timeout -k 5 "$l" "$@"
}

log () {
  printf '%s\n' "$*" | tee -a "$out/summary.txt"
}

psnr () {
  "$bench" --diff "$1" "$2" | awk '{ print $2 }'
}

agree () {
  "$bench" --diff "$1" "$2" | awk '{ printf "%s dB, max %s", $2, $4 }'
}

: >"$out/summary.txt"
log "# cuda-round2 $(date -u '+%Y-%m-%d %H:%M UTC')"

# ---- machine ------------------------------------------------------------
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit \
    --format=csv 2>&1
  "$denoise" --version 2>&1
  (cd "$src" && git log -1 --oneline 2>/dev/null)
  for t in ncu compute-sanitizer nvcc; do
    p=$(command -v $t 2>/dev/null || ls /usr/local/cuda/bin/$t 2>/dev/null)
    echo "$t: ${p:-not found}"
  done
} >"$out/info.txt" 2>&1
head -n 3 "$out/info.txt" | tee -a "$out/summary.txt"
if ! "$denoise" --version 2>&1 | grep -q '^CUDA: available'; then
  log "no usable CUDA device: stopping"
  exit 1
fi

find_tool () {
  for p in "$(command -v "$1" 2>/dev/null)" "${CUDA_HOME:-/usr/local/cuda}/bin/$1" \
           /usr/local/cuda/bin/$1; do
    if [ -n "$p" ] && [ -x "$p" ]; then
      echo "$p"
      return
    fi
  done
}
sanitizer=$(find_tool compute-sanitizer)
ncu=$(find_tool ncu)

# ---- quality: CPU and CUDA (about 20 s) -----------------------------------
q=$out/quality.txt
printf '%-9s %5s %8s %8s %8s %9s  %s\n' image sigma noisy cpu cuda cuda-cpu \
  "cuda vs cpu" >"$q"
quality_fail=0
for img in camera astronaut; do
  "$denoise" --convert "$data/$img.png" "$tmp/$img-clean.pfm"
  for sigma in 10 25 50; do
    b=$tmp/$img-$sigma
    "$denoise" --add-noise "$sigma" --seed 7 "$data/$img.png" "$b-noisy.pfm"
    step 60 "$denoise" --backend cpu --sigma "$sigma" "$b-noisy.pfm" "$b-cpu.pfm"
    step 30 "$denoise" --backend cuda --sigma "$sigma" \
      "$b-noisy.pfm" "$b-cuda.pfm" 2>>"$q.log"
    if [ ! -s "$b-cpu.pfm" ] || [ ! -s "$b-cuda.pfm" ]; then
      printf '%-9s %5s  a run failed (see quality.txt.log)\n' "$img" "$sigma" >>"$q"
      quality_fail=1
      continue
    fi
    c=$tmp/$img-clean.pfm
    p_n=$(psnr "$b-noisy.pfm" "$c"); p_c=$(psnr "$b-cpu.pfm" "$c")
    p_g=$(psnr "$b-cuda.pfm" "$c")
    d=$(awk -v a="$p_g" -v b="$p_c" 'BEGIN { printf "%+.4f", a - b }')
    printf '%-9s %5s %8s %8s %8s %9s  %s\n' "$img" "$sigma" \
      "$p_n" "$p_c" "$p_g" "$d" "$(agree "$b-cuda.pfm" "$b-cpu.pfm")" >>"$q"
    awk -v d="$d" 'BEGIN { exit !(d < -0.05 || d > 0.05) }' && quality_fail=1
  done
done
log ""
log "## quality (PSNR dB against the clean image; cuda-cpu must stay within +-0.05)"
tee -a "$out/summary.txt" <"$q"
[ "$quality_fail" = 0 ] && log "quality: PASS" || log "quality: FAIL"

# ---- expert options (about 20 s) ------------------------------------------
o=$out/options.txt
: >"$o"
for img in camera astronaut; do
  echo "## $img (192x160 crop)" >>"$o"
  step 60 "$options" "$data/$img.png" 192 160 >>"$o" 2>&1
  echo "exit $?" >>"$o"
done
log ""
log "## expert options (tests/gpu-options): ok/FAIL lines"
grep -c '^ok' "$o" | sed 's/^/ok lines: /' | tee -a "$out/summary.txt"
grep '^FAIL\|^##\|exit [^0]' "$o" | tee -a "$out/summary.txt"

# ---- compute-sanitizer (about 60 s) ---------------------------------------
log ""
log "## compute-sanitizer, 67x45 RGB, sigma 25"
if [ -z "$sanitizer" ]; then
  log "compute-sanitizer not found: skipped"
else
  "$bench" --synth 67 45 3 "$tmp/small-clean.pfm"
  "$denoise" --add-noise 25 --seed 5 "$tmp/small-clean.pfm" "$tmp/small.pfm"
  for tool in memcheck racecheck synccheck initcheck; do
    f=$out/sanitizer-$tool.txt
    step 90 "$sanitizer" --tool "$tool" \
      --print-limit 20 --error-exitcode 3 \
      "$denoise" --backend cuda "$tmp/small.pfm" "$tmp/small-$tool.pfm" \
      >"$tmp/san.txt" 2>&1
    rc=$?
    head -c 60000 "$tmp/san.txt" >"$f"
    summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|hazard' "$tmp/san.txt" | tail -n 2 | tr '\n' ' ')
    log "$tool: exit $rc; ${summary:-no summary line}"
  done
  # initcheck on a whole photograph too (camera 512x512), counts only.
  step 90 "$sanitizer" --tool initcheck \
    --print-limit 5 --error-exitcode 3 \
    "$denoise" --backend cuda "$tmp/camera-25-noisy.pfm" "$tmp/cam-init.pfm" \
    >"$tmp/san.txt" 2>&1
  rc=$?
  head -c 20000 "$tmp/san.txt" >"$out/sanitizer-initcheck-camera.txt"
  log "initcheck camera 512x512: exit $rc; $(grep 'ERROR SUMMARY' "$tmp/san.txt" | tail -n 1)"
fi

# ---- timings (about 45 s) --------------------------------------------------
log ""
log "## bm3d-bench, sigma 25, GPU time of both phases (phase1 + phase2), best of 5"
f=$out/bench.txt
step 90 "$bench" --sizes 0.25,12 --channels 1,3 \
  --backends cuda --repeat 5 >"$f" 2>&1
step 40 "$bench" --sizes 12 --channels 3 \
  --backends cuda --repeat 5 --mode bm3d-fast >"$out/bench-fast.txt" 2>&1
awk '$1 !~ /^#/ && $4 == "cuda" && $0 !~ /fail|skip/ {
       printf "%-13s %dch  phase1 %8.2f  phase2 %8.2f  both %8.2f  engine %8.2f  dev %6.1f MiB  PSNR %s\n",
              $2, $3, $6, $7, $6 + $7, $9, $10, $13 }
     $0 ~ /fail|skip/ { print }' "$f" | tee -a "$out/summary.txt"
awk '$1 !~ /^#/ && $4 == "cuda" && $0 !~ /fail|skip/ {
       printf "%-13s %dch  bm3d-fast phase1 %8.2f  engine %8.2f  PSNR %s\n",
              $2, $3, $6, $9, $13 }
     $0 ~ /fail|skip/ { print }' "$out/bench-fast.txt" | tee -a "$out/summary.txt"

# ---- Nsight Compute (about 45 s) -------------------------------------------
log ""
log "## ncu, base clocks, camera 512x512 gray and astronaut RGB, sigma 25"
if [ -z "$ncu" ]; then
  log "ncu not found: skipped"
else
  metrics=gpu__time_duration.sum
  metrics=$metrics,sm__throughput.avg.pct_of_peak_sustained_elapsed
  metrics=$metrics,smsp__inst_executed.sum
  metrics=$metrics,smsp__issue_active.avg.pct_of_peak_sustained_active
  metrics=$metrics,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
  metrics=$metrics,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
  metrics=$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
  metrics=$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed
  metrics=$metrics,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
  metrics=$metrics,lts__t_sectors_op_red.sum
  metrics=$metrics,lts__t_sectors_op_atom.sum
  metrics=$metrics,lts__throughput.avg.pct_of_peak_sustained_elapsed
  metrics=$metrics,dram__throughput.avg.pct_of_peak_sustained_elapsed
  metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active
  metrics=$metrics,launch__registers_per_thread
  metrics=$metrics,launch__shared_mem_per_block_dynamic
  kernels='regex:block_match|collaborative_filter|aggregate|patch_norms'
  for img in camera astronaut; do
    f=$out/ncu-$img.csv
    step 75 "$ncu" --clock-control base -k "$kernels" \
      --launch-count 12 --metrics "$metrics" --csv --page raw --print-units base \
      "$denoise" --backend cuda "$tmp/$img-25-noisy.pfm" "$tmp/ncu-$img.pfm" \
      >"$tmp/ncu.txt" 2>&1
    rc=$?
    grep '^"' "$tmp/ncu.txt" | head -c 100000 >"$f"
    [ -s "$f" ] || tail -n 20 "$tmp/ncu.txt" >"$f.log"
    log "ncu $img: exit $rc"
  done
  # One line per kernel launch: duration, throughput against peak.
  for f in "$out"/ncu-*.csv; do
    [ -s "$f" ] || continue
    echo "### $(basename "$f" .csv)"
    awk -F'","' '
      NR == 1 { for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); col[$i] = i }; next }
      /^"[0-9]/ {
        for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); if (i > 11) gsub(/,/, "", $i) }
        k = $col["Kernel Name"]; sub(/\(.*/, "", k)
        printf "%-36s %9.1f us  SM %5.1f%%  issue %5.1f%%  FMA-pipe %5.1f%%  inst %6.1fM  smem-wf %6.1fM (%4.1f%%, conflicts %5.1fM)  L2-red %6.1fM  L2 %5.1f%%  DRAM %5.1f%%  occ %5.1f%%  regs %s\n",
          k, $col["gpu__time_duration.sum"] / 1000,
          $col["sm__throughput.avg.pct_of_peak_sustained_elapsed"],
          $col["smsp__issue_active.avg.pct_of_peak_sustained_active"],
          $col["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"],
          $col["smsp__inst_executed.sum"] / 1e6,
          $col["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"] / 1e6,
          $col["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed"],
          $col["l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"] / 1e6,
          $col["lts__t_sectors_op_red.sum"] / 1e6,
          $col["lts__throughput.avg.pct_of_peak_sustained_elapsed"],
          $col["dram__throughput.avg.pct_of_peak_sustained_elapsed"],
          $col["sm__warps_active.avg.pct_of_peak_sustained_active"],
          $col["launch__registers_per_thread"]
      }' "$f"
  done >"$out/ncu-table.txt" 2>&1
  tee -a "$out/summary.txt" <"$out/ncu-table.txt"
fi

log ""
log "# done in $(( $(date +%s) - start )) s; files in $out"
du -sh "$out" 2>/dev/null | tee -a "$out/summary.txt"
