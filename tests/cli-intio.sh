#!/bin/sh
# bm3d-denoise: an 8- or 16-bit file denoised from and into its integers
# (the default) gives byte for byte the file of the float path of before
# (BM3D_CLI_FLOAT_IO=1), for PNG (every layout, 8 and 16 bits), JPEG,
# TIFF (strips, planar, tiles, big-endian, min-is-white, alpha, float),
# Netpbm (maxval 255, 65535 and another), written at their own depth or
# another, one file or a folder, in the three modes.  CPU backend, or
# the one INTIO_BACKEND names (cuda: the GPU's bm3d_denoise_pixels gets
# the same integers either way; BM3D is left out there, as the GPU's
# aggregation adds in no fixed order and two runs of one path differ in
# the last 16-bit place: tests/gpu-tests.sh bounds it, engine-pixels).
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-$(dirname "$0")/..}/tests/cli-lib.sh"

prepare_images

cmd=$BM3D_DENOISE
o=$work/out
noise="--sigma 20"
backend=${INTIO_BACKEND:-cpu}
all_modes="nlm isoline bm3d"
[ "$backend" = cpu ] || all_modes="nlm isoline"
modes=$all_modes

have ()
{
  "$cmd" --version | grep -q "^$1 support: yes"
}

# same_both DESCRIPTION INPUT OUTPUT-EXTENSION [OPTION...]: the integer
# and the float path write the same bytes and say the same, in every
# mode of $modes, with the options of $noise.
same_both ()
{
  desc=$1 input=$2 ext=$3
  shift 3
  differ=
  for mode in $modes; do
    rm -f "$o/int.$ext" "$o/float.$ext"
    "$cmd" --backend $backend --mode $mode $noise "$@" "$input" \
      "$o/int.$ext" 2>&1 | sed "s|$o/int|OUT|" >"$o/int.err"
    BM3D_CLI_FLOAT_IO=1 "$cmd" --backend $backend --mode $mode $noise "$@" \
      "$input" "$o/float.$ext" 2>&1 | sed "s|$o/float|OUT|" >"$o/float.err"
    if [ ! -s "$o/int.$ext" ] || ! cmp -s "$o/int.$ext" "$o/float.$ext" \
       || ! cmp -s "$o/int.err" "$o/float.err"; then
      differ="$differ $mode"
      sed 's/^/#   /' "$o/int.err"
    fi
  done
  if [ -z "$differ" ]; then
    ok "$desc: the float path's bytes ($modes)"
  else
    not_ok "$desc: the float path's bytes ($modes)"
    echo "# differ in:$differ"
  fi
}

for name in gray8 gray16 rgb8 rgb16 gray1000; do
  case $name in gray*) ext=pgm ;; *) ext=ppm ;; esac
  same_both "Netpbm $name" "$work/$name.$ext" $ext
done
same_both "Netpbm rgb8 written at 16 bits" "$work/rgb8.ppm" ppm --depth 16
same_both "Netpbm rgb16 written at 8 bits" "$work/rgb16.ppm" ppm --depth 8

if have PNG; then
  for name in gray8 ga8 rgb8 rgba8 gray16 ga16 rgb16 rgba16 palette \
              gray1bit; do
    same_both "PNG $name" "$work/$name.png" png
  done
  same_both "PNG rgba8 at --png-level 6" "$work/rgba8.png" png \
    --png-level 6
  same_both "PNG rgb16 at --png-level 6" "$work/rgb16.png" png \
    --png-level 6
  same_both "PNG rgb8 written at 16 bits" "$work/rgb8.png" png --depth 16
  same_both "PNG rgba16 written at 8 bits" "$work/rgba16.png" png --depth 8
  same_both "PNG rgb16 to Netpbm" "$work/rgb16.png" ppm
else
  skip "PNG" "no PNG support"
fi

if have JPEG; then
  "$cmd" --convert "$work/rgb8.ppm" "$work/rgb8.jpg"
  "$cmd" --convert "$work/gray8.pgm" "$work/gray8.jpg"
  same_both "JPEG rgb8" "$work/rgb8.jpg" jpg
  same_both "JPEG gray8" "$work/gray8.jpg" jpg
  same_both "JPEG rgb8 at quality 80" "$work/rgb8.jpg" jpg --quality 80
  if have PNG; then
    same_both "PNG rgba8 to JPEG (alpha dropped)" "$work/rgba8.png" jpg
    same_both "PNG rgb16 to JPEG" "$work/rgb16.png" jpg
    same_both "JPEG rgb8 to PNG" "$work/rgb8.jpg" png
  fi
