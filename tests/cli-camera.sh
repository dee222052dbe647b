#!/bin/sh
# bm3d-denoise --noise camera: the noise profile estimated, printed with
# --verbose, saved and read back (the same pixels), malformed profiles
# refused in one line with nothing written, option mixes refused, and on
# two shared real photographs (when ../shared is there) a result well
# above the noisy input, for camera mode and for white CBM3D at
# --sigma auto, where white CBM3D at the old --sigma auto stayed at it.
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
o=$work

if ! has_png; then
  skip "camera noise on the test photographs" "built without libpng"
  finish
  exit 0
fi

# ---- estimate, save, read back ------------------------------------------
"$cmd" --add-noise 12 --seed 9 "$data/astronaut.png" "$o/noisy.png"
run "$cmd" --noise camera --verbose --save-noise-profile "$o/p.txt" \
  --threads 2 "$o/noisy.png" "$o/camera.png"
if [ "$rc" -eq 0 ] && grep -q 'noise profile (estimated): luma [0-9.]*, chroma [0-9.]*' "$work/run.err"; then
  ok "--noise camera --verbose prints the luma and chroma levels"
else
  not_ok "--noise camera --verbose prints the luma and chroma levels"
  sed 's/^/#   /' "$work/run.err"
fi
before=$(psnr "$data/astronaut.png" "$o/noisy.png")
after=$(psnr "$data/astronaut.png" "$o/camera.png")
check "camera mode denoises white noise ($before -> $after dB)" \
  is_above "$after" "$(awk -v b="$before" 'BEGIN { print b + 4 }')"
check "--save-noise-profile wrote a profile" \
  grep -qE '^bm3d-noise-profile [12]$' "$o/p.txt"

run "$cmd" --noise-profile "$o/p.txt" --threads 1 "$o/noisy.png" \
  "$o/again.png"
same=$(psnr "$o/camera.png" "$o/again.png")
if [ "$rc" -eq 0 ] && [ "$same" = inf ]; then
  ok "the saved profile read back gives the same pixels"
else
  not_ok "the saved profile read back gives the same pixels ($same dB)"
  sed 's/^/#   /' "$work/run.err"
fi

run "$cmd" --noise-profile "$o/p.txt" --strength 2 --chroma-strength 0.5 \
  "$o/noisy.png" "$o/strong.png"
if [ "$rc" -eq 0 ] && [ "$(psnr "$o/camera.png" "$o/strong.png")" != inf ]; then
  ok "--strength and --chroma-strength change the result"
else
  not_ok "--strength and --chroma-strength change the result"
fi

# A batch estimates each file's own profile.
mkdir "$o/batch"
run "$cmd" --noise camera -o "$o/batch" "$o/noisy.png" "$o/camera.png"
if [ "$rc" -eq 0 ] && [ -s "$o/batch/noisy.png" ] && [ -s "$o/batch/camera.png" ]; then
  ok "a batch in camera mode"
else
  not_ok "a batch in camera mode"
  sed 's/^/#   /' "$work/run.err"
fi

# ---- malformed profiles: exit 1, one line, nothing written --------------
printf 'bm3d-noise-profile 3\nchannels 3\n' >"$o/version.txt"
printf 'not a profile\n' >"$o/garbage.txt"
head -c 1500 "$o/p.txt" >"$o/cut.txt"
awk '!done && /^[-0-9]/ { sub(/^[^ ]*/, "nan"); done = 1 } { print }' \
  "$o/p.txt" >"$o/nan.txt"
: >"$o/empty.txt"
# refused_profiles LABEL INPUT PATTERN NAME...: each $o/NAME.txt given
# for INPUT is refused: exit 1, one line matching PATTERN, no result
# and no profile written.
refused_profiles () {
  local label=$1 input=$2 pattern=$3 bad
  shift 3
  for bad; do
    rm -f "$o/out.png" "$o/saved.txt"
    run "$cmd" --noise-profile "$o/$bad.txt" --save-noise-profile \
      "$o/saved.txt" "$input" "$o/out.png"
    if [ "$rc" -eq 1 ] && one_line_error "$pattern" \
       && [ ! -e "$o/out.png" ] && [ ! -e "$o/saved.txt" ]; then
      ok "$label ($bad): exit 1, one line, nothing written"
    else
      not_ok "$label ($bad): exit 1, one line, nothing written"
      echo "# exit status $rc"
      sed 's/^/#   /' "$work/run.err"
    fi
  done
}
refused_profiles "malformed profile" "$o/noisy.png" 'noise profile' \
  version garbage cut nan empty missing
