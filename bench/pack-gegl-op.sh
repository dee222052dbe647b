#!/bin/sh
# Builds the GEGL operation bm3d:denoise and its benchmark with CUDA (no
# GIMP) in _build-cuda-gegl, and packs them with GEGL and babl (their
# libraries, the GEGL modules the benchmark's graph uses, babl's
# extensions) and the other shared libraries they load, other than the C
# library's own, into DEST/gegl-op.tar.xz: what runs on another x86-64
# Linux machine with an NVIDIA driver but no GEGL.  There, from anywhere:
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   mkdir -p /tmp/g && xz -dc DEST/gegl-op.tar.xz | tar xf - -C /tmp/g
#   sh /tmp/g/run.sh --backend cuda        (bench/bm3d-gegl-op-bench's options)
#
# run.sh points the loader, GEGL (GEGL_PATH) and babl (BABL_PATH) at the
# packed copies and the benchmark at the packed module, and keeps the
# user's own GEGL folder out.
#
#   bench/pack-gegl-op.sh [DEST]      (default: .devbuild)
#
# PACK_BUILD names a build folder configured with --with-cuda and
# --with-gegl-op to use instead; PACK_CUDA_ARCH as in bench/pack-build.sh
# (default 90, the H200 and H100 machines).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-.devbuild}
build=${PACK_BUILD:-$src/_build-cuda-gegl}
mkdir -p "$build" "$dest"
dest=$(cd "$dest" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib" "$stage/gegl" "$stage/babl" "$stage/plugin" \
         "$stage/bench"

[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi)
cd "$build"
[ -f Makefile ] || "$src/configure" --without-gimp --with-cuda \
  --with-cuda-arch="${PACK_CUDA_ARCH:-90}" --with-gegl-op=yes \
  --enable-werror >/dev/null
make -j2 plugin/bm3d-denoise-gegl.so bench/bm3d-gegl-op-bench >/dev/null

cp bench/bm3d-gegl-op-bench "$stage/bench/"
strip "$stage/bench/bm3d-gegl-op-bench"
cp plugin/bm3d-denoise-gegl.so "$stage/plugin/"
strip --strip-unneeded "$stage/plugin/bm3d-denoise-gegl.so"
# gegl:buffer-source lives in gegl-common; GEGL picks the build for the
# processor among the variants.
libdir=$(pkg-config --variable=libdir gegl-0.4)
modules=$(pkg-config --variable=pluginsdir gegl-0.4)
for m in gegl-core gegl-common gegl-common-x86_64-v2 gegl-common-x86_64-v3; do
  if [ -f "$modules/$m.so" ]; then
    cp "$modules/$m.so" "$stage/gegl/"
  fi
done
cp "$libdir"/babl-0.1/*.so "$stage/babl/"

for f in "$stage"/bench/* "$stage"/plugin/* "$stage"/gegl/* "$stage"/babl/*; do
  ldd "$f" 2>/dev/null | awk '$3 ~ /^\// { print $3 }'
done | sort -u | while read -r lib; do
      case $(basename "$lib") in
        libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*) ;;
        *) cp -L "$lib" "$stage/lib/" ;;
      esac
    done

cat > "$stage/run.sh" <<'EOF'
#!/bin/sh
# bench/bm3d-gegl-op-bench with the GEGL, babl and libraries packed
# beside it (bench/pack-gegl-op.sh): nothing from the system but the C
# library and the NVIDIA driver.
top=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$top/home"
LD_LIBRARY_PATH="$top/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
GEGL_PATH="$top/gegl" BABL_PATH="$top/babl" \
BM3D_GEGL_MODULE_DIR="$top/plugin" XDG_DATA_HOME="$top/home" \
HOME="$top/home" \
  exec "$top/bench/bm3d-gegl-op-bench" "$@"
EOF
chmod +x "$stage/run.sh"

(cd "$stage" && tar cf - .) | xz -T2 -6 >"$dest/gegl-op.tar.xz"
echo "packed the operation, its benchmark, $(ls "$stage/gegl" | wc -l) GEGL" \
     "modules, $(ls "$stage/babl" | wc -l) babl extensions and" \
     "$(ls "$stage/lib" | wc -l) libraries into $dest/gegl-op.tar.xz" \
     "($(du -h "$dest/gegl-op.tar.xz" | cut -f1))"
