#!/bin/sh
# The CUDA backend against the CPU backend, on a machine with an NVIDIA
# GPU (TAP).  Without a usable device the whole script is skipped
# visibly.  Runs from `make check` or by hand:
#
#   top_builddir=BUILD top_srcdir=SRC sh tests/gpu-tests.sh
#
# BM3D_GPU_TEST_KEEP=DIR keeps the images and logs in DIR;
# BM3D_GPU_TEST_QUICK=1 leaves out the 4001x2999 and 100 MP cases;
# The CUDA backend matches large tiles with block_match_rows and small
# ones with block_match; five tests run the first on small images too
# (BM3D_CUDA_MATCH=rows).
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top_srcdir/tests/gpu-lib.sh"
options=$top_builddir/tests/gpu-options

# The expert options on astronaut (one test): NAME LOG [VAR=VALUE...],
# the settings for the run.
options_test () {
  name=$1 log=$2
  shift 2
  env "$@" "$options" "$data/astronaut.png" 160 128 >"$log" 2>&1
  rc=$?
  show "$log"
  if [ "$rc" = 0 ]; then
    ok "$name"
  elif [ "$rc" = 77 ]; then
    skip "$name" "no CUDA device"
  else
    not_ok "$name"
  fi
}

# compute-sanitizer on the 67x45 RGB image (one test): TOOL NAME TAG
# [VAR=VALUE...]; TAG names its output and log.
sanitizer_test () {
  tool=$1 name=$2 tag=$3
  shift 3
  if [ -z "$sanitizer" ]; then
    skip "$name" "compute-sanitizer not found"
    return
  fi
  if env "$@" "$sanitizer" --tool "$tool" --error-exitcode 3 \
       "$denoise" --backend cuda "$tmp/small-noisy.pfm" "$tmp/small-$tag.pfm" \
       >"$tmp/sanitizer-$tag.log" 2>&1; then
    ok "$name"
  else
    not_ok "$name"
  fi
  tail -n 5 "$tmp/sanitizer-$tag.log" | show /dev/stdin
}

echo "1..23"
printf '%s\n' "$version" | sed 's/^/# /'

# ---- GPU and CPU agree on photographs (6 tests) ------------------------
for img in camera astronaut; do
  "$denoise" --convert "$data/$img.png" "$tmp/$img-clean.pfm"
  for sigma in 10 25 50; do
    name="$img sigma $sigma: GPU PSNR within 0.05 dB of the CPU's"
    base=$tmp/$img-$sigma
    if ! "$denoise" --add-noise "$sigma" --seed 7 "$data/$img.png" \
           "$base-noisy.pfm" \
       || ! "$denoise" --backend cpu --sigma "$sigma" --verbose \
              "$base-noisy.pfm" "$base-cpu.pfm" 2>"$base-cpu.log" \
       || ! "$denoise" --backend cuda --sigma "$sigma" --verbose \
              "$base-noisy.pfm" "$base-gpu.pfm" 2>"$base-gpu.log"; then
      not_ok "$name (a command failed)"
      show "$base-cpu.log"
      show "$base-gpu.log"
      continue
    fi
    p_in=$(psnr_of "$base-noisy.pfm" "$tmp/$img-clean.pfm")
    p_cpu=$(psnr_of "$base-cpu.pfm" "$tmp/$img-clean.pfm")
    p_gpu=$(psnr_of "$base-gpu.pfm" "$tmp/$img-clean.pfm")
    agree=$("$bench" --diff "$base-cpu.pfm" "$base-gpu.pfm")
    d=$(awk -v a="$p_cpu" -v b="$p_gpu" 'BEGIN { d = a - b; if (d < 0) d = -d; printf "%.4f", d }')
    echo "# $img sigma $sigma: noisy $p_in dB, CPU $p_cpu dB, GPU $p_gpu dB," \
         "difference $d dB; GPU vs CPU: $agree"
    grep -h "time:" "$base-cpu.log" "$base-gpu.log" | sed 's/^/#   /'
    if le "$d" 0.05 && le "$p_in" "$p_gpu"; then
      ok "$name"
    else
      not_ok "$name"
    fi
  done
done

# ---- odd sizes (4 tests) ------------------------------------------------
for geom in "1 1 1" "7 7 3" "1000 9 1" "4001 2999 3"; do
  set -- $geom
  name="${1}x${2} with $3 channel(s): GPU result matches the CPU's"
  if [ "$1" = 4001 ] && [ -n "$quick" ]; then
    skip "$name" "quick run"
    continue
  fi
  base=$tmp/odd-$1x$2
  if ! "$bench" --synth "$1" "$2" "$3" "$base-clean.pfm" \
     || ! "$denoise" --add-noise 25 --seed 3 "$base-clean.pfm" "$base-noisy.pfm" \
     || ! "$denoise" --backend cpu --verbose "$base-noisy.pfm" "$base-cpu.pfm" \
            2>"$base-cpu.log" \
     || ! "$denoise" --backend cuda --verbose "$base-noisy.pfm" "$base-gpu.pfm" \
            2>"$base-gpu.log"; then
    not_ok "$name (a command failed)"
    show "$base-gpu.log"
    continue
  fi
  agree=$("$bench" --diff "$base-cpu.pfm" "$base-gpu.pfm")
  p_cpu=$(psnr_of "$base-cpu.pfm" "$base-clean.pfm")
  p_gpu=$(psnr_of "$base-gpu.pfm" "$base-clean.pfm")
  echo "# ${1}x${2}: CPU $p_cpu dB, GPU $p_gpu dB against clean; GPU vs CPU: $agree"
  grep -h "time:" "$base-gpu.log" | sed 's/^/#   /'
  p=$(echo "$agree" | awk '{ print $2 }')
  if [ "$p" = inf ] || le 40 "$p"; then
    ok "$name"
  else
    not_ok "$name"
  fi
