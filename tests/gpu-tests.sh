#!/bin/sh
# The CUDA backend against the CPU backend, on a machine with an NVIDIA
# GPU (TAP).  Without a usable device the whole script is skipped
# visibly.  Runs from `make check` or by hand:
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   top_builddir=BUILD top_srcdir=SRC sh tests/gpu-tests.sh
#
# BM3D_GPU_TEST_KEEP=DIR keeps the images and logs in DIR;
# BM3D_GPU_TEST_QUICK=1 leaves out the 4001x2999 and 100 MP cases;
# The CUDA backend matches large tiles with block_match_rows and small
# ones with block_match; five tests run the first on small images too
# (BM3D_CUDA_MATCH=rows).  Camera noise (--noise camera) runs on the
# shared PolyU photographs too when ../shared is there
# (BM3D_REAL_PHOTOS names their folder elsewhere).
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

# compute-sanitizer on the 67x45 RGB image, or $sanitizer_input (one
# test): TOOL NAME TAG [VAR=VALUE...]; TAG names its output and log;
# $sanitizer_args, the command's options beside --backend cuda.
sanitizer_args=
sanitizer_input=
sanitizer_test () {
  tool=$1 name=$2 tag=$3
  shift 3
  if [ -z "$sanitizer" ]; then
    skip "$name" "compute-sanitizer not found"
    return
  fi
  if env "$@" "$sanitizer" --tool "$tool" --error-exitcode 3 \
       "$denoise" --backend cuda $sanitizer_args \
       "${sanitizer_input:-$tmp/small-noisy.pfm}" \
       "$tmp/small-$tag.pfm" >"$tmp/sanitizer-$tag.log" 2>&1; then
    ok "$name"
  else
    not_ok "$name"
  fi
  tail -n 5 "$tmp/sanitizer-$tag.log" | show /dev/stdin
}

echo "1..61"
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
    d=$(abs_diff "$p_cpu" "$p_gpu")
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
  d=$(abs_diff "$p_cpu" "$p_rows")
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

# ---- whole images with the result streamed tile by tile (5 tests) --------
# Images whose result does not fit the device stream each tile's core
# into the output while the next tile is filtered
# (gpu/core/cuda_tiled_image.cu); BM3D_CUDA_STREAM_SIDE makes small images do
# so through small tiles.  Cancelling, with the result on the device
# (the output then untouched) or streamed; the sanitizers on 24-pixel
# tiles of the 67x45 image.
name="astronaut sigma 25, streamed in tiles of 200: GPU PSNR within 0.05 dB of the CPU's"
base=$tmp/astronaut-25
if BM3D_CUDA_STREAM_SIDE=200 "$denoise" --backend cuda --sigma 25 --verbose \
     "$base-noisy.pfm" "$base-streamed.pfm" 2>"$base-streamed.log"; then
  p_cpu=$(psnr_of "$base-cpu.pfm" "$tmp/astronaut-clean.pfm")
  p_gpu=$(psnr_of "$base-streamed.pfm" "$tmp/astronaut-clean.pfm")
  d=$(abs_diff "$p_cpu" "$p_gpu")
  echo "# streamed: CPU $p_cpu dB, GPU $p_gpu dB, difference $d dB;" \
       "against the unstreamed GPU run: $("$bench" --diff "$base-gpu.pfm" "$base-streamed.pfm")"
  if le "$d" 0.05; then ok "$name"; else not_ok "$name"; fi
else
  not_ok "$name (the command failed)"
  show "$base-streamed.log"
fi
for stream in "" 160; do
  cancel_test bm3d "$stream"
done
for tool in memcheck initcheck; do
  sanitizer_test "$tool" \
    "compute-sanitizer $tool is clean on a 67x45 RGB image streamed in 24-pixel tiles" \
    "stream-$tool" BM3D_CUDA_STREAM_SIDE=24
done