# A gray profile (a valid file: one plane) for a colour photo.
awk '/^channels 3$/ { print "channels 1"; next } /^plane 1$/ { exit } { print }' \
  "$o/p.txt" >"$o/gray1.txt"
rm -f "$o/out.png"
run "$cmd" --noise-profile "$o/gray1.txt" "$o/noisy.png" "$o/out.png"
if [ "$rc" -eq 1 ] && one_line_error 'gray' && [ ! -e "$o/out.png" ]; then
  ok "a gray profile for a colour photo: exit 1, one line, nothing written"
else
  not_ok "a gray profile for a colour photo: exit 1, one line, nothing written"
  sed 's/^/#   /' "$work/run.err"
fi

# ---- a dark photograph, clipped at black --------------------------------
# tests/data/dark-coffee-*.png (tests/make-dark-photo.py): a crop of
# coffee.png under-exposed ten times with Poisson-Gaussian noise,
# amplified back and clipped (17 % of its values at 0): every 32x32
# block holds a clipped value, which once left nothing to measure and
# the photo came back unchanged.
dark=$data/dark-coffee-noisy.png
truth=$data/dark-coffee-clean.png
run "$cmd" --noise camera --verbose --save-noise-profile "$o/dark.txt" \
  --threads 2 "$dark" "$o/dark.png"
luma=$(sed -n 's/.*noise profile (estimated): luma \([0-9.]*\),.*/\1/p' \
  "$work/run.err")
check "dark clipped photo: a real estimate (luma $luma as white RGB sigma, at least 5)" \
  is_above "${luma:-0}" 5
before=$(psnr "$truth" "$dark")
after=$(psnr "$truth" "$o/dark.png")
check "dark clipped photo: camera mode $before -> $after dB (at least 2 dB better)" \
  is_above "$after" "$(awk -v b="$before" 'BEGIN { print b + 2 }')"
check "dark clipped photo: the profile has a level function (version 2)" \
  grep -q '^bm3d-noise-profile 2$' "$o/dark.txt"

# ---- a phone's noise reduction took the finest scale --------------------
# tests/data/phone-coffee-*.{jpg,png} (tests/make-phone-photo.py): a dark
# shot's mosaic noise after a phone's processing, an edge-aware noise
# reduction of the luminance, the chroma smoothed, JPEG 92.  The noise
# reduction left the finest scale far below what the profile predicts,
# as texture does; once read as texture (9a55381: 22.69 -> 22.71 dB,
# --sigma auto 1.13), it is told from texture by what the noise
# reduction leaves (sparse), its flattest blocks alike at two sizes and
# its colour noise (photo_noise.c, is_reduced_noise ()).
if "$cmd" --version | grep -q '^JPEG support: yes'; then
  phone=$data/phone-coffee-noisy.jpg
  truth=$data/phone-coffee-clean.png
  before=$(psnr "$truth" "$phone")
  run "$cmd" --noise camera --verbose --threads 2 "$phone" "$o/phone.png"
  after=$(psnr "$truth" "$o/phone.png")
  if [ "$rc" -eq 0 ] && ! grep -q 'no camera noise could be measured' "$work/run.err"; then
    ok "phone photo after its noise reduction: filtered as noise, not as texture"
  else
    not_ok "phone photo after its noise reduction: filtered as noise, not as texture"
    sed 's/^/#   /' "$work/run.err"
  fi
  check "phone photo after its noise reduction: camera mode $before -> $after dB (at least 1.2 dB better)" \
    is_above "$after" "$(awk -v b="$before" 'BEGIN { print b + 1.2 }')"
  check "phone photo after its noise reduction: the command finds JPEG's quantisation" \
    grep -q "JPEG's quantisation found" "$work/run.err"
  run "$cmd" --sigma auto --verbose --threads 2 "$phone" "$o/phone-auto.png"
  auto=$(psnr "$truth" "$o/phone-auto.png")
  check "phone photo after its noise reduction: --sigma auto $before -> $auto dB (at least 1.2 dB better)" \
    is_above "$auto" "$(awk -v b="$before" 'BEGIN { print b + 1.2 }')"