else
  skip "JPEG" "no JPEG support"
fi

if have TIFF && python3 "$top_srcdir/tests/cli-files.py" generate "$work"
then
  for name in rgb8-strips rgb8-planar gray16-tiled rgb16-be gray8-white \
              rgba16 rgb-float-be; do
    same_both "TIFF $name" "$work/$name.tif" tif
  done
  same_both "TIFF rgb8 written at 16 bits" "$work/rgb8-strips.tif" tif \
    --depth 16
  same_both "TIFF rgb16 written at 8 bits" "$work/rgb16-be.tif" tif \
    --depth 8
  same_both "TIFF rgb8, uncompressed" "$work/rgb8-strips.tif" tif \
    --png-level 0
  same_both "Netpbm rgb16 to TIFF" "$work/rgb16.ppm" tif
  if have PNG; then
    same_both "PNG with ICC and EXIF to TIFF" "$work/meta.png" tif
    same_both "TIFF rgba16 to PNG" "$work/rgba16.tif" png
  fi
else
  skip "TIFF" "no TIFF support"
fi

# A saved camera profile takes no floats of the input; estimating one
# does, and so does --sigma auto: all give the float path's file.
"$cmd" --add-noise 12 --seed 5 "$work/clean-rgb.ppm" "$o/camera.ppm"
"$cmd" --backend $backend --mode isoline --noise camera \
  --save-noise-profile "$o/rgb.profile" "$o/camera.ppm" "$o/profiled.ppm"
noise=
modes="isoline bm3d"
[ "$backend" = cpu ] || modes=isoline
same_both "camera noise, a saved profile" "$o/camera.ppm" ppm \
  --noise-profile "$o/rgb.profile"
modes="isoline"
same_both "camera noise, estimated" "$o/camera.ppm" ppm --noise camera
same_both "--sigma auto" "$work/rgb16.ppm" ppm --sigma auto
modes=$all_modes
noise="--sigma 20"

# Folders: every file of a batch, integer against float.
mkdir "$o/in"
for f in gray8.pgm rgb16.ppm gray1000.pgm; do
  cp "$work/$f" "$o/in/"
done
if have PNG; then
  cp "$work/rgba8.png" "$work/ga16.png" "$work/palette.png" "$o/in/"
fi
if have JPEG; then
  cp "$work/rgb8.jpg" "$o/in/"
fi
if have TIFF && [ -f "$work/rgb16-be.tif" ]; then
  cp "$work/rgb16-be.tif" "$work/gray8-white.tif" "$o/in/"
fi
for mode in $modes; do
  rm -rf "$o/bi" "$o/bf"
  mkdir "$o/bi" "$o/bf"
  "$cmd" --backend $backend --mode $mode --sigma 20 -o "$o/bi" "$o/in"/*
  rc_int=$?
  BM3D_CLI_FLOAT_IO=1 "$cmd" --backend $backend --mode $mode --sigma 20 \
    -o "$o/bf" "$o/in"/*
  rc_float=$?
  same=1
  for f in "$o/in"/*; do
    b=$(basename "$f")
    [ -s "$o/bi/$b" ] && cmp -s "$o/bi/$b" "$o/bf/$b" || { same=0; echo "# $b differs"; }
  done
  check "folder of $(ls "$o/in" | wc -l) files, $mode: the float path's bytes" \
    test $same -eq 1 -a $rc_int -eq 0 -a $rc_float -eq 0
done
rm -rf "$o/bi" "$o/bf"
mkdir "$o/bi" "$o/bf"
"$cmd" --backend $backend --mode isoline --sigma 20 --depth 16 -o "$o/bi" \
  "$o/in"/*
BM3D_CLI_FLOAT_IO=1 "$cmd" --backend $backend --mode isoline --sigma 20 \
  --depth 16 -o "$o/bf" "$o/in"/*
same=1
for f in "$o/in"/*; do
  b=$(basename "$f")
  [ -s "$o/bi/$b" ] && cmp -s "$o/bi/$b" "$o/bf/$b" || { same=0; echo "# $b differs"; }
done
check "folder written at 16 bits: the float path's bytes" test $same -eq 1

finish
