#!/bin/sh
# bm3d-denoise: usage errors (exit 2), runtime errors (exit 1) and their
# one-line messages; broken, truncated and absurd input files.  Needs
# nothing but the command and a POSIX shell.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-$(dirname "$0")/..}/tests/cli-lib.sh"

cmd=$BM3D_DENOISE

# A valid 16x16 mid-gray image, and broken files written byte by byte.
{ printf 'P5\n16 16\n255\n'; head -c 256 /dev/zero | tr '\000' '\200'; } \
  >"$work/ok.pgm"
{ printf 'P5\n32 32\n255\n'; head -c 1024 /dev/zero | tr '\000' '\200'; } \
  >"$work/big.pgm"
printf 'this is not a PNG file at all\n' >"$work/corrupt.png"
{ printf '\211PNG\r\n\032\n'; head -c 200 /dev/zero; } >"$work/zeros.png"
{ printf 'P6\n4 4\n255\n'; head -c 10 /dev/zero; } >"$work/truncated.ppm"
{ printf 'P5\n4 4\n65535\n'; head -c 31 /dev/zero; } >"$work/truncated16.pgm"
{ printf 'PF\n4 4\n-1.0\n'; head -c 10 /dev/zero; } >"$work/truncated.pfm"
printf 'P5\n0 0\n255\n' >"$work/zero.pgm"
printf 'P5\n0 5\n255\n' >"$work/zerowidth.pgm"
printf 'P5\n100000 100000\n255\n' >"$work/huge.pgm"
printf 'P5\n99999999999999999999 1\n255\n' >"$work/overflow.pgm"
printf 'PF\n65536 65536\n-1.0\n' >"$work/huge.pfm"
printf 'P5\n1 1\n0\n\000' >"$work/maxval0.pgm"
printf 'P5\n1 1\n70000\n\000\000' >"$work/maxval70000.pgm"
printf 'P5\n2 1\n100\n\001\310' >"$work/abovemax.pgm"
printf 'P2\n1 1\n255\n0\n' >"$work/ascii.pgm"
printf 'P5\nx y\n255\n' >"$work/badheader.pgm"
printf 'P5\n4' >"$work/shortheader.pgm"
: >"$work/empty.pgm"
{ printf 'Pf\n1 1\n0\n'; head -c 4 /dev/zero; } >"$work/scale0.pfm"
{ printf 'Pf\n1 1\n-1.0\n'; printf '\000\000\300\177'; } >"$work/nan.pfm"
{ printf 'Pf\n1 1\nabc\n'; head -c 4 /dev/zero; } >"$work/badscale.pfm"
: >"$work/afile"

result=$work/out.pgm

# ---- usage errors: exit 2 ---------------------------------------------
expect_error 2 'missing' "no arguments: exit 2" "$cmd"
expect_error 2 'missing OUTPUT after INPUT' "one argument: OUTPUT named, exit 2" \
  "$cmd" "$work/ok.pgm"
expect_error 2 'too many' "three arguments: exit 2" \
  "$cmd" "$work/ok.pgm" "$result" "$work/other.pgm"
expect_error 2 "unknown option '--frobnicate'" "unknown long option: exit 2" \
  "$cmd" --frobnicate "$work/ok.pgm" "$result"
expect_error 2 "unknown option '-x'" "unknown short option: exit 2" \
  "$cmd" -x "$work/ok.pgm" "$result"
expect_error 2 'needs a value' "--sigma without a value: exit 2" \
  "$cmd" "$work/ok.pgm" "$result" --sigma
for sigma in -1 0 nan abc 300 inf 25x '' 1e999 255.5; do
  expect_error 2 'invalid sigma' "--sigma '$sigma': exit 2" \
    "$cmd" --sigma "$sigma" "$work/ok.pgm" "$result"
done
expect_error 2 "unknown mode 'bm4d'" "unknown mode: exit 2" \
  "$cmd" --mode bm4d "$work/ok.pgm" "$result"
expect_error 2 "unknown backend 'opencl'" "unknown backend: exit 2" \
  "$cmd" --backend opencl "$work/ok.pgm" "$result"
for threads in -1 abc 1.5 100000; do
  expect_error 2 'invalid thread count' "--threads '$threads': exit 2" \
    "$cmd" --threads "$threads" "$work/ok.pgm" "$result"
done
for noise in -1 abc 256; do
  expect_error 2 'invalid noise deviation' "--add-noise '$noise': exit 2" \
    "$cmd" --add-noise "$noise" "$work/ok.pgm" "$result"
done
for seed in -5 abc 18446744073709551616; do
  expect_error 2 'invalid seed' "--seed '$seed': exit 2" \
    "$cmd" --add-noise 5 --seed "$seed" "$work/ok.pgm" "$result"