else
  skip "a phone photo after its noise reduction" "built without JPEG support"
fi

# pair_gains WHAT NAME DB: camera mode (--verbose, its messages in
# $work/run.err) on tests/data/NAME-noisy.png gains at least DB dB
# against NAME-clean.png.
pair_gains ()
{
  before=$(psnr "$data/$2-clean.png" "$data/$2-noisy.png")
  run "$cmd" --noise camera --verbose --threads 2 "$data/$2-noisy.png" \
    "$o/$2.png"
  after=$(psnr "$data/$2-clean.png" "$o/$2.png")
  check "$1: camera mode $before -> $after dB (at least $3 dB better)" \
    is_above "$after" "$(awk -v b="$before" -v g="$3" 'BEGIN { print b + g }')"
}

# ---- colour noise under texture ----------------------------------------
# tests/data/colour-brick-*.png (tests/make-phone-photo.py --colour): a
# dim shot's mosaic noise through a camera's colour matrix, no noise
# reduction, no JPEG.  The noise is mostly colour; its luminance reads
# weak at the finest scale beside the brick's texture, so the flattest
# blocks read as texture, and the photo came back as it was (28.32 ->
# 28.32 dB at 008373c).  The chrominance keeps the level the profile
# measured (photo_noise.c, texture_only ()), and the notice says so.
pair_gains "colour noise under texture" colour-brick 2
check "colour noise under texture: the command says it kept the colour noise it measured" \
  grep -q 'flattest parts hold texture.*its colour noise as measured, chroma [0-9.]*' "$work/run.err"

# ---- a raw development, never a JPEG ------------------------------------
# tests/data/raw-coffee-*.png (tests/make-phone-photo.py --raw): a bright
# shot's mosaic noise through a camera's colour matrix, saved as PNG by
# a raw converter.  Demosaicing left its noise weak at the finest scale,
# as a camera's processing does, and it was filtered as a camera JPEG's
# (raised twice over for the flattest blocks JPEG cleans): 32.32 ->
# 30.50 dB, below its input, at d415753.  No JPEG trace, so the level as
# measured (photo_noise.c, was_jpeg ()).
pair_gains "raw development saved as PNG" raw-coffee 2
check "raw development saved as PNG: the command says it found no JPEG quantisation" \
  grep -q "JPEG's quantisation not found" "$work/run.err"

# ---- white noise under a level function -----------------------------------
# tests/data/vng-astronaut-*.png (tests/make-phone-photo.py --vng): a dim
# shot's mosaic noise, demosaiced by VNG, which keeps its finest scale,
# so the flattest 16x16 blocks held under twice white noise of the
# finest scale's reading, read through the level function, on a photo
# whose flattest parts are bright and quiet; it was filtered as white
# noise of that reading: 23.74 -> 25.23 dB at d5f9e9b (the best single
# white sigma 27.71).  Both readings of the photo as it is now
# (photo_noise.c, fine_as_is ()): the profile as measured.
pair_gains "white noise under a level function" vng-astronaut 3
if [ "$rc" -eq 0 ] && ! grep -q 'flattest parts hold no coarser noise' "$work/run.err"; then
  ok "white noise under a level function: not filtered as white noise of its finest scale"
else
  not_ok "white noise under a level function: not filtered as white noise of its finest scale"
  sed 's/^/#   /' "$work/run.err"
fi

# ---- profile files: version 2 read back, version 1 still read -----------
run "$cmd" --noise-profile "$o/dark.txt" --threads 1 "$dark" "$o/dark2.png"
same=$(psnr "$o/dark.png" "$o/dark2.png")
if [ "$rc" -eq 0 ] && [ "$same" = inf ]; then
  ok "a version 2 profile read back gives the same pixels"
else
  not_ok "a version 2 profile read back gives the same pixels ($same dB)"
  sed 's/^/#   /' "$work/run.err"
