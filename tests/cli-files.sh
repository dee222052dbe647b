#!/bin/sh
# bm3d-denoise: JPEG and TIFF files, and the metadata that identifies a
# photo.  Pixels of uncompressed TIFFs, JPEG markers and the ICC and EXIF
# blocks of every format are checked by an independent reader
# (tests/cli-files.py); damaged files must give one line, exit 1 and no
# output, under the sanitizers too.
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
img="python3 $IMAGES"
files="python3 $top_srcdir/tests/cli-files.py"
o=$work/out

has_format ()
{
  "$cmd" --version | grep -q "^$1 support: yes"
}

if ! has_format PNG || ! has_format JPEG || ! has_format TIFF; then
  echo "1..0 # SKIP built without libpng, libjpeg or libtiff"
  exit 0
fi
$files generate "$work" || { echo "Bail out! cannot write the test files"; exit 1; }
expected_meta=$($files meta-expected)

# ---- TIFF: every layout read, checked through the independent PNG reader
for name in rgb8-strips:rgb8 rgb8-planar:rgb8 gray16-tiled:gray16 \
            rgb16-be:rgb16 gray8-white:gray8 rgba16:rgba16; do
  file=${name%%:*} want=${name#*:}
  "$cmd" --convert "$work/$file.tif" "$o/$file.png"
  check "TIFF $file -> PNG: the samples of $want" \
    $img expect "$o/$file.png" "$want"
done
"$cmd" --convert "$work/rgb-float-be.tif" "$o/float.pfm"
"$cmd" --convert "$o/float.pfm" "$o/float.ppm"
check "big-endian float TIFF -> PFM -> PPM: the 8-bit samples" \
  cmp "$work/rgb8.ppm" "$o/float.ppm"

# ---- TIFF written: uncompressed (--png-level 0) read independently
for name in gray8 gray16 rgb8 rgb16 rgba8 rgba16 ga16; do
  src=$work/$name.png
  "$cmd" --convert --png-level 0 "$src" "$o/$name.tif"
  check "PNG $name -> uncompressed TIFF: same samples and depth" \
    $files tiff-same "$o/$name.tif" "$name"
done
"$cmd" --convert --png-level 0 "$work/rgb8-le.pfm" "$o/rgb8-float.tif"
check "PFM -> TIFF stays float (32-bit IEEE samples)" \
  $files tiff-same "$o/rgb8-float.tif" rgb8-float
check "RGBA TIFF: alpha is unassociated (ExtraSamples 2)" \
  test "$($files tiff-info "$o/rgba8.tif")" = "23 17 4 8 1 2 2"
# Compressed (the default, Deflate): the same samples back.
for name in gray16 rgba8 rgb16; do
  "$cmd" --convert "$work/$name.png" "$o/$name-z.tif"
  "$cmd" --convert "$o/$name-z.tif" "$o/$name-z.png"
  check "PNG $name -> Deflate TIFF -> PNG: bit-exact samples" \
    $img same "$work/$name.png" "$o/$name-z.png"
done
"$cmd" --convert "$work/rgb8-le.pfm" "$o/f.tif"
"$cmd" --convert "$o/f.tif" "$o/f.pfm"
check "PFM -> Deflate float TIFF -> PFM: within one float ulp" \
  $img close-pfm "$work/rgb8-le.pfm" "$o/f.pfm"
"$cmd" --convert --depth 16 "$work/rgb8.png" "$o/d16.tif"
check "--depth 16 gives a 16-bit TIFF" \
  test "$($files tiff-info "$o/d16.tif")" = "23 17 3 16 1 2 -"

# ---- JPEG
"$cmd" --convert --quality 100 "$work/clean-rgb.ppm" "$o/q100.jpg"
check "JPEG quality 100: PSNR above 45 dB" \
  is_above "$(psnr "$work/clean-rgb.ppm" "$o/q100.jpg")" 45
check "JPEG quality 95 (default): 4:4:4 chroma" \
  sh -c "'$cmd' --convert '$work/rgb8.png' '$o/q95.jpg' &&
         test \"\$($files jpeg-info '$o/q95.jpg')\" = '23 17 3 1x1'"
check "JPEG quality 80: 4:2:0 chroma" \
  sh -c "'$cmd' --convert --quality 80 '$work/rgb8.png' '$o/q80.jpg' &&
         test \"\$($files jpeg-info '$o/q80.jpg')\" = '23 17 3 2x2'"
"$cmd" --convert "$work/gray8.pgm" "$o/gray.jpg"
check "gray stays gray in JPEG (one component)" \
  test "$($files jpeg-info "$o/gray.jpg")" = "23 17 1 1x1"
"$cmd" --convert "$o/gray.jpg" "$o/gray-back.pgm"
check "gray JPEG read back: 8-bit gray, close to the original" \
  sh -c "test \"\$($img info '$o/gray-back.pgm')\" = '23 17 1 8' &&
         test \"\$(\"$cmd\" --compare '$work/gray8.pgm' '$o/gray-back.pgm' |
                  cut -d. -f1)\" -ge 30"
