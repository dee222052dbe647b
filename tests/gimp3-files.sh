#!/bin/bash
# GIMP 3: plug-in-bm3d-denoise-files on a list of three images (RGB,
# gray, RGBA) gives exactly the pixels of plug-in-bm3d-denoise called on
# each image; with a missing and a broken file in the list, each is told
# on one line, the other files are still done, and GIMP exits 70.  A PNG
# the project's reader keeps whole is read without GIMP's loader ("by
# imageio" in its times line), with the same pixels, in its profile's
# colour space too, sigma estimated or given; one with a chunk the
# reader does not keep, or EXIF that turns the photo, goes through
# GIMP's loader ("by GIMP").  An output that cannot be written is told
# and leaves nothing.  (The
# batch script's refusals are tests/gimp3-batch.sh's.)
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-.}/tests/gimp3-lib.sh"

require_tools
setup_gimp
make_inputs

make_file_list
mkdir -p "$work/single" "$work/out" "$work/out-missing"
command -v python3 > /dev/null 2>&1 || skip_all "python3 not found"
make_reader_inputs
# The batch's times lines say who read each file.
export BM3D_PLUGIN_TIMES=1

# single NAME [SIGMA [IN OUT]]
single ()
{
  echo "(let* ((image (t-load \"$work/${3:-in}/$1\")))
          (t-run RUN-NONINTERACTIVE image (t-drawable image) ${2:-25.0} \"bm3d\" \"auto\")
          (gimp-file-save RUN-NONINTERACTIVE image \"$work/${4:-single}/$1\" -1)
          (gimp-image-delete image))"
}

GIMPDIR=$work/gimpdir
export GIMPDIR
run_gimp "$work/gimp-1.log" \
  "(plug-in-bm3d-denoise-files #:run-mode RUN-NONINTERACTIVE
     #:files $(scheme_list "$work/in/a.png" "$work/in/b.png" "$work/in/c.png")
     #:out-dir \"$work/out\" #:sigma 25.0 #:mode \"bm3d\" #:backend \"auto\")" \
  "$(single a.png)" "$(single b.png)" "$(single c.png)"
run_gimp "$work/gimp-2.log" \
  "(plug-in-bm3d-denoise-files #:run-mode RUN-NONINTERACTIVE
     #:files $(scheme_list "$work/in/a.png" "$work/in/missing.png" \
                     "$work/in/broken.png" "$work/in/c.png")
     #:out-dir \"$work/out-missing\" #:sigma 25.0 #:mode \"bm3d\"
     #:backend \"auto\")"
run_gimp "$work/gimp-3.log" \
  "(plug-in-bm3d-denoise-files #:run-mode RUN-NONINTERACTIVE
     #:files $(scheme_list "$work/in3/d.png" "$work/in3/e.png" "$work/in3/f.png" $jpegs)
     #:out-dir \"$work/out3\" #:sigma 0.0 #:mode \"bm3d\" #:backend \"auto\")" \
  "$(single d.png 0.0 in3 single3)" "$(single e.png 0.0 in3 single3)" \
  "$(single f.png 0.0 in3 single3)"

# An output that cannot be written: a folder holds its name.
mkdir -p "$work/out4/a.png"
run_gimp "$work/gimp-4.log" \
  "(plug-in-bm3d-denoise-files #:run-mode RUN-NONINTERACTIVE
     #:files $(scheme_list "$work/in/a.png") #:out-dir \"$work/out4\"
     #:sigma 25.0 #:mode \"bm3d\" #:backend \"auto\")"

for j in 1 2 3 4; do
  check "GIMP run $j: no plug-in crash" no_crash "$work/gimp-$j.log"
done
check "the list and the single images succeeded" \
  exited_with "$work/gimp-1.log" 0

for name in a b c; do
  check "out/$name.png: the pixels of plug-in-bm3d-denoise" \
    same_pixels "$work/single/$name.png" "$work/out/$name.png"
done
check "out/c.png: alpha bit-exact" \
  "$pixels" same-alpha "$work/in/c.png" "$work/out/c.png"
check "the denoised image differs from its input" \
  files_differ "$work/in/a.png" "$work/out/a.png"

check "missing and broken files: GIMP exits 70" \
  exited_with "$work/gimp-2.log" 70
check "... telling the missing file on one line" \
  grep -q "BM3D batch: $work/in/missing.png: cannot be loaded" \
  "$work/gimp-2.log"
check "... and the broken one" \
  grep -q "BM3D batch: $work/in/broken.png: cannot be loaded" \
  "$work/gimp-2.log"
check "... and how many failed" \
  grep -q "BM3D batch: 2 of 4 files failed" "$work/gimp-2.log"
check "... while the other files were done, with the same pixels" \
  same_pixels "$work/out/a.png" "$work/out-missing/a.png"
check "... all of them" \
  same_pixels "$work/out/c.png" "$work/out-missing/c.png"
check "the inputs are untouched" diff -r "$work/keep" "$work/in"

check "an output imageio cannot write: GIMP exits 70" \
  exited_with "$work/gimp-4.log" 70
check "... telling why on one line" \
  grep -q "BM3D batch: $work/in/a.png: cannot be saved as $work/out4/a.png: " \
  "$work/gimp-4.log"
check "... and leaving nothing beside it" \
  test "$(ls -A "$work/out4")" = a.png
check "in/a.png, in/b.png (gray), in/c.png (RGBA) read by imageio" \
  test "$(grep -c "$work/in/[abc].png: load .* by imageio$" \
          "$work/gimp-1.log")" -eq 3
check "a profile and a chunk the reader leaves: the calls succeeded" \
  exited_with "$work/gimp-3.log" 0
check "in3/d.png (a wide-gamut profile) read by imageio" \
  grep -q "$work/in3/d.png: load .* by imageio$" "$work/gimp-3.log"
check "... with the pixels of plug-in-bm3d-denoise, sigma estimated" \
  same_pixels "$work/single3/d.png" "$work/out3/d.png"
check "... which are the command's: denoised in its own colour space" \
  command_pixels "$work/in3/d.png" "$work/single3/d.png"
check "in3/e.png (a Title chunk) left to GIMP's loader" \
  grep -q "$work/in3/e.png: load .* by GIMP$" "$work/gimp-3.log"
check "... with the pixels of plug-in-bm3d-denoise, sigma estimated" \
  same_pixels "$work/single3/e.png" "$work/out3/e.png"
check "in3/f.png (EXIF orientation 6) left to GIMP's loader" \
  grep -q "$work/in3/f.png: load .* by GIMP$" "$work/gimp-3.log"
check "... with the pixels of plug-in-bm3d-denoise" \
  same_pixels "$work/single3/f.png" "$work/out3/f.png"
if test -n "$jpegs"; then
  check "in3/g.jpg read and written by imageio" \
    grep -q "$work/in3/g.jpg: load .* by imageio$" "$work/gimp-3.log"
  check "in3/h.jpg (an APP3 marker) left to GIMP's loader and export" \
    grep -q "$work/in3/h.jpg: load .* by GIMP$" "$work/gimp-3.log"
  check "... the two results hold the same pixels" \
    same_pixels "$work/out3/h.jpg" "$work/out3/g.jpg"
fi

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$work"/gimp-*.log
fi
finish