# ---- camera noise: GPU and CPU agree (5 tests) --------------------------
# A profile of correlated noise, as white noise through a 3x3 box leaves
# it (autocovariance falling linearly to 0 at lag 3 each way; levels
# 10, 8 and 6 for the three planes), so that every coefficient has a
# variance and threshold of its own; both modes (both phases, the
# first alone), gray and RGB, on the sigma 10 inputs above.
profile_file () {
  awk -v channels="$1" 'BEGIN {
    print "bm3d-noise-profile 1"
    print "channels " channels
    split("100 64 36", level, " ")
    for (p = 0; p < channels; p++) {
      print "plane " p
      for (dy = -7; dy <= 7; dy++) {
        line = ""
        for (dx = -7; dx <= 7; dx++) {
          ay = dy < 0 ? -dy : dy; ax = dx < 0 ? -dx : dx
          v = (ay < 3 && ax < 3) ? level[p + 1] * (3 - ay) * (3 - ax) / 9 : 0
          line = line (dx > -7 ? " " : "") v
        }
        print line
      }
    }
  }'
}
profile_file 1 >"$tmp/profile-gray.txt"
profile_file 3 >"$tmp/profile-rgb.txt"
for img in camera astronaut; do
  case $img in camera) kind=gray ;; *) kind=rgb ;; esac
  for mode in bm3d bm3d-fast; do
    name="$img ($kind), camera noise, mode $mode: GPU PSNR within 0.05 dB of the CPU's"
    base=$tmp/$img-profile-$mode
    noisy=$tmp/$img-10-noisy.pfm
    if ! "$denoise" --backend cpu --mode "$mode" --verbose \
           --noise-profile "$tmp/profile-$kind.txt" "$noisy" "$base-cpu.pfm" \
           2>"$base-cpu.log" \
       || ! "$denoise" --backend cuda --mode "$mode" --verbose \
              --noise-profile "$tmp/profile-$kind.txt" "$noisy" \
              "$base-gpu.pfm" 2>"$base-gpu.log"; then
      not_ok "$name (a command failed)"
      show "$base-cpu.log"
      show "$base-gpu.log"
      continue
    fi
    p_in=$(psnr_of "$noisy" "$tmp/$img-clean.pfm")
    p_cpu=$(psnr_of "$base-cpu.pfm" "$tmp/$img-clean.pfm")
    p_gpu=$(psnr_of "$base-gpu.pfm" "$tmp/$img-clean.pfm")
    agree=$("$bench" --diff "$base-cpu.pfm" "$base-gpu.pfm")
    d=$(abs_diff "$p_cpu" "$p_gpu")
    echo "# $img camera noise, $mode: noisy $p_in dB, CPU $p_cpu dB, GPU $p_gpu dB," \
         "difference $d dB; GPU vs CPU: $agree"
    grep -h "time:" "$base-cpu.log" "$base-gpu.log" | sed 's/^/#   /'
    if le "$d" 0.05 && grep -q "backend cuda" "$base-gpu.log"; then
      ok "$name"
    else
      not_ok "$name"
      show "$base-gpu.log"
    fi
  done
done

# Blind, on real photographs: the profile estimated from each (the same
# estimate on both backends), then filtered; PSNR against the mean of
# the shots, GPU within 0.05 dB of the CPU on each.
polyu=${BM3D_REAL_PHOTOS:-${BM3D_BENCHMARK_SETS:-$top_srcdir/../shared/benchmark-sets}/real-noise-polyu}
name="two real photographs, --noise camera: GPU PSNR within 0.05 dB of the CPU's"
if [ ! -d "$polyu" ]; then
  skip "$name" "no folder $polyu (set BM3D_BENCHMARK_SETS to the benchmark sets' folder, or BM3D_REAL_PHOTOS to this set's)"
else
  real_ok=1
  for photo in Canon80D_8_8_6400_comproom_12 NikonD800_5_125_6400_stair_1; do
    base=$tmp/real-$photo
    if ! camera_both "$base" "$polyu/${photo}_real.JPG"; then
      real_ok=0
      show "$base-gpu.log"
      continue
    fi
    "$denoise" --convert "$polyu/${photo}_mean.JPG" "$base-mean.pfm"
    "$denoise" --convert "$polyu/${photo}_real.JPG" "$base-real.pfm"
    p_in=$(psnr_of "$base-real.pfm" "$base-mean.pfm")
    cpu_gpu_psnr "$base" "$base-mean.pfm" "$photo: noisy $p_in dB,"
    grep -h "noise profile\|time:" "$base-cpu.log" "$base-gpu.log" | sed 's/^/#   /'
    if ! le "$d" 0.05 || ! grep -q "backend cuda" "$base-gpu.log"; then
      real_ok=0
    fi
  done
  if [ "$real_ok" = 1 ]; then ok "$name"; else not_ok "$name"; fi