run "$cmd" --convert "$work/rgba8.png" "$o/rgba.jpg"
if [ "$rc" -eq 0 ] && grep -q 'alpha dropped' "$work/run.err"; then
  ok "RGBA -> JPEG: alpha dropped with a notice"
else
  not_ok "RGBA -> JPEG: alpha dropped with a notice"
fi
expect_error 2 'invalid JPEG quality' "--quality 0: exit 2" \
  "$cmd" --convert --quality 0 "$work/rgb8.png" "$o/x.jpg"
expect_error 2 'invalid PNG level' "--png-level 10: exit 2" \
  "$cmd" --convert --png-level 10 "$work/rgb8.png" "$o/x.png"

# The default level codes each slice of rows (about 2 MiB) by Huffman
# alone or by runs, as its data asks: a photo's noise above, a flat
# drawing below, several slices each, all the samples back, a valid
# zlib stream (its Adler-32 checked).
python3 -c '
import random, sys
w, h = 1024, 1600
random.seed(38)
rows = []
for y in range(h):
    if y < h // 2:
        rows.append(bytes(random.randrange(256) for _ in range(3 * w)))
    else:
        rows.append(bytes(((x // 64) * 40 + y // 100 * 7) % 256
                          for x in range(w) for c in range(3)))
sys.stdout.buffer.write(b"P6 %d %d 255\n" % (w, h) + b"".join(rows))
' > "$work/mixed.ppm"
"$cmd" --convert "$work/mixed.ppm" "$o/mixed.png"
"$cmd" --convert "$o/mixed.png" "$o/mixed-back.ppm"
check "PNG level 1, noisy and flat slices: the same samples back" \
  $img same "$work/mixed.ppm" "$o/mixed-back.ppm"
check "PNG level 1, noisy and flat slices: one valid zlib stream" \
  python3 -c '
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
i, idat = 8, b""
while i < len(d):
    n, = struct.unpack(">I", d[i:i + 4])
    if d[i + 4:i + 8] == b"IDAT":
        idat += d[i + 8:i + 8 + n]
    i += 12 + n
assert len(zlib.decompress(idat)) == 1600 * (1 + 3 * 1024)
' "$o/mixed.png"

# ---- metadata: the ICC profile (70 000 bytes: several JPEG markers) and
# the EXIF block survive, byte for byte
check "the test PNG holds the ICC profile and the EXIF block" \
  test "$($files meta "$work/meta.png")" = "$expected_meta"
"$cmd" --convert "$work/meta.png" "$o/meta.png"
check "PNG -> PNG keeps ICC and EXIF bytes" \
  test "$($files meta "$o/meta.png")" = "$expected_meta"
"$cmd" --convert "$work/meta.png" "$o/meta.jpg"
"$cmd" --convert "$o/meta.jpg" "$o/meta2.jpg"
check "JPEG -> JPEG keeps ICC and EXIF bytes" \
  test "$($files meta "$o/meta2.jpg")" = "$expected_meta"
"$cmd" --convert "$work/meta.png" "$o/meta.tif"
check "PNG -> TIFF: ICC tag, Make in IFD0, the EXIF directory" \
  test "$($files meta "$o/meta.tif")" = "$expected_meta"
"$cmd" --convert "$o/meta.tif" "$o/meta2.tif"
check "TIFF -> TIFF keeps ICC and EXIF bytes" \
  test "$($files meta "$o/meta2.tif")" = "$expected_meta"
"$cmd" --convert "$o/meta2.tif" "$o/meta3.png"
"$cmd" --convert "$o/meta2.jpg" "$o/meta-j.tif"
"$cmd" --convert "$o/meta-j.tif" "$o/meta-j.jpg"
check "PNG -> TIFF -> TIFF -> PNG and JPEG -> TIFF -> JPEG: the same EXIF block" \
  test "$($files meta "$o/meta3.png")" = "$expected_meta" -a \
       "$($files meta "$o/meta-j.jpg")" = "$expected_meta"
"$cmd" --convert "$work/meta-be.png" "$o/meta-be.tif"
"$cmd" --convert "$o/meta-be.tif" "$o/meta-be2.tif"
"$cmd" --convert "$o/meta-be2.tif" "$o/meta-be.jpg"
check "big-endian EXIF: a big-endian TIFF, the same bytes back" \
  test "$(head -c 2 "$o/meta-be.tif")" = MM -a \
       "$($files meta "$o/meta-be.jpg")" = "$($files meta-expected big-endian)"
"$cmd" --sigma 10 "$o/meta.jpg" "$o/meta-denoised.jpg"
check "denoising keeps ICC and EXIF bytes" \
  test "$($files meta "$o/meta-denoised.jpg")" = "$expected_meta"

# ---- damaged files: one line, exit 1, nothing written
"$cmd" --convert "$work/clean-rgb.ppm" "$o/good.jpg"
size=$(wc -c <"$o/good.jpg")
head -c $((size / 2)) "$o/good.jpg" >"$work/half.jpg"
head -c 200 "$o/good.jpg" >"$work/header-only.jpg"
printf '\377\330\377\340' >"$work/soi-only.jpg"
printf 'not a jpeg' >"$work/text.jpg"
for f in half header-only soi-only text; do
  rm -f "$o/x.png"
  run "$cmd" --convert "$work/$f.jpg" "$o/x.png"
  if [ "$rc" -eq 1 ] && one_line_error "$f.jpg" && [ ! -e "$o/x.png" ]; then
    ok "damaged JPEG ($f): one line, exit 1, no output"
  else
    not_ok "damaged JPEG ($f): one line, exit 1, no output"
    echo "# exit status $rc"; sed 's/^/#   /' "$work/run.err"
  fi
done
for f in truncated pastend notatiff; do
  rm -f "$o/x.png"
  run "$cmd" --sigma 5 "$work/$f.tif" "$o/x.png"
  if [ "$rc" -eq 1 ] && one_line_error "$f.tif" && [ ! -e "$o/x.png" ]; then
    ok "damaged TIFF ($f): one line, exit 1, no output"
  else
    not_ok "damaged TIFF ($f): one line, exit 1, no output"
    echo "# exit status $rc"; sed 's/^/#   /' "$work/run.err"
  fi
done

# Mutated files: each is either read or refused with one line; never a
# crash, never output left after a refusal.
"$cmd" --convert "$work/clean-rgb.ppm" "$o/mut-src.tif"
for src in good.jpg mut-src.tif; do
  bad=0
  for seed in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    ext=${src##*.}
    $files mutate "$o/$src" "$work/m.$ext" "$seed"
    rm -f "$o/m.png"
    run "$cmd" --convert "$work/m.$ext" "$o/m.png"
    if [ "$rc" -eq 0 ] && [ -s "$o/m.png" ]; then
      :
    elif [ "$rc" -eq 1 ] && one_line_error "m.$ext" && [ ! -e "$o/m.png" ]; then
      :
    else
      bad=$((bad + 1))
      echo "# seed $seed: exit status $rc"; sed 's/^/#   /' "$work/run.err"
    fi
  done
  check "20 mutated copies of $src: read, or one line and exit 1" test "$bad" -eq 0
done

finish
