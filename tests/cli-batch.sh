#!/bin/sh
# bm3d-denoise with many files: the same results as one file at a time,
# a bad file reported and skipped, inputs never overwritten, outputs
# never half-written (also when interrupted), clear refusals.
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

has_format ()
{
  "$cmd" --version | grep -q "^$1 support: yes"
}

if ! has_format PNG || ! has_format JPEG || ! has_format TIFF; then
  echo "1..0 # SKIP built without libpng, libjpeg or libtiff"
  exit 0
fi
$files generate "$work" || { echo "Bail out! cannot write the test files"; exit 1; }

# No file of the batch's own left behind (".NAME.XXXXXX").
no_temporary_files ()
{
  [ -z "$(find "$@" -name '.*' -type f)" ]
}

in=$work/in
mkdir "$in"
"$cmd" --add-noise 20 --seed 1 "$work/clean-rgb.ppm" "$in/a.png"
"$cmd" --add-noise 20 --seed 2 "$work/clean-gray.pgm" "$in/b.pgm"
"$cmd" --add-noise 20 --seed 3 "$work/clean-rgb.ppm" "$in/c.jpg"
"$cmd" --add-noise 10 --seed 4 --depth 16 "$work/clean-rgb.ppm" "$in/d.tif"
cp "$work/meta.png" "$in/e.png"
printf 'this is not a PNG file\n' >"$in/broken.png"
cp -r "$in" "$work/in-copy"

# ---- the batch gives what single runs give
mkdir "$work/single" "$work/batch"
for f in a.png b.pgm c.jpg d.tif e.png; do
  "$cmd" --sigma 20 "$in/$f" "$work/single/$f"
done
run "$cmd" --sigma 20 -o "$work/batch" "$in/a.png" "$in/b.pgm" "$in/c.jpg" \
  "$in/d.tif" "$in/e.png"
check "good files: exit 0, nothing on stderr (not a terminal)" \
  test "$rc" -eq 0 -a ! -s "$work/run.err"
for f in a.png b.pgm c.jpg d.tif e.png; do
  check "batch $f: the same bytes as a single run" \
    cmp "$work/single/$f" "$work/batch/$f"
done
check "16-bit TIFF stays 16-bit" \
  test "$($files tiff-info "$work/batch/d.tif" | cut -d' ' -f4)" = 16
check "metadata kept in a batch" \
  test "$($files meta "$work/batch/e.png")" = "$($files meta-expected)"
check "inputs untouched" diff -r "$in" "$work/in-copy"
check "no temporary file left" no_temporary_files "$work/batch"

# ---- one bad file among good ones
mkdir "$work/mixed"
run "$cmd" --sigma 20 -o "$work/mixed" "$in/a.png" "$in/broken.png" \
  "$in/b.pgm" "$in/missing.png"
if [ "$rc" -eq 1 ] && [ "$(grep -c 'broken.png' "$work/run.err")" -eq 1 ] \
   && [ "$(grep -c 'missing.png' "$work/run.err")" -eq 1 ] \
   && grep -q '2 of 4 files done, 2 failed' "$work/run.err" \
   && [ "$(wc -l <"$work/run.err")" -eq 3 ]; then
  ok "bad files: one line each, a summary, exit 1"
else
  not_ok "bad files: one line each, a summary, exit 1"
  echo "# exit status $rc"; sed 's/^/#   /' "$work/run.err"
fi
check "bad files: the good ones are done" \
  cmp "$work/single/a.png" "$work/mixed/a.png"
check "bad files: the good ones are done (2)" \
  cmp "$work/single/b.pgm" "$work/mixed/b.pgm"
check "bad files: no output for them, no temporary file" \
  sh -c "test ! -e '$work/mixed/broken.png' && test ! -e '$work/mixed/missing.png' &&
         test -z \"\$(find '$work/mixed' -name '.*' -type f)\""

# ---- inputs are never overwritten
run "$cmd" --sigma 20 -o "$in" "$in/a.png" "$in/b.pgm"
if [ "$rc" -eq 1 ] && grep -q 'overwrite the input' "$work/run.err"; then
  ok "-o the inputs' folder without --suffix: refused, exit 1"
else
  not_ok "-o the inputs' folder without --suffix: refused, exit 1"
  echo "# exit status $rc"; sed 's/^/#   /' "$work/run.err"
fi
check "... and the inputs are untouched" diff -r "$in" "$work/in-copy"
run "$cmd" --sigma 20 -o "$in/../in/" "$in/a.png"
check "another spelling of the same folder: refused too" \
  sh -c "test $rc -eq 1 && cmp '$in/a.png' '$work/in-copy/a.png'"