fi
# The same autocovariances as version 1 (no level function): read, and
# filtered without the transform, so the result differs.
awk '/^bm3d-noise-profile 2$/ { print "bm3d-noise-profile 1"; next }
     /^nlf / { exit } { print }' "$o/dark.txt" >"$o/dark1.txt"
run "$cmd" --noise-profile "$o/dark1.txt" --threads 1 "$dark" "$o/dark1.png"
if [ "$rc" -eq 0 ] && [ "$(psnr "$o/dark.png" "$o/dark1.png")" != inf ]; then
  ok "a version 1 profile is still read (no level function: another result)"
else
  not_ok "a version 1 profile is still read (no level function: another result)"
  sed 's/^/#   /' "$work/run.err"
fi
# Malformed version 2: its level function missing, short, not positive.
awk '/^nlf / { exit } { print }' "$o/dark.txt" >"$o/nonlf.txt"
awk 'f { $NF = ""; f = 0 } /^nlf 1$/ { f = 1 } { print }' "$o/dark.txt" \
  >"$o/shortnlf.txt"
awk 'f { $1 = "-1"; f = 0 } /^nlf 2$/ { f = 1 } { print }' "$o/dark.txt" \
  >"$o/negnlf.txt"
refused_profiles "malformed version 2 profile" "$dark" \
  'noise profile|nlf|level function' nonlf shortnlf negnlf

# ---- nothing to measure: said, not silent ------------------------------
{ printf 'P5\n64 64\n255\n'; head -c 4096 /dev/zero; } >"$o/black.pgm"
run "$cmd" --noise camera "$o/black.pgm" "$o/black.png"
if [ "$rc" -eq 0 ] && grep -q 'no camera noise could be measured.*white noise of sigma' "$work/run.err"; then
  ok "an all-black photo: camera mode says nothing could be measured and what it did"
else
  not_ok "an all-black photo: camera mode says nothing could be measured and what it did"
  sed 's/^/#   /' "$work/run.err"
fi

# ---- clean photographs with the defaults --------------------------------
# camera.png's finest scale is weak, nearly white grain (photo_noise.c's
# is_grain ()): that reading is what is removed, the grain's coarser part
# kept; astronaut.png and gravel.png (a texture that fills the frame)
# read as texture, not noise (reads_texture ()), and are filtered as
# white noise of their finest scale's reading, as brick.png is, whose
# flattest 32x32 blocks read far more than its flattest 16x16 ones
# (block_scales.c); coffee.png's finest scale is Gaussian grain, not a
# camera's sparse processed noise (is_processed ()), and keeps its
# profile; chelsea's fur is as sparse there as a camera's noise, but its
# flattest blocks are the soft background's shading, which their own
# quarters take (block_scales.c, blocks_hold_texture ()).
for name in camera astronaut gravel coffee brick chelsea; do
  run "$cmd" --noise camera --threads 2 "$data/$name.png" "$o/clean.png"
  kept=$(psnr "$data/$name.png" "$o/clean.png")
  tests_run=$((tests_run + 1))
  if [ "$rc" -eq 0 ] && is_above "$kept" 45; then
    echo "ok $tests_run - clean $name.png in camera mode: $kept dB against the original (at least 45)"
  else
    echo "not ok $tests_run - clean $name.png in camera mode: $kept dB against the original (at least 45)"
  fi
done
# What the command said of gravel.png: why it filtered so little.
run "$cmd" --noise camera --threads 2 "$data/gravel.png" "$o/clean.png"
check "a clean texture: the command says its flattest parts hold texture, not noise" \
  grep -q 'flattest parts hold texture, not noise.*white noise of sigma' "$work/run.err"
# And of chelsea.png, whose profile's blocks hold a background's shading.
run "$cmd" --noise camera --threads 2 "$data/chelsea.png" "$o/clean.png"
check "shading in the profile's blocks: the command says its flattest parts hold texture" \
  grep -q 'flattest parts hold texture, not noise.*white noise of sigma' "$work/run.err"