done

# ---- the row matcher on small images (5 tests) ---------------------------
# block_match_rows, which the backend takes for large tiles only:
# camera (sigma 25, from above), a 1000x9 image whose last reference
# column is off the step of 3 (block_match takes it), the expert
# options (the sets at step 3 use it), and the sanitizers that watch its
# shared and global memory on the 67x45 image below.
base=$tmp/camera-25
name="camera sigma 25, block_match_rows: GPU PSNR within 0.05 dB of the CPU's"
if BM3D_CUDA_MATCH=rows "$denoise" --backend cuda --sigma 25 \
     "$base-noisy.pfm" "$base-rows.pfm" 2>"$base-rows.log"; then
  p_cpu=$(psnr_of "$base-cpu.pfm" "$tmp/camera-clean.pfm")
  p_rows=$(psnr_of "$base-rows.pfm" "$tmp/camera-clean.pfm")
  d=$(awk -v a="$p_cpu" -v b="$p_rows" 'BEGIN { d = a - b; if (d < 0) d = -d; printf "%.4f", d }')
  echo "# camera sigma 25: CPU $p_cpu dB, GPU (rows) $p_rows dB, difference $d dB;" \
       "GPU (rows) vs CPU: $("$bench" --diff "$base-cpu.pfm" "$base-rows.pfm")"
  if le "$d" 0.05; then ok "$name"; else not_ok "$name"; fi
else
  not_ok "$name (the command failed)"
  show "$base-rows.log"
fi
base=$tmp/odd-1000x9
name="1000x9, block_match_rows and block_match's last column: GPU matches the CPU"
if BM3D_CUDA_MATCH=rows "$denoise" --backend cuda "$base-noisy.pfm" \
     "$base-rows.pfm" 2>"$base-rows.log"; then
  agree=$("$bench" --diff "$base-cpu.pfm" "$base-rows.pfm")
  echo "# 1000x9 (rows): GPU vs CPU: $agree"
  p=$(echo "$agree" | awk '{ print $2 }')
  if [ "$p" = inf ] || le 40 "$p"; then ok "$name"; else not_ok "$name"; fi
else
  not_ok "$name (the command failed)"
  show "$base-rows.log"
fi
options_test "expert options, block_match_rows: GPU matches the CPU" \
  "$tmp/options-rows.log" BM3D_CUDA_MATCH=rows
"$bench" --synth 67 45 3 "$tmp/small-clean.pfm"
"$denoise" --add-noise 25 --seed 5 "$tmp/small-clean.pfm" "$tmp/small-noisy.pfm"
for tool in memcheck initcheck; do
  sanitizer_test "$tool" \
    "compute-sanitizer $tool is clean on a 67x45 RGB image, block_match_rows" \
    "rows-$tool" BM3D_CUDA_MATCH=rows
done

# ---- the expert options (1 test) ----------------------------------------
options_test "expert options (search, groups, step, lambda, chroma): GPU matches the CPU" \
  "$tmp/options.log"

# ---- compute-sanitizer (4 tests) -----------------------------------------
# initcheck: no kernel reads device memory nothing wrote; synccheck: every
# barrier and warp-synchronous call is reached by the threads it names.
# The 67x45 RGB image is the one made above.
for tool in memcheck racecheck synccheck initcheck; do
  sanitizer_test "$tool" "compute-sanitizer $tool is clean on a 67x45 RGB image" \
    "$tool"
done

# ---- 100 megapixels within the device memory bound (1 test) -------------
name="a 100 MP RGB image holds at most 512 MiB of device memory"
if [ -n "$quick" ]; then
  skip "$name" "quick run"
else
  "$bench" --sizes 100 --channels 3 --backends cuda --no-warmup \
    >"$tmp/bench-100mp.log" 2>&1
  show "$tmp/bench-100mp.log"
  dev=$(awk '$1 !~ /^#/ && $4 == "cuda" && $5 !~ /fail|skip/ { print $8 }' \
          "$tmp/bench-100mp.log")
  if [ -n "$dev" ] && le "$dev" 512; then
    ok "$name ($dev MiB)"
  else
    not_ok "$name"
  fi
fi

# ---- fall-back when no device is visible (2 tests) ----------------------
in=$tmp/camera-25-noisy.pfm
if CUDA_VISIBLE_DEVICES= "$denoise" --backend auto --verbose "$in" \
     "$tmp/fallback.pfm" 2>"$tmp/fallback-auto.log" \
   && grep -q "backend cpu" "$tmp/fallback-auto.log" \
   && grep -q "CUDA unavailable.*denoised on the CPU" "$tmp/fallback-auto.log"; then
  ok "no visible device, backend auto: denoised on the CPU, and says so"
else
  not_ok "no visible device, backend auto: denoised on the CPU"
fi
show "$tmp/fallback-auto.log"
CUDA_VISIBLE_DEVICES= "$denoise" --backend cuda "$in" "$tmp/fallback2.pfm" \
  2>"$tmp/fallback-cuda.log"
rc=$?
show "$tmp/fallback-cuda.log"
if [ "$rc" = 1 ] && grep -qi "cuda" "$tmp/fallback-cuda.log" \
   && [ ! -e "$tmp/fallback2.pfm" ]; then
  ok "no visible device, backend cuda: an error, no output"
else
  not_ok "no visible device, backend cuda: an error, no output (exit $rc)"
fi

[ "$failed" = 0 ]