done
expect_error 2 'invalid depth' "--depth 12: exit 2" \
  "$cmd" --depth 12 "$work/ok.pgm" "$result"
expect_error 2 'only to --add-noise' "--seed without --add-noise: exit 2" \
  "$cmd" --seed 3 "$work/ok.pgm" "$result"
expect_error 2 'only to denoising' "--add-noise with --sigma: exit 2" \
  "$cmd" --add-noise 5 --sigma 10 "$work/ok.pgm" "$result"
expect_error 2 'exclude each other' "--compare with --convert: exit 2" \
  "$cmd" --compare --convert "$work/ok.pgm" "$result"
expect_error 2 'missing' "--compare with one image: exit 2" \
  "$cmd" --compare "$work/ok.pgm"

run "$cmd" --help
if [ "$rc" -eq 0 ] && echo "$out" | grep -q '^Usage: bm3d-denoise' \
   && [ ! -s "$work/run.err" ]; then
  ok "--help: usage on stdout, exit 0"
else
  not_ok "--help: usage on stdout, exit 0"
fi
# The command reference (docs/command.md) is the help, word for word.
readme=$top_srcdir/docs/command.md
if [ -f "$readme" ]; then
  sed -n '/^<!-- bm3d-denoise --help: begin -->$/,/^<!-- bm3d-denoise --help: end -->$/p' \
    "$readme" | sed '1d;$d' | sed 's/^    //' >"$work/readme-help"
  "$cmd" --help | sed 's/[[:space:]]*$//' >"$work/help"
  if cmp -s "$work/help" "$work/readme-help"; then
    ok "docs/command.md's command reference matches --help"
  else
    not_ok "docs/command.md's command reference matches --help"
    diff "$work/help" "$work/readme-help" | sed 's/^/#   /'
  fi
else
  skip "docs/command.md's command reference matches --help" "no docs/command.md"
fi
run "$cmd" --version
if [ "$rc" -eq 0 ] && echo "$out" | grep -q '^bm3d-denoise (.*) [0-9]'; then
  ok "--version: exit 0"
else
  not_ok "--version: exit 0"
fi

# ---- runtime errors: exit 1 -------------------------------------------
expect_error 1 'cannot open: No such file' "missing input: exit 1" \
  "$cmd" "$work/missing.pgm" "$result"
mkdir "$work/folder.pgm"
expect_error 2 "give it as -o $work/folder.pgm" \
  "a folder as OUTPUT: -o DIR suggested, exit 2" \
  "$cmd" "$work/ok.pgm" "$work/folder.pgm"
expect_error 1 'Is a directory' "input is a folder: exit 1" \
  "$cmd" "$work/folder.pgm" "$result"
expect_error 1 'unknown image format' "input of unknown format: exit 1" \
  "$cmd" "$work/afile" "$result"
expect_error 1 'unknown image format' "output of unknown format: exit 1" \
  "$cmd" "$work/ok.pgm" "$work/out.bmp"
if has_png; then
  expect_error 1 'not a PNG file' "corrupt PNG: exit 1" \
    "$cmd" "$work/corrupt.png" "$result"
  expect_error 1 'corrupt.png|png|chunk|IHDR' "PNG signature then zeros: exit 1" \
    "$cmd" "$work/zeros.png" "$result"
else
  expect_error 1 'PNG support is not built in' "PNG without libpng: exit 1" \
    "$cmd" "$work/corrupt.png" "$result"
  expect_error 1 'PNG support is not built in' "PNG output without libpng: exit 1" \
    "$cmd" "$work/ok.pgm" "$work/out.png"
fi
expect_error 1 'truncated' "truncated PPM: exit 1" \
  "$cmd" "$work/truncated.ppm" "$result"
expect_error 1 'truncated' "truncated 16-bit PGM: exit 1" \
  "$cmd" "$work/truncated16.pgm" "$result"
expect_error 1 'truncated' "truncated PFM: exit 1" \
  "$cmd" "$work/truncated.pfm" "$result"
expect_error 1 'no pixels \(0x0\)' "0x0 PGM: exit 1" \
  "$cmd" "$work/zero.pgm" "$result"
expect_error 1 'no pixels' "0x5 PGM: exit 1" \
  "$cmd" "$work/zerowidth.pgm" "$result"
expect_error 1 'too large' "100000x100000 PGM header: exit 1" \
  "$cmd" "$work/huge.pgm" "$result"
expect_error 1 'malformed' "20-digit width: exit 1" \
  "$cmd" "$work/overflow.pgm" "$result"
expect_error 1 'too large' "65536x65536 PFM header: exit 1" \
  "$cmd" "$work/huge.pfm" "$result"
expect_error 1 'maxval 0' "maxval 0: exit 1" \
  "$cmd" "$work/maxval0.pgm" "$result"