# And of brick.png, whose profile's blocks hold texture.
run "$cmd" --noise camera --threads 2 "$data/brick.png" "$o/clean.png"
check "texture at the profile's block scale: the command says its flattest parts hold texture" \
  grep -q 'flattest parts hold texture, not noise.*white noise of sigma' "$work/run.err"
# And of camera.png: weak grain, and the sigma it removed.
run "$cmd" --noise camera --threads 2 "$data/camera.png" "$o/clean.png"
check "weak grain: the command says what it removed and that it kept the rest" \
  grep -q 'weak grain.*white noise of sigma [0-9.]*,.*coarser grain is kept' \
  "$work/run.err"

# brick.png saved as JPEG 92 reads as a camera's processed noise (the
# JPEG leaves its finest scale sparse), its flattest blocks the mortar's
# lines: their gradients have a direction, which noise has not, and the
# level is lowered by it (photo_noise.c, unoriented_scale ()).  Without
# that, 39.44 dB against the JPEG (761269b); with it, 41.41.  Its finest
# scale is barely sparse (kurtosis 3.53: the JPEG cleaned next to none
# of its flattest blocks), and the gain for processed noise follows
# that (processed_gain ()): 42.08; its level, over what processed noise
# holds under the cap and with no colour noise (a gray photo), is the
# mortar's texture, held there before the gain (processed_sigma ()):
# 43.67; and the floor under the luminance's finer frequencies follows
# the same sparsity (processed_floor_share ()): 49.04, over the
# clean-photo goal's 45.
if "$cmd" --version | grep -q '^JPEG support: yes'; then
  "$cmd" --convert --quality 92 "$data/brick.png" "$o/brick.jpg"
  run "$cmd" --noise camera --verbose --threads 2 "$o/brick.jpg" \
    "$o/brick-camera.png"
  share=$(sed -n 's/.*flattest blocks: \([0-9.]*\) of their gradients.*/\1/p' \
            "$work/run.err")
  kept=$(psnr "$o/brick.jpg" "$o/brick-camera.png")
  tests_run=$((tests_run + 1))
  if [ "$rc" -eq 0 ] && [ -n "$share" ] && ! is_above "$share" 0.35 \
     && is_above "$kept" 45; then
    echo "ok $tests_run - brick.png as JPEG 92: its flattest blocks $share unoriented (under 0.35), camera mode $kept dB against the JPEG (at least 45)"
  else
    echo "not ok $tests_run - brick.png as JPEG 92: its flattest blocks '$share' unoriented (under 0.35), camera mode $kept dB against the JPEG (at least 45)"
    sed 's/^/#   /' "$work/run.err"
  fi
else
  skip "brick.png as JPEG 92 in camera mode" "built without JPEG support"
fi

# chelsea.png saved as JPEG 85: a clean photograph that reads as a
# camera's processed noise, its flattest blocks the fur's texture with
# little colour, its finest scale a little sparse.  The floor under the
# luminance's finer frequencies, which makes up for what a camera's
# processing took, follows that sparsity as the gain does where no
# colour noise says the profile is a sensor's (photo_noise.c,
# processed_floor_share ()): the whole floor turned the texture's
# profile near white and filtered its detail everywhere, 41.65 dB
# against the JPEG (3138f69); now 43.95.
if "$cmd" --version | grep -q '^JPEG support: yes'; then
  "$cmd" --convert --quality 85 "$data/chelsea.png" "$o/chelsea.jpg"
  run "$cmd" --noise camera --verbose --threads 2 "$o/chelsea.jpg" \
    "$o/chelsea-camera.png"
  kept=$(psnr "$o/chelsea.jpg" "$o/chelsea-camera.png")
  tests_run=$((tests_run + 1))
  if [ "$rc" -eq 0 ] && grep -q "a camera's processed noise" "$work/run.err" \
     && is_above "$kept" 43; then
    echo "ok $tests_run - chelsea.png as JPEG 85, read as processed noise: camera mode $kept dB against the JPEG (at least 43)"
  else
    echo "not ok $tests_run - chelsea.png as JPEG 85, read as processed noise: camera mode $kept dB against the JPEG (at least 43)"
    sed 's/^/#   /' "$work/run.err"
  fi
else
  skip "chelsea.png as JPEG 85 in camera mode" "built without JPEG support"
fi