fi

# Noise that follows brightness: the dark clipped photo of
# tests/cli-camera.sh, whose profile has a level function (version 2),
# so both backends filter the variance-stabilised image and map it back
# (the CPU on a stabilised copy, the device in its colour kernels, with
# the host's rounding): the same profile file on both, GPU PSNR within
# 0.05 dB of the CPU's.
name="dark clipped photo, camera noise with a level function: GPU PSNR within 0.05 dB of the CPU's"
base=$tmp/dark
dark=$top_srcdir/tests/data/dark-coffee-noisy.png
if camera_both "$base" "$dark" \
   && "$denoise" --convert "$top_srcdir/tests/data/dark-coffee-clean.png" \
        "$base-clean.pfm"; then
  cpu_gpu_psnr "$base" "$base-clean.pfm" "dark photo:"
  if le "$d" 0.05 && grep -q "backend cuda" "$base-gpu.log" \
     && grep -q '^bm3d-noise-profile 2$' "$base-cpu.txt" \
     && cmp "$base-cpu.txt" "$base-gpu.txt"; then
    ok "$name"
  else
    not_ok "$name"
    show "$base-gpu.log"
  fi
else
  not_ok "$name"
fi

# truth_case NAME NOISY CLEAN GAIN LOGS_OK: the photo NOISY (tests/data)
# in camera mode on both backends, against its truth CLEAN: the GPU
# within 0.05 dB of the CPU, each at least GAIN dB above the input, and
# LOGS_OK CPU_LOG GPU_LOG true of what the two said.
truth_case () {
  name=$1
  base=$tmp/truth
  noisy=$top_srcdir/tests/data/$2
  if camera_both "$base" "$noisy" \
     && "$denoise" --convert "$top_srcdir/tests/data/$3" "$base-clean.pfm" \
     && "$denoise" --convert "$noisy" "$base-noisy.pfm"; then
    p_in=$(psnr_of "$base-noisy.pfm" "$base-clean.pfm")
    cpu_gpu_psnr "$base" "$base-clean.pfm" "$2: noisy $p_in dB,"
    if cpu_gpu_agree "$base" "$(awk -v p="$p_in" -v g="$4" 'BEGIN { print p + g }')" \
       && "$5" "$base-cpu.log" "$base-gpu.log"; then
      ok "$name"
    else
      not_ok "$name"
      show "$base-cpu.log"
      show "$base-gpu.log"
    fi
  else
    not_ok "$name"
  fi
  rm -f "$base"-*.pfm
}
neither_says_texture () {
  ! grep -q "flattest parts hold texture" "$1" "$2"
}
both_keep_colour_noise () {
  grep -q "colour noise as measured" "$1" && grep -q "colour noise as measured" "$2"
}

# Noise a phone's noise reduction left: the phone photo of
# tests/cli-camera.sh misses its finest scale as texture does, and is
# told from texture by what it holds (photo_noise.c, is_reduced_noise ()):
# both backends filter it with its profile (neither says "texture"), the
# GPU within 0.05 dB of the CPU, each at least 1.2 dB above the input.
truth_case "phone photo after its noise reduction, camera noise: GPU within 0.05 dB of the CPU, both filtering its profile" \
  phone-coffee-noisy.jpg phone-coffee-clean.png 1.2 neither_says_texture

# Colour noise under texture: the colour-matrix photo of
# tests/cli-camera.sh reads as texture, and its chrominance keeps the
# level the profile measured (photo_noise.c, texture_only ()): both
# backends say so, the GPU within 0.05 dB of the CPU, each at least 2 dB
# above the input.
truth_case "colour noise under texture, camera noise: GPU within 0.05 dB of the CPU, both keeping the colour noise measured" \
  colour-brick-noisy.png colour-brick-clean.png 2 both_keep_colour_noise