run "$cmd" --sigma 20 --suffix -dn "$in/a.png" "$in/b.pgm"
check "--suffix: results beside the inputs" \
  sh -c "test $rc -eq 0 && cmp '$work/single/a.png' '$in/a-dn.png' &&
         cmp '$work/single/b.pgm' '$in/b-dn.pgm'"
run "$cmd" --sigma 20 --suffix -dn "$in/a.png" "$in/a-dn.png"
if [ "$rc" -eq 1 ] && grep -q 'another input' "$work/run.err" \
   && cmp -s "$work/single/a.png" "$in/a-dn.png"; then
  ok "an output that is another input: refused, that input untouched"
else
  not_ok "an output that is another input: refused, that input untouched"
  sed 's/^/#   /' "$work/run.err"
fi
rm -f "$in/a-dn.png" "$in/b-dn.png" "$in/a-dn-dn.png"
mkdir "$work/other" "$work/dup"
cp "$in/a.png" "$work/other/a.png"
run "$cmd" --sigma 20 -o "$work/dup" "$in/a.png" "$work/other/a.png"
if [ "$rc" -eq 1 ] && grep -q 'also the output of' "$work/run.err" \
   && cmp -s "$work/single/a.png" "$work/dup/a.png"; then
  ok "two inputs with one output name: the first is done, the second refused"
else
  not_ok "two inputs with one output name: the first is done, the second refused"
  sed 's/^/#   /' "$work/run.err"
fi

# ---- the output folder
expect_error 1 'output folder' "-o a missing folder: exit 1" \
  "$cmd" -o "$work/nowhere" "$in/a.png"
expect_error 1 'not a folder' "-o a file: exit 1" \
  "$cmd" -o "$in/a.png" "$in/b.pgm"
mkdir "$work/readonly"
chmod 555 "$work/readonly"
if [ "$(id -u)" = 0 ]; then
  skip "read-only output folder: exit 1, nothing written" \
    "running as root, where permissions do not stop writes"
else
  expect_error 1 'cannot write into the output folder' \
    "read-only output folder: exit 1" \
    "$cmd" -o "$work/readonly" "$in/a.png"
  check "read-only output folder: nothing written" \
    test -z "$(ls -A "$work/readonly")"
fi
chmod 755 "$work/readonly"

# ---- usage
expect_error 2 'missing FILE' "-o without files: exit 2" "$cmd" -o "$work/batch"
expect_error 2 'only to one INPUT OUTPUT' "--psnr in a batch: exit 2" \
  "$cmd" --psnr "$in/a.png" -o "$work/batch" "$in/a.png"
expect_error 2 'only to denoising' "--convert in a batch: exit 2" \
  "$cmd" --convert -o "$work/batch" "$in/a.png"
expect_error 2 'only to many files' "--io-threads with INPUT OUTPUT: exit 2" \
  "$cmd" --io-threads 2 "$in/a.png" "$work/x.png"
expect_error 2 "may not contain '/'" "--suffix with a slash: exit 2" \
  "$cmd" --suffix a/b "$in/a.png"
for list in '' a 1,,2 -1 1.5; do
  expect_error 2 'invalid device list' "--devices '$list': exit 2" \
    "$cmd" --devices "$list" -o "$work/batch" "$in/a.png"
done
expect_error 2 'CUDA backend' "--devices with --backend cpu: exit 2" \
  "$cmd" --backend cpu --devices 0 -o "$work/batch" "$in/a.png"
expect_error 2 'CUDA backend' "--workers-per-device with --backend cpu: exit 2" \
  "$cmd" --backend cpu --workers-per-device 2 -o "$work/batch" "$in/a.png"
for n in 0 9 x; do
  expect_error 2 'invalid worker count' "--workers-per-device '$n': exit 2" \
    "$cmd" --workers-per-device "$n" -o "$work/batch" "$in/a.png"
done
expect_error 2 'only to many files' "--workers-per-device with INPUT OUTPUT: exit 2" \
  "$cmd" --workers-per-device 1 "$in/a.png" "$work/x.png"
if "$cmd" --version | grep -q '^CUDA: not available'; then
  expect_error 1 'no usable CUDA device' "--backend cuda batch without a GPU: exit 1" \
    "$cmd" --backend cuda -o "$work/batch" "$in/a.png"
else
  skip "--backend cuda batch without a GPU: exit 1" "a GPU is available"
fi

# ---- many files, several I/O threads, --verbose
mkdir "$work/many" "$work/many-out"
for i in 01 02 03 04 05 06 07 08; do
  cp "$in/a.png" "$work/many/p$i.png"
done
run "$cmd" --sigma 20 --io-threads 3 --verbose -o "$work/many-out" \
  "$work/many"/p*.png