expect_error 1 'maxval 70000' "maxval 70000: exit 1" \
  "$cmd" "$work/maxval70000.pgm" "$result"
expect_error 1 'exceeds maxval' "sample above maxval: exit 1" \
  "$cmd" "$work/abovemax.pgm" "$result"
expect_error 1 'P2 is not supported' "ASCII PGM: exit 1" \
  "$cmd" "$work/ascii.pgm" "$result"
expect_error 1 'malformed' "non-numeric header: exit 1" \
  "$cmd" "$work/badheader.pgm" "$result"
expect_error 1 'malformed' "header cut short: exit 1" \
  "$cmd" "$work/shortheader.pgm" "$result"
expect_error 1 'not a PGM/PPM' "empty PGM: exit 1" \
  "$cmd" "$work/empty.pgm" "$result"
expect_error 1 'invalid scale' "PFM scale 0: exit 1" \
  "$cmd" "$work/scale0.pfm" "$result"
expect_error 1 'invalid scale' "PFM scale not a number: exit 1" \
  "$cmd" "$work/badscale.pfm" "$result"
expect_error 1 'NaN' "PFM with a NaN: exit 1" \
  "$cmd" "$work/nan.pfm" "$result"
expect_error 1 'cannot create: No such file' "output in a missing folder: exit 1" \
  "$cmd" --convert "$work/ok.pgm" "$work/no/such/folder/out.pgm"
expect_error 1 'cannot create: Not a directory' "output below a file: exit 1" \
  "$cmd" --convert "$work/ok.pgm" "$work/afile/out.pgm"
expect_error 1 'cannot create' "denoise into a missing folder: exit 1" \
  "$cmd" "$work/ok.pgm" "$work/no/such/folder/out.pgm"
if [ -w /dev/full ]; then
  ln -s /dev/full "$work/full.pgm"
  expect_error 1 'write failed: No space left' "write to a full disk: exit 1" \
    "$cmd" --convert "$work/big.pgm" "$work/full.pgm"
else
  skip "write to a full disk: exit 1" "no /dev/full"
fi
printf 'P5\n8 8\n255\n' >"$work/small.pgm"
head -c 64 /dev/zero >>"$work/small.pgm"
expect_error 1 'does not match' "--psnr with a reference of another size: exit 1" \
  "$cmd" --psnr "$work/small.pgm" "$work/ok.pgm" "$result"
expect_error 1 'cannot compare' "--compare of different sizes: exit 1" \
  "$cmd" --compare "$work/small.pgm" "$work/ok.pgm"

# Non-local means denoises, with its options too.
rm -f "$result"
run "$cmd" --mode nlm --sigma 10 "$work/ok.pgm" "$result"
if [ "$rc" -eq 0 ] && [ -s "$result" ]; then
  ok "--mode nlm: denoised"
else
  not_ok "--mode nlm: denoised (exit $rc)"
  sed 's/^/#   /' "$work/run.err"
fi
rm -f "$result"
run "$cmd" --mode nlm --sigma 10 --nlm-patch 5 --nlm-search 11 --nlm-h 6 \
  --nlm-gaussian "$work/ok.pgm" "$result"
if [ "$rc" -eq 0 ] && [ -s "$result" ]; then
  ok "--mode nlm with --nlm-patch, --nlm-search, --nlm-h, --nlm-gaussian"
else
  not_ok "--mode nlm with its options (exit $rc)"
  sed 's/^/#   /' "$work/run.err"
fi

# The isoline mode, both variants: a flat image comes back as it was.
for variant in hybrid pipd; do
  rm -f "$result"
  run "$cmd" --mode isoline --isoline-variant "$variant" --sigma 10 \
    "$work/ok.pgm" "$result"
  if [ "$rc" -eq 0 ] && cmp -s "$work/ok.pgm" "$result"; then
    ok "--mode isoline --isoline-variant $variant: denoised, flat stays flat"
  else
    not_ok "--mode isoline --isoline-variant $variant: denoised (exit $rc)"
    sed 's/^/#   /' "$work/run.err"
  fi
done
expect_error 2 'isoline variant' "--isoline-variant fancy: exit 2" \
  "$cmd" --mode isoline --isoline-variant fancy "$work/ok.pgm" "$result"

# The CUDA backend asked for by name where there is none.
if "$cmd" --version | grep -q '^CUDA: not available'; then
  expect_error 1 'CUDA' "--backend cuda without a usable GPU: exit 1" \
    "$cmd" --backend cuda "$work/ok.pgm" "$result"
else
  skip "--backend cuda without a usable GPU: exit 1" "a GPU is available"
fi

# No half-written output is left behind by a failed run.
rm -f "$result"
"$cmd" "$work/truncated.ppm" "$result" 2>/dev/null
check "no output file after a failed read" test ! -e "$result"

finish