# white_texture_case NAME PHOTO SIGMA SAID: PHOTO (tests/data) with
# white noise of SIGMA, whose profile read texture as noise, in camera
# mode: both backends say SAID and filter it as white noise of the
# finest scale's reading, the GPU within 0.05 dB of the CPU, each within
# 0.1 dB of white mode at the true sigma on the CPU.
white_texture_case () {
  name="$1, camera noise: both backends filter it as white noise of its finest scale, GPU within 0.05 dB of the CPU"
  base=$tmp/white-texture
  if "$denoise" --add-noise "$3" --seed 5 "$top_srcdir/tests/data/$2" \
       "$base-noisy.png" \
     && camera_both "$base" "$base-noisy.png" \
     && "$denoise" --convert "$top_srcdir/tests/data/$2" "$base-clean.pfm" \
     && "$denoise" --backend cpu --sigma "$3" "$base-noisy.png" \
          "$base-white.pfm"; then
    p_white=$(psnr_of "$base-white.pfm" "$base-clean.pfm")
    cpu_gpu_psnr "$base" "$base-clean.pfm" "$2, white noise of sigma $3: white mode $p_white dB,"
    if cpu_gpu_agree "$base" "$(awk -v p="$p_white" 'BEGIN { print p - 0.1 }')" \
       && grep -q "$4" "$base-cpu.log" && grep -q "$4" "$base-gpu.log"; then
      ok "$name"
    else
      not_ok "$name"
      show "$base-cpu.log"
      show "$base-gpu.log"
    fi
  else
    not_ok "$name"
  fi
  rm -f "$base"-*.pfm
}

# White noise under texture: brick.png's flattest 32x32 blocks hold
# texture beside the noise while its flattest 16x16 blocks hold only
# white noise of the finest scale's level (photo_noise.c,
# is_fine_white ()).
white_texture_case "white noise under texture" brick.png 10 \
  'white noise (the flattest parts hold no coarser noise)'
# Texture everywhere: gravel.png has no flat spot even at 16x16; with
# noise of sigma 10 its profile reads 3.8 times its finest scale, with
# sigma 20 its lowest frequencies 2.2 times and more its middle ones,
# both coarser than strong Gaussian noise is (is_texture_everywhere ()).
for sigma in 10 20; do
  white_texture_case "white noise of sigma $sigma on texture everywhere" \
    gravel.png $sigma 'its flattest parts hold texture, not noise'
done
# White noise where no flat block can be read: brick.png with noise of
# sigma 50 clips where its flattest blocks are, and its profile reads
# near its finest scale (is_white_unread ()).
white_texture_case "white noise of sigma 50 whose flat parts clip" \
  brick.png 50 'no flat part could be read'

# Clean photographs in camera noise (photo_noise.c): coffee.png's finest
# scale is Gaussian grain, not a camera's sparse processed noise
# (is_processed ()), and it keeps its profile; camera.png's is weak,
# nearly white grain (is_grain ()), brick.png's profile is texture and
# chelsea.png's a soft background's shading (block_scales.c): these are
# filtered as white noise of their finest scale's reading, which both
# backends say.  Both backends read the same finest
# scale and keep each photo at 45 dB or more.
clean_camera_case () {  # FILE WHAT [PATTERN both logs hold]
  name="clean $1, camera noise ($2): GPU within 0.05 dB of the CPU, both at least 45 dB"
  base=$tmp/clean-camera
  clean=$top_srcdir/tests/data/$1
  if camera_both "$base" "$clean" \
     && "$denoise" --convert "$clean" "$base-clean.pfm"; then
    cpu_gpu_psnr "$base" "$base-clean.pfm" "clean $1:"
    grep -h "finest scale\|weak grain" "$base-cpu.log" "$base-gpu.log" \
      | sed 's/^/#   /'
    if le "$d" 0.05 && le 45 "$p_cpu" && le 45 "$p_gpu" \
       && grep -q "backend cuda" "$base-gpu.log" \
       && grep -q "${3:-.}" "$base-cpu.log" \
       && grep -q "${3:-.}" "$base-gpu.log"; then
      ok "$name"
    else
      not_ok "$name"
      show "$base-gpu.log"
    fi
  else
    not_ok "$name"
  fi
  rm -f "$base"-*.pfm
}
clean_camera_case coffee.png "grain, not processed"
clean_camera_case camera.png "weak grain, white noise of its finest scale" \
  "weak grain"
clean_camera_case brick.png "texture at the profile's block scale" \
  "flattest parts hold texture"
clean_camera_case chelsea.png "a background's shading in the profile's blocks" \
  "flattest parts hold texture"