check "8 files, 3 readers and 3 writers: all done" \
  sh -c "test $rc -eq 0 && for f in '$work/many-out'/p*.png; do
           cmp '$work/single/a.png' \"\$f\" || exit 1; done &&
         test \$(ls '$work/many-out' | wc -l) -eq 8"
check "--verbose: a line per file and the time per photo of each stage" \
  sh -c "test \$(grep -c 'read .* s, engine .* s, write .* s' '$work/run.err') -eq 8 &&
         grep -q 'per photo: read' '$work/run.err' &&
         grep -q '8 files done' '$work/run.err'"

# ---- camera mode: a file whose noise could not be measured says so in
# one line, as a single file's run does; a noisy photograph's file says
# nothing; the results are the single runs'.
mkdir "$work/cam" "$work/cam-out" "$work/cam-single"
cp "$work/flat-gray.pgm" "$work/cam/flat.pgm"
cp "$top_srcdir/tests/data/dark-coffee-noisy.png" "$work/cam/dark.png"
for f in flat.pgm dark.png; do
  "$cmd" --noise camera --threads 2 "$work/cam/$f" "$work/cam-single/$f" \
    2>/dev/null
done
run "$cmd" --noise camera --threads 2 -o "$work/cam-out" \
  "$work/cam/flat.pgm" "$work/cam/dark.png"
check "camera mode in a folder: one line for the file whose noise was not measured, none for the other" \
  sh -c "test $rc -eq 0 && test \$(wc -l <'$work/run.err') -eq 1 &&
         grep -q '^bm3d-denoise: .*flat.pgm: no camera noise could be measured.*white noise of sigma' '$work/run.err'"
check "camera mode in a folder: the single runs' results" \
  sh -c "cmp '$work/cam-single/flat.pgm' '$work/cam-out/flat.pgm' &&
         cmp '$work/cam-single/dark.png' '$work/cam-out/dark.png'"
# Each reader measures its file's noise (cli/batch.c, measure_noise ()),
# so that the engine workers only filter: --verbose says how long.
rm -rf "$work/cam-out"
mkdir "$work/cam-out"
run "$cmd" --noise camera --threads 2 --verbose -o "$work/cam-out" \
  "$work/cam/flat.pgm" "$work/cam/dark.png"
check "camera mode in a folder: each file's noise measured before its engine (--verbose)" \
  sh -c "test $rc -eq 0 &&
         test \$(grep -c 'camera noise.*: read .* s, noise measured .* s, engine' '$work/run.err') -eq 2 &&
         grep -q 'per photo: read .* s, noise measured .* s, engine' '$work/run.err' &&
         cmp '$work/cam-single/dark.png' '$work/cam-out/dark.png'"

# ---- interrupted: no partial file, temporary files removed, dies of
# the signal.  Background jobs of a script ignore SIGINT unless job
# control is on, hence set -m.
mkdir "$work/big" 
"$cmd" --add-noise 20 "$work/flat-gray.pgm" "$work/big/g00.pgm"
for i in 01 02 03 04 05 06 07 08 09 10 11; do
  cp "$work/big/g00.pgm" "$work/big/g$i.pgm"
done
"$cmd" --threads 1 --sigma 20 "$work/big/g00.pgm" "$work/big-ref.pgm"
for sig in TERM INT; do
  out=$work/big-out-$sig
  mkdir "$out"
  set -m 2>/dev/null
  "$cmd" --threads 1 --sigma 20 -o "$out" "$work/big"/g*.pgm \
    2>"$work/int.err" &
  pid=$!
  set +m
  # Wait for the first result, then interrupt the rest.
  n=0
  while [ -z "$(ls "$out")" ] && [ $n -lt 600 ]; do
    sleep 0.05; n=$((n + 1))
  done
  kill -s "$sig" "$pid"
  wait "$pid" 2>/dev/null
  status=$?
  partial=0
  for f in "$out"/*.pgm; do
    [ -e "$f" ] || continue
    cmp -s "$work/big-ref.pgm" "$f" || partial=$((partial + 1))
  done
  if [ "$status" -gt 128 ] && [ "$partial" -eq 0 ] \
     && no_temporary_files "$out" && [ "$(ls "$out" | wc -l)" -lt 12 ] \
     && grep -q 'interrupted' "$work/int.err"; then
    ok "SIG$sig: stops, complete files only, no temporary file (status $status)"
  else
    not_ok "SIG$sig: stops, complete files only, no temporary file"
    echo "# status $status, $partial partial, $(ls -A "$out" | wc -l) files"
    sed 's/^/#   /' "$work/int.err"
  fi
done

finish
