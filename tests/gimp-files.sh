#!/bin/bash
# plug-in-bm3d-denoise-files and plug-in-bm3d-denoise-camera-files inside
# GIMP: a list of three images (RGB, gray, RGBA) denoised in one call
# gives exactly the pixels of plug-in-bm3d-denoise (-camera) called on
# each image; a missing and an unreadable file in the list are told on
# one line each while the others are still done; an input is never
# overwritten (output folder = input folder, two inputs of one name);
# a missing output folder is refused.  A PNG the project's reader keeps
# whole is read, denoised and written without GIMP's loader (its times
# line says "by imageio"), with the same pixels, in the colour space of
# its profile too, sigma estimated or given; one with a chunk the reader
# does not keep, or EXIF that turns the photo, goes through GIMP's
# loader, as before ("by GIMP").  An output that cannot be written is
# told and leaves nothing.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-.}/tests/gimp-lib.sh"

require_tools
setup_gimp
make_inputs

make_file_list
mkdir -p "$work/in2" "$work/single" "$work/single-camera" "$work/out" \
         "$work/out-camera" "$work/out-missing" "$work/out-same-name"
cp "$work/noisy-gray.png" "$work/in2/a.png"
# An output that cannot be written: a folder holds its name.
mkdir -p "$work/out4/a.png"
command -v python3 > /dev/null 2>&1 || skip_all "python3 not found"
make_reader_inputs
# The batch's times lines say who read each file.
export BM3D_PLUGIN_TIMES=1

# The single-image procedures on each file, as the batch did before.
single ()
{
  echo "(let* ((image (t-load \"$work/${4:-in}/$1\")) (drawable (t-drawable image)))
          $2
          (gimp-file-save RUN-NONINTERACTIVE image drawable
                          \"$work/$3/$1\" \"$work/$3/$1\")
          (gimp-image-delete image))"
}

abc=$(scheme_list "$work/in/a.png" "$work/in/b.png" "$work/in/c.png")
log=$work/gimp.log
run_gimp "$log" \
  "(plug-in-bm3d-denoise-files RUN-NONINTERACTIVE 3 $abc \"$work/out\" 25.0 0 0)" \
  "(plug-in-bm3d-denoise-camera-files RUN-NONINTERACTIVE 3 $abc
     \"$work/out-camera\" 1.0 1.0 0 0)" \
  "$(single a.png "(plug-in-bm3d-denoise RUN-NONINTERACTIVE image drawable 25.0 0 0)" single)" \
  "$(single b.png "(plug-in-bm3d-denoise RUN-NONINTERACTIVE image drawable 25.0 0 0)" single)" \
  "$(single c.png "(plug-in-bm3d-denoise RUN-NONINTERACTIVE image drawable 25.0 0 0)" single)" \
  "$(single a.png "(plug-in-bm3d-denoise-camera RUN-NONINTERACTIVE image drawable 1.0 1.0 0 0)" single-camera)" \
  "(plug-in-bm3d-denoise-files RUN-NONINTERACTIVE 4
     $(scheme_list "$work/in/a.png" "$work/in/missing.png" "$work/in/broken.png" "$work/in/c.png")
     \"$work/out-missing\" 25.0 0 0)" \
  "(plug-in-bm3d-denoise-files RUN-NONINTERACTIVE 3 $abc \"$work/in\" 25.0 0 0)" \
  "(plug-in-bm3d-denoise-files RUN-NONINTERACTIVE 2
     $(scheme_list "$work/in/a.png" "$work/in2/a.png") \"$work/out-same-name\" 25.0 0 0)" \
  "(plug-in-bm3d-denoise-files RUN-NONINTERACTIVE 3 $abc \"$work/no-such-folder\" 25.0 0 0)" \
  "(plug-in-bm3d-denoise-files RUN-NONINTERACTIVE $((3 + $(echo $jpegs | wc -w)))
     $(scheme_list "$work/in3/d.png" "$work/in3/e.png" "$work/in3/f.png" $jpegs) \"$work/out3\" 0.0 0 0)" \
  "$(single d.png "(plug-in-bm3d-denoise RUN-NONINTERACTIVE image drawable 0.0 0 0)" single3 in3)" \
  "$(single e.png "(plug-in-bm3d-denoise RUN-NONINTERACTIVE image drawable 0.0 0 0)" single3 in3)" \
  "$(single f.png "(plug-in-bm3d-denoise RUN-NONINTERACTIVE image drawable 0.0 0 0)" single3 in3)" \
  "(plug-in-bm3d-denoise-files RUN-NONINTERACTIVE 1
     $(scheme_list "$work/in/a.png") \"$work/out4\" 25.0 0 0)"
check "GIMP ran without a plug-in crash" no_crash "$log"