# Weak white noise is still removed as measured: camera mode within
# 0.1 dB of white mode at the true sigma (3, under GRAIN_MAX).
"$cmd" --add-noise 3 --seed 4 "$data/camera.png" "$o/weak.png"
run "$cmd" --sigma 3 --threads 2 "$o/weak.png" "$o/weak-white.png"
run "$cmd" --noise camera --threads 2 "$o/weak.png" "$o/weak-camera.png"
p_noisy=$(psnr "$data/camera.png" "$o/weak.png")
p_white=$(psnr "$data/camera.png" "$o/weak-white.png")
p_camera=$(psnr "$data/camera.png" "$o/weak-camera.png")
tests_run=$((tests_run + 1))
if [ "$rc" -eq 0 ] && is_near "$p_camera" "$p_white" 0.1 \
   && is_above "$p_camera" "$(awk -v b="$p_noisy" 'BEGIN { print b + 2 }')"; then
  echo "ok $tests_run - white noise of sigma 3: camera mode $p_camera dB, white mode at the true sigma $p_white, noisy $p_noisy (within 0.1, 2 dB gained)"
else
  echo "not ok $tests_run - white noise of sigma 3: camera mode $p_camera dB, white mode at the true sigma $p_white, noisy $p_noisy (within 0.1, 2 dB gained)"
fi

# camera_as_white NAME SIGMA SAID: tests/data/NAME.png given white noise
# of SIGMA, whose profile read texture as noise: camera mode within 0.1
# dB of white mode at the true sigma, saying SAID once.
camera_as_white ()
{
  local name=$1 sigma=$2 noisy=$o/$1-w$2 camera white said
  "$cmd" --add-noise "$sigma" --seed 5 "$data/$name.png" "$noisy.png"
  run "$cmd" --noise camera --threads 2 "$noisy.png" "$noisy-camera.png"
  said=$(grep -c "$3" "$work/run.err")
  camera=$(psnr "$data/$name.png" "$noisy-camera.png")
  "$cmd" --sigma "$sigma" --threads 2 "$noisy.png" "$noisy-white.png"
  white=$(psnr "$data/$name.png" "$noisy-white.png")
  tests_run=$((tests_run + 1))
  if [ "$rc" -eq 0 ] && [ "$said" -eq 1 ] \
     && is_near "$camera" "$white" 0.1; then
    echo "ok $tests_run - $name.png, white noise of sigma $sigma: camera mode $camera dB, white mode at the true sigma $white (within 0.1), said once"
  else
    echo "not ok $tests_run - $name.png, white noise of sigma $sigma: camera mode $camera dB, white mode at the true sigma $white (within 0.1), said $said times"
    sed 's/^/#   /' "$work/run.err"
  fi
}

# White noise under texture: the flattest 32x32 blocks of brick.png and
# camera.png hold texture beside white noise of sigma 10, and the
# profile read it as coarse noise (38.40 and 33.12 dB, where white
# mode at the true sigma gives 39.55 and 34.12).  Their flattest 16x16
# blocks hold no more than white noise of the finest scale's level
# (photo_noise.c, is_fine_white ()).
for name in brick camera; do
  camera_as_white $name 10 'white noise (the flattest parts hold no coarser noise)'
done

# Texture everywhere: gravel.png has no flat spot even at 16x16, and
# with white noise its profile read the gravel as noise: at sigma 10
# 3.8 times its finest scale (25.04 dB, where white mode at the true
# sigma gives 31.35), at sigma 20 its lowest frequencies 2.2 times and
# more its middle ones (24.01 against 27.58).  Strong Gaussian noise is
# never that coarse (photo_noise.c, is_texture_everywhere ()).
for sigma in 10 20; do
  camera_as_white gravel $sigma 'its flattest parts hold texture, not noise'
done

# White noise where no flat block can be read: brick.png given white
# noise of sigma 50 clips in its mortar and highlights, too few of its
# 32x32 blocks are unclipped enough to read, and its profile reads 1.12
# times its finest scale, where a sensor's noise through demosaicing
# reads 1.8 times and more: white noise of that reading (photo_noise.c,
# is_white_unread ()).  (camera.png, this case before its finest scale
# was read through clipping, noise_estimate.c, now reads its profile
# below its finest scale, and filters the profile measured.)
camera_as_white brick 50 'no flat part could be read'