# The profile estimated with the block statistics on the GPU is the
# CPU's, bit for bit (noise_profile_cuda.cu), on a 12 MP RGB picture.
name="the noise profile estimated on the GPU is the CPU's, bit for bit"
base=$tmp/estimate-12mp
if "$bench" --synth 4000 3000 3 "$base-clean.pfm" \
   && "$denoise" --add-noise 12 --seed 11 "$base-clean.pfm" "$base-noisy.pfm" \
   && "$denoise" --backend cpu --mode bm3d-fast --noise camera \
        --save-noise-profile "$base-cpu.txt" "$base-noisy.pfm" "$base-cpu.pfm" \
   && "$denoise" --backend cuda --mode bm3d-fast --noise camera --verbose \
        --save-noise-profile "$base-gpu.txt" "$base-noisy.pfm" "$base-gpu.pfm" \
        2>"$base-gpu.log" \
   && cmp "$base-cpu.txt" "$base-gpu.txt"; then
  ok "$name"
else
  not_ok "$name"
fi
grep -h "noise profile\|time:" "$base-gpu.log" | sed 's/^/#   /'
rm -f "$base"-*.pfm

# ---- compute-sanitizer, camera noise (4 tests) ---------------------------
# The profile estimated from the 67x45 RGB image, both phases; then the
# dark photo, whose level function puts the stabilising transform's
# tables on the device.
sanitizer_args="--noise camera"
for tool in memcheck initcheck; do
  sanitizer_test "$tool" \
    "compute-sanitizer $tool is clean on a 67x45 RGB image, camera noise" \
    "camera-$tool"
done
sanitizer_args="--noise camera --mode bm3d-fast"
sanitizer_input=$dark
for tool in memcheck initcheck; do
  sanitizer_test "$tool" \
    "compute-sanitizer $tool is clean on the dark photo, camera noise with a level function" \
    "dark-$tool"
done
sanitizer_args=
sanitizer_input=

# ---- 100 megapixels within the device memory bound (1 test) -------------
name="a 100 MP RGB image holds at most 512 MiB of device memory"
if [ -n "$quick" ]; then
  skip "$name" "quick run"
else
  "$bench" --sizes 100 --channels 3 --backends cuda --no-warmup \
    >"$tmp/bench-100mp.log" 2>&1
  show "$tmp/bench-100mp.log"
  dev=$(awk '$1 !~ /^#/ && $4 == "cuda" && $0 !~ /fail|skip/ { print $10 }' \
          "$tmp/bench-100mp.log")
  if [ -n "$dev" ] && le "$dev" 512; then
    ok "$name ($dev MiB)"
  else
    not_ok "$name"
  fi
fi

# ---- 8- and 16-bit pixels converted on the device (4 tests) --------------
# tests/engine-pixels with BM3D_PIXELS_TEST_BACKEND=cuda: bm3d, nlm and
# isoline on u8 and u16 pixels, gray, RGB and RGBA, the device's own
# conversions against its float path converted on the host (within one
# level), and against the CPU's integer result (PSNR within 0.05 dB);
# camera mode too (its noise measured on a float copy on the host), with
# and without a level function; whole and streamed
# (BM3D_CUDA_STREAM_SIDE), and under memcheck.
pixels=$top_builddir/tests/engine-pixels
pixels_test () {
  name=$1 tag=$2
  shift 2
  if env BM3D_PIXELS_TEST_BACKEND=cuda "$@" >"$tmp/pixels-$tag.log" 2>&1; then
    ok "$name"
  else
    not_ok "$name"
  fi
  grep -v '^ok' "$tmp/pixels-$tag.log" | show /dev/stdin
}
pixels_test "u8 and u16 pixels converted on the device: as its float path, \
and the CPU's" whole "$pixels"
pixels_test "u8 and u16 pixels, result streamed in tiles of 32" streamed \
  BM3D_CUDA_STREAM_SIDE=32 "$pixels"
for side in 0 32; do
  name="compute-sanitizer memcheck is clean on u8 and u16 pixels (stream side $side)"
  if [ -z "$sanitizer" ]; then
    skip "$name" "compute-sanitizer not found"
  else
    pixels_test "$name" "memcheck-$side" BM3D_CUDA_STREAM_SIDE=$side \
      "$sanitizer" --tool memcheck --error-exitcode 3 "$pixels"
  fi
done