check "files: the call succeeded" is_ok "$log" 1
check "camera files: the call succeeded" is_ok "$log" 2
for k in 3 4 5 6; do
  check "single image $((k - 2)): the call succeeded" is_ok "$log" $k
done

for name in a b c; do
  check "out/$name.png: the pixels of plug-in-bm3d-denoise" \
    same_pixels "$work/single/$name.png" "$work/out/$name.png"
done
check "out/c.png: alpha bit-exact" \
  "$pixels" same-alpha "$work/in/c.png" "$work/out/c.png"
check "out-camera/a.png: the pixels of plug-in-bm3d-denoise-camera" \
  same_pixels "$work/single-camera/a.png" "$work/out-camera/a.png"
check "out-camera: every file written" \
  test "$(ls "$work/out-camera" | tr '\n' ' ')" = "a.png b.png c.png "
check "the denoised image differs from its input" \
  files_differ "$work/in/a.png" "$work/out/a.png"

# A missing and a broken file: one line each, the others done, the call
# failing at the end with the count.
check "missing and broken files: the call fails" \
  test "$(batch_result "$log" 7)" = error
check "... telling the missing file on one line" \
  grep -q "BM3D batch: $work/in/missing.png: cannot be loaded" "$log"
check "... and the broken one" \
  grep -q "BM3D batch: $work/in/broken.png: cannot be loaded" "$log"
check "... and how many failed" grep -q "BM3D batch: 2 of 4 files failed" "$log"
check "... while the other files were done, with the same pixels" \
  same_pixels "$work/out/a.png" "$work/out-missing/a.png"
check "... all of them" \
  same_pixels "$work/out/c.png" "$work/out-missing/c.png"
check "... and nothing else written" \
  test "$(ls "$work/out-missing" | tr '\n' ' ')" = "a.png c.png "

check "output folder = input folder: the call fails" \
  test "$(batch_result "$log" 8)" = error
check "... refusing each file" \
  test "$(grep -c "refusing to overwrite the input" "$log")" -ge 3
check "two inputs of one name: the call fails" \
  test "$(batch_result "$log" 9)" = error
check "... the first written, the second refused" \
  grep -q "BM3D batch: $work/in2/a.png: another file of the list has the same name" "$log"
check "... the written one is in/a.png's" \
  same_pixels "$work/out/a.png" "$work/out-same-name/a.png"
check "a missing output folder is refused" \
  test "$(batch_result "$log" 10)" = error
check "... saying so" grep -q "the output folder $work/no-such-folder does not exist" "$log"
check "the inputs are untouched" diff -r "$work/keep" "$work/in"

check "a profile and a chunk the reader leaves: the call succeeded" \
  is_ok "$log" 11
for k in 12 13 14; do
  check "single image in3 $((k - 11)): the call succeeded" is_ok "$log" $k
done
check "in3/d.png (a wide-gamut profile) read by imageio" \
  grep -q "$work/in3/d.png: load .* by imageio$" "$log"
check "... with the pixels of plug-in-bm3d-denoise, sigma estimated" \
  same_pixels "$work/single3/d.png" "$work/out3/d.png"
check "... which are the command's: denoised in its own colour space" \
  command_pixels "$work/in3/d.png" "$work/single3/d.png"
check "in3/e.png (a Title chunk) left to GIMP's loader" \
  grep -q "$work/in3/e.png: load .* by GIMP$" "$log"
check "... with the pixels of plug-in-bm3d-denoise, sigma estimated" \
  same_pixels "$work/single3/e.png" "$work/out3/e.png"
check "in3/f.png (EXIF orientation 6) left to GIMP's loader" \
  grep -q "$work/in3/f.png: load .* by GIMP$" "$log"
check "... with the pixels of plug-in-bm3d-denoise" \
  same_pixels "$work/single3/f.png" "$work/out3/f.png"
if test -n "$jpegs"; then
  check "in3/g.jpg read and written by imageio" \
    grep -q "$work/in3/g.jpg: load .* by imageio$" "$log"
  check "in3/h.jpg (an APP3 marker) left to GIMP's loader and export" \
    grep -q "$work/in3/h.jpg: load .* by GIMP$" "$log"
  check "... the two results hold the same pixels" \
    same_pixels "$work/out3/h.jpg" "$work/out3/g.jpg"
fi
check "an output imageio cannot write: the call fails" \
  test "$(batch_result "$log" 15)" = error
check "... telling why on one line" \
  grep -q "BM3D batch: $work/in/a.png: cannot be saved as $work/out4/a.png: " "$log"
check "... and leaving nothing beside it" \
  test "$(ls -A "$work/out4")" = a.png
check "in/a.png, in/b.png (gray), in/c.png (RGBA) read by imageio" \
  test "$(grep -c "$work/in/[abc].png: load .* by imageio$" "$log")" -ge 6

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$log"
fi
finish