# ---- usage errors: exit 2 ----------------------------------------------
expect_error 2 "unknown noise model 'pink'" "--noise pink: exit 2" \
  "$cmd" --noise pink "$o/noisy.png" "$o/out.png"
for k in 0.1 5 abc ''; do
  expect_error 2 'invalid strength' "--strength '$k': exit 2" \
    "$cmd" --noise camera --strength "$k" "$o/noisy.png" "$o/out.png"
done
expect_error 2 'invalid chroma strength' "--chroma-strength 9: exit 2" \
  "$cmd" --noise camera --chroma-strength 9 "$o/noisy.png" "$o/out.png"
expect_error 2 'apply to --noise camera' "--strength with white noise: exit 2" \
  "$cmd" --strength 2 "$o/noisy.png" "$o/out.png"
expect_error 2 'applies to --noise white' "--sigma with camera noise: exit 2" \
  "$cmd" --noise camera --sigma 10 "$o/noisy.png" "$o/out.png"
expect_error 2 'apply to --noise camera' \
  "--noise white with --noise-profile: exit 2" \
  "$cmd" --noise white --noise-profile "$o/p.txt" "$o/noisy.png" "$o/out.png"
expect_error 2 'only to one INPUT OUTPUT' \
  "--save-noise-profile with a batch: exit 2" \
  "$cmd" --noise camera --save-noise-profile "$o/x.txt" -o "$o/batch" \
  "$o/noisy.png"

# ---- strong white noise on a photo without flat parts -------------------
# Kodak24's kodim05 (../shared, when it is there) with white noise of
# sigma 10: no part of it is flat, its flattest blocks hold texture
# beside the noise, and its profile reads 3 times its finest scale.
# Read as noise alone, it gave 30.96 dB where white mode at the true
# sigma gives 34.83; the flattest blocks' measures, taken for strong
# noise too when its profile reads that far above its finest scale
# (photo_noise.c, coarse_or_texture ()), find the texture.
# camera_and_white CLEAN SIGMA NOISY: CLEAN given white noise of SIGMA
# (NOISY.png), then $camera and $white, the PSNR of camera mode and of
# white mode at the true sigma against CLEAN.
camera_and_white ()
{
  "$cmd" --add-noise "$2" --seed 5 "$1" "$3.png"
  run "$cmd" --noise camera --threads 2 "$3.png" "$3-camera.png"
  camera=$(psnr "$1" "$3-camera.png")
  run "$cmd" --sigma "$2" --threads 2 "$3.png" "$3-white.png"
  white=$(psnr "$1" "$3-white.png")
}

kodak=${BM3D_BENCHMARK_SETS:-$top_srcdir/../shared/benchmark-sets}/kodak24
if [ -f "$kodak/kodim05.png" ]; then
  camera_and_white "$kodak/kodim05.png" 10 "$o/k05"
  check "kodim05, white noise of sigma 10: camera mode $camera dB, white mode at the true sigma $white (at most 0.3 below)" \
    is_above "$camera" "$(awk -v w="$white" 'BEGIN { print w - 0.3 }')"
else
  skip "strong white noise on kodim05 in camera mode" \
    "no file $kodak/kodim05.png (set BM3D_BENCHMARK_SETS to the benchmark sets' folder)"
fi

# ---- strong white noise on a photo whose flat parts clip ---------------
# Set12's 04 (../shared, when it is there) with white noise of sigma 25:
# its bright parts clip, none of its flattest blocks can be read, and
# its profile read texture as noise, 1.17 times its finest scale (28.36
# dB, where white mode at the true sigma gives 28.57).
set12=${BM3D_BENCHMARK_SETS:-$top_srcdir/../shared/benchmark-sets}/set12
if [ -f "$set12/04.png" ]; then
  camera_and_white "$set12/04.png" 25 "$o/s04"
  check "Set12 04, white noise of sigma 25: camera mode $camera dB, white mode at the true sigma $white (within 0.1)" \
    is_near "$camera" "$white" 0.1
