#!/bin/bash
# The GEGL operation through the `gegl` command, headless: bm3d:denoise
# on a PNG file gives bm3d-denoise's pixels (PSNR against the clean
# image within 0.05 dB of the command's, and the two results within
# 8-bit rounding of each other), for white and camera noise.  Skipped
# where there is no `gegl` command (Debian: package gegl).
. "${top_srcdir:-.}/tests/cli-lib.sh"

if ! command -v gegl > /dev/null; then
  echo "1..0 # SKIP no gegl command"
  exit 0
fi
module_dir=${BM3D_GEGL_MODULE_DIR:-$top_builddir/plugin}
data="$top_srcdir/tests/data"
# Where `make install-user` puts it, under a home of the test's own.
export XDG_DATA_HOME=$work/data
mkdir -p "$XDG_DATA_HOME/gegl-0.4/plug-ins"
cp "$module_dir/bm3d-denoise-gegl.so" "$XDG_DATA_HOME/gegl-0.4/plug-ins/"

"$BM3D_DENOISE" --add-noise 25 --seed 39 "$data/astronaut.png" \
  "$work/noisy.png" || exit 1

# gegl_op NAME PROPERTY=VALUE...: the operation on noisy.png into NAME.
gegl_op ()
{
  out=$1
  shift
  HOME=$work gegl "$work/noisy.png" -o "$work/$out" -- \
    bm3d:denoise backend=cpu "$@"
}

# at_least A B: A >= B, as numbers.
at_least ()
{
  awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'
}

compare_noise ()
{
  noise=$1
  shift
  check "$noise noise: the gegl command runs bm3d:denoise" \
    gegl_op "op-$noise.png" noise="$noise" "$@"
  check "$noise noise: bm3d-denoise runs" \
    "$BM3D_DENOISE" -b cpu --noise="$noise" "$work/noisy.png" \
    "$work/cmd-$noise.png"
  op=$(psnr "$data/astronaut.png" "$work/op-$noise.png")
  cmd=$(psnr "$data/astronaut.png" "$work/cmd-$noise.png")
  between=$(psnr "$work/cmd-$noise.png" "$work/op-$noise.png")
  echo "# $noise: PSNR operation $op dB, command $cmd dB, between $between dB"
  check "$noise noise: PSNR $op dB within 0.05 dB of the command's $cmd dB" \
    is_near "$op" "$cmd" 0.05
  # 8-bit rounding alone leaves about 59 dB between two results.
  check "$noise noise: the two results agree ($between dB >= 50 dB)" \
    at_least "$between" 50
}

compare_noise white sigma=25
compare_noise camera

echo "1..$tests_run"
