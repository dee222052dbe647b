#!/bin/sh
# Builds the engine, the command, the benchmarks and the engine tests with
# CUDA (no GIMP) in _build-cuda, and packs the programs (same relative
# paths as in a build folder, stripped) with the shared libraries they
# load, other than the C library's own, into DEST/programs.tar.xz: what
# runs on another x86-64 Linux machine with an NVIDIA driver but no
# compiler or -dev packages.  There, from the source tree:
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   mkdir -p /tmp/b && tar xJf DEST/programs.tar.xz -C /tmp/b
#   export LD_LIBRARY_PATH=/tmp/b/lib
#   top_builddir=/tmp/b top_srcdir=. sh tests/gpu-tests.sh
#   /tmp/b/bench/bm3d-bench --sizes 0.25,12 --channels 1,3 --backends cuda
#
# bench/bm3d-autocov-bench alone loads cuFFT (libcufft.so.12, 287 MB):
# it is not packed, as a machine to run CUDA benchmarks on has the
# toolkit.  The program looks where the toolkit was at build time
# (/usr/local/cuda/...); elsewhere put cuFFT's folder on the path:
#
#   cufft=$(find /usr/local /opt /usr/lib -name libcufft.so.12 -print \
#             -quit 2>/dev/null)
#   export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:${cufft%/*}
#   /tmp/b/bench/bm3d-autocov-bench
#
#   bench/pack-build.sh [DEST]        (default: .devbuild)
#
# The CUDA code is built for PACK_CUDA_ARCH (default 90: the H200 and H100
# machines' Hopper GPUs; "all" for every generation, 15 minutes more).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-.devbuild}
build=$src/_build-cuda
mkdir -p "$build" "$dest"
dest=$(cd "$dest" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib"

[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi)
cd "$build"
[ -f Makefile ] || "$src/configure" --without-gimp --with-cuda \
  --with-cuda-arch="${PACK_CUDA_ARCH:-90}" --enable-werror >/dev/null
make -j2 >/dev/null
# The test and benchmark programs are built by `make check` only.
make -j2 $(sed -n 's/^check_PROGRAMS = //p' Makefile) >/dev/null 2>&1 || \
  make -j2 -k check TESTS= >/dev/null

# Every program, and the libraries they need.
programs=$(find . -type f -perm -u+x ! -name '*.sh' ! -name config.status \
             ! -name libtool -exec sh -c 'file "$1" | grep -q ELF' _ {} \; -print)
for f in $programs; do
  mkdir -p "$stage/$(dirname "$f")"
  cp "$f" "$stage/$f"
  strip "$stage/$f"
done
for f in $programs; do
  ldd "$f" 2>/dev/null | awk '$3 ~ /^\// { print $3 }'
done | sort -u | while read -r lib; do
      case $(basename "$lib") in
        libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*) ;;
        libcufft.so*) ;;
        *) cp -L "$lib" "$stage/lib/" ;;
      esac
    done
# Every program holds the same CUDA fat binary: a dictionary larger than
# one program lets xz store it once.
(cd "$stage" && tar cf - .) | xz -T2 --lzma2=preset=1,dict=192MiB \
  >"$dest/programs.tar.xz"
echo "packed $(echo $programs | wc -w) programs and $(ls "$stage/lib" | wc -l)" \
     "libraries into $dest/programs.tar.xz ($(du -h "$dest/programs.tar.xz" | cut -f1))"