else
  skip "strong white noise on Set12's 04 in camera mode" \
    "no file $set12/04.png (set BM3D_BENCHMARK_SETS to the benchmark sets' folder)"
fi

# ---- two real photographs ----------------------------------------------
# The shared PolyU pairs (noisy JPEG, mean of many shots) are in CI's
# ../shared, not in a release tarball.  On these two, white CBM3D at
# the --sigma auto before camera noise (sigma 0.48 and 0.72, PNG
# output) gave 37.88 and 34.44 dB against inputs of 37.87 and 34.39:
# nothing.
# (BM3D_REAL_PHOTOS names the folder elsewhere, to run this by hand.)
polyu=${BM3D_REAL_PHOTOS:-${BM3D_BENCHMARK_SETS:-$top_srcdir/../shared/benchmark-sets}/real-noise-polyu}
if [ -d "$polyu" ]; then
  for photo in Canon80D_8_8_6400_comproom_12 NikonD800_5_125_6400_stair_1; do
    run "$cmd" --noise camera --threads 2 "$polyu/${photo}_real.JPG" \
      "$o/$photo.png"
    before=$(psnr "$polyu/${photo}_mean.JPG" "$polyu/${photo}_real.JPG")
    after=$(psnr "$polyu/${photo}_mean.JPG" "$o/$photo.png")
    check "real photo $photo: camera mode $before -> $after dB (at least 1 dB better)" \
      is_above "$after" "$(awk -v b="$before" 'BEGIN { print b + 1 }')"
    # White CBM3D at --sigma auto: the estimate now knows a photograph's
    # processed noise and gives the sigma that suits it.
    run "$cmd" --sigma auto --verbose --threads 2 \
      "$polyu/${photo}_real.JPG" "$o/$photo-auto.png"
    auto=$(psnr "$polyu/${photo}_mean.JPG" "$o/$photo-auto.png")
    check "real photo $photo: --sigma auto reads processed noise ($(sed -n 's/^bm3d-denoise: estimated //p' "$work/run.err"))" \
      grep -q "processed noise" "$work/run.err"
    check "real photo $photo: --sigma auto $before -> $auto dB (at least 1 dB better)" \
      is_above "$auto" "$(awk -v b="$before" 'BEGIN { print b + 1 }')"
  done
  # Texture as fine as its noise: toy_12's plush fur fills its flattest
  # blocks, which read a level over what a camera's processed noise
  # holds under the cap, with next to no colour noise (chroma 0.23 of
  # the luma): the excess is texture, held at the cap's share before
  # the gain (photo_noise.c, processed_sigma ()).  35.35 dB at eb2bb0f,
  # below its input's 35.51; 36.08 at 539c251, 36.64 with the floor
  # following the finest scale's sparsity (d0022f4).
  photo=Canon5D2_5_200_3200_toy_12
  run "$cmd" --noise camera --threads 2 "$polyu/${photo}_real.JPG" \
    "$o/$photo.png"
  before=$(psnr "$polyu/${photo}_mean.JPG" "$polyu/${photo}_real.JPG")
  after=$(psnr "$polyu/${photo}_mean.JPG" "$o/$photo.png")
  check "real photo $photo, fur as fine as its noise: camera mode $before -> $after dB (above its input)" \
    is_above "$after" "$before"
  # White noise at a tiny sigma on a JPEG with black areas: the Wiener
  # phase once weighed its near-black groups so high that the sums
  # overflowed into NaN pixels (834 of this photo's); a PFM with one is
  # refused when read back.
  photo=Canon5D2_5_160_3200_chair_5
  run "$cmd" --sigma 0.1 --threads 2 "$polyu/${photo}_real.JPG" "$o/tiny.pfm"
  check "real photo $photo: sigma 0.1 gives finite samples (read back: $(psnr "$polyu/${photo}_mean.JPG" "$o/tiny.pfm" 2>&1))" \
    "$cmd" --compare "$o/tiny.pfm" "$polyu/${photo}_mean.JPG"
else
  skip "camera mode on two shared real photographs" \
    "no folder $polyu (set BM3D_BENCHMARK_SETS to the benchmark sets' folder, or BM3D_REAL_PHOTOS to this set's)"
fi

finish