# ---- one image over several devices (9 tests) ----------------------------
# --devices splits an image of 32 MP or more into bands, one a device
# (gpu/core/devices.c); BM3D_SPLIT_MIN_PIXELS=1 splits the small images
# here, and a device given twice puts two bands on one GPU.  The bands'
# result is one device's within the tiles' rounding (PSNR between them
# >= 60 dB).  BM3D_TEST_FAIL_DEVICE=N:K fails device N at its tile K + 1:
# its band is redone on the other device, or the CPU when none is left.
gpus=$(printf '%s\n' "$version" | sed -n 's/^CUDA: available, \([0-9]*\) device.*/\1/p')
echo "# CUDA devices: ${gpus:-?}"
two=0,0
[ "${gpus:-1}" -ge 2 ] && two=0,1
# split_test NAME LOG OUT REFERENCE MESSAGE COMMAND...: COMMAND with OUT
# last, split (the trace says so), MESSAGE (a grep pattern, or "") on
# its stderr, and within $least dB of REFERENCE.
least=60
split_test () {
  name=$1 log=$2 out=$3 ref=$4 message=$5
  shift 5
  if env BM3D_SPLIT_MIN_PIXELS=1 BM3D_CPU_TRACE=1 "$@" "$out" >"$log" 2>&1 \
     && grep -q "^trace split 2 bands over 2 devices" "$log" \
     && { [ -z "$message" ] || grep -q "$message" "$log"; }; then
    agree=$("$bench" --diff "$ref" "$out")
    echo "# $name: against one device: $agree"
    p=$(echo "$agree" | awk '{ print $2 }')
    if [ "$p" = inf ] || le "$least" "$p"; then ok "$name"; else not_ok "$name"; fi
  else
    not_ok "$name (the command failed, or did not split or say so)"
  fi
  grep -v "^trace" "$log" | show /dev/stdin
}
base=$tmp/astronaut-25
split_test "astronaut sigma 25 in bands on devices $two: one device's result" \
  "$base-split.log" "$base-split.pfm" "$base-gpu.pfm" "" \
  "$denoise" --backend cuda --sigma 25 --devices "$two" "$base-noisy.pfm"
"$denoise" --backend cuda --sigma 25 "$data/astronaut.png" "$tmp/astronaut-u8.png"
split_test "8-bit astronaut in bands on devices $two (pixels converted on the device): one device's result" \
  "$tmp/astronaut-u8-split.log" "$tmp/astronaut-u8-split.png" \
  "$tmp/astronaut-u8.png" "" \
  "$denoise" --backend cuda --sigma 25 --devices "$two" "$data/astronaut.png"
base=$tmp/astronaut-10
"$denoise" --backend cuda --noise camera "$base-noisy.pfm" "$base-camera.pfm"
split_test "camera noise measured once, then in bands on devices $two: one device's result" \
  "$base-camera-split.log" "$base-camera-split.pfm" "$base-camera.pfm" "" \
  "$denoise" --backend cuda --noise camera --devices "$two" "$base-noisy.pfm"
# 8-bit pixels in camera mode: the noise measured on a float copy on the
# host, the pixels converted on the devices through the level
# function's tables.
"$denoise" --backend cuda --noise camera "$dark" "$tmp/dark-u8-camera.png"
split_test "8-bit dark photo, camera noise with a level function, in bands on devices $two (pixels converted on the device): one device's result" \
  "$tmp/dark-u8-camera-split.log" "$tmp/dark-u8-camera-split.png" \
  "$tmp/dark-u8-camera.png" "" \
  "$denoise" --backend cuda --noise camera --devices "$two" "$dark"

# A device that fails, one image without a split: redone on the CPU.
# Under auto, an image this small would go to the CPU at once (its time
# below the device's start-up): BM3D_CUDA_STARTUP_SECONDS=0 sends it to
# the device, as a large one goes.
base=$tmp/astronaut-25
name="BM3D_TEST_FAIL_DEVICE=0:0, one device: the CPU redoes it, says so, the CPU's pixels"
if BM3D_CUDA_STARTUP_SECONDS=0 BM3D_TEST_FAIL_DEVICE=0:0 \
     "$denoise" --backend auto --sigma 25 \
     --devices 0 "$base-noisy.pfm" "$base-failed.pfm" 2>"$base-failed.log" \
   && grep -q "^bm3d-denoise: CUDA failed (.*BM3D_TEST_FAIL_DEVICE.*); denoised on the CPU instead" "$base-failed.log" \
   && cmp -s "$base-failed.pfm" "$base-cpu.pfm"; then
  ok "$name"
else
  not_ok "$name"
fi
show "$base-failed.log"
name="BM3D_TEST_FAIL_DEVICE=0:0, --backend cuda: an error, no output"
BM3D_TEST_FAIL_DEVICE=0:0 "$denoise" --backend cuda --sigma 25 --devices 0 \
  "$base-noisy.pfm" "$base-failed-cuda.pfm" 2>"$base-failed-cuda.log"
rc=$?
if [ "$rc" = 1 ] && grep -q "BM3D_TEST_FAIL_DEVICE" "$base-failed-cuda.log" \
   && [ ! -e "$base-failed-cuda.pfm" ]; then
  ok "$name"
else
  not_ok "$name (exit $rc)"
fi
show "$base-failed-cuda.log"

# A device that fails in a split: on one GPU (0,0) the CPU takes the
# band, on two the other device.
# A band the CPU redid is the CPU's: within 40 dB, as the odd sizes'.
if [ "$two" = 0,1 ]; then
  fail=1:0 where="device 0"
else
  fail=0:1 where="the CPU" least=40
fi
split_test "BM3D_TEST_FAIL_DEVICE=$fail in bands on devices $two: redone on $where, one device's result" \
  "$base-split-failed.log" "$base-split-failed.pfm" "$base-gpu.pfm" \
  "^bm3d-denoise: CUDA device [01] failed (.*BM3D_TEST_FAIL_DEVICE.*); its tiles were redone on $where\$" \
  env BM3D_CUDA_STARTUP_SECONDS=0 BM3D_TEST_FAIL_DEVICE=$fail \
  "$denoise" --backend auto --sigma 25 --devices "$two" "$base-noisy.pfm"

# A batch: the file whose device failed is redone elsewhere, nothing lost.
name="a batch with BM3D_TEST_FAIL_DEVICE=$fail on devices $two: every file done, the failure told once"
mkdir -p "$tmp/batch-in" "$tmp/batch-out"
for k in 1 2 3 4; do
  cp "$base-noisy.pfm" "$tmp/batch-in/a$k.pfm"
done
if BM3D_TEST_FAIL_DEVICE=$fail "$denoise" --backend auto --sigma 25 \
     --devices "$two" -o "$tmp/batch-out" "$tmp/batch-in"/a*.pfm \
     2>"$tmp/batch-failed.log" \
   && [ "$(grep -c "CUDA device [01] failed (.*BM3D_TEST_FAIL_DEVICE.*); its file was redone on $where" "$tmp/batch-failed.log")" = 1 ]; then
  batch_ok=1
  for k in 1 2 3 4; do
    agree=$("$bench" --diff "$base-gpu.pfm" "$tmp/batch-out/a$k.pfm")
    echo "# batch a$k: against one device: $agree"
    p=$(echo "$agree" | awk '{ print $2 }')
    [ "$p" = inf ] || le 40 "$p" || batch_ok=0
  done
  if [ "$batch_ok" = 1 ]; then ok "$name"; else not_ok "$name"; fi
else
  not_ok "$name (the command failed or did not say so once)"
fi
show "$tmp/batch-failed.log"

# 100 MP RGB in bands: each device still within its memory bound.
name="100 MP RGB in bands on devices $two: at most 512 MiB a device"
if [ -n "$quick" ]; then
  skip "$name" "quick run"
else
  "$bench" --sizes 100 --channels 3 --backends cuda --devices "0/$two" \
    >"$tmp/bench-100mp-split.log" 2>&1
  show "$tmp/bench-100mp-split.log"
  dev=$(awk -v set="$two" '$1 !~ /^#/ && $4 == "cuda" && $NF == set \
          && $0 !~ /fail|skip/ { print $10 }' "$tmp/bench-100mp-split.log")
  if [ -n "$dev" ] && le "$dev" 512; then
    ok "$name ($dev MiB)"
  else
    not_ok "$name"
  fi
fi

# ---- fall-back when no device is visible (2 tests) ----------------------
in=$tmp/camera-25-noisy.pfm
# A start-up estimate of 0 keeps backend auto off the CPU it would take
# for this small image at once: the engine's fall-back is under test.
if CUDA_VISIBLE_DEVICES= BM3D_CUDA_STARTUP_SECONDS=0 "$denoise" \
     --backend auto --verbose "$in" "$tmp/fallback.pfm" 2>"$tmp/fallback-auto.log" \
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
