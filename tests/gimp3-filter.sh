#!/bin/bash
# GIMP 3: BM3D as a non-destructive filter.  plug-in-bm3d-denoise with
# keep-editable on adds the GEGL operation bm3d:denoise to an RGBA layer
# instead of changing its pixels; the image then looks like the
# command's result, switched off like the input; saved as XCF and opened
# again the filter is still there, and merged its pixels are the
# command's with the settings given (not the operation's defaults:
# white noise of sigma 30 against camera noise), alpha bit-exact.  The
# module is installed where GIMP finds it: $XDG_DATA_HOME/gegl-0.4/plug-ins.
. "${top_srcdir:-.}/tests/gimp3-lib.sh"

module=${BM3D_GEGL_MODULE:-$top_builddir/plugin/bm3d-denoise-gegl.so}

require_tools
test -f "$module" || skip_all "GEGL operation not built ($module)"
setup_gimp
make_inputs
cp "$top_srcdir/tests/gimp3-filter.scm" "$work/install/scripts/"
export XDG_DATA_HOME=$work/data
mkdir -p "$XDG_DATA_HOME/gegl-0.4/plug-ins"
cp "$module" "$XDG_DATA_HOME/gegl-0.4/plug-ins/"

sigma=30
geometry=128x128x4xu8
log=$work/gimp.log
run_gimp "$log" \
  "(t-filter-attach \"$work/noisy-rgba.png\" $sigma \"$work/filter.xcf\"
     \"$work/shown.raw\" \"$work/hidden.raw\")" \
  "(t-filter-reopen \"$work/filter.xcf\" \"$work/merged.raw\")" \
  "(t-dump (t-load \"$work/noisy-rgba.png\") \"$work/before.raw\")"
check "GIMP ran without a plug-in crash" no_crash "$log"
check "gimp-console exited 0" exited_with "$log" 0

# said NAME: the value of the helpers' line "t-NAME: VALUE".
said ()
{
  grep -o "t-$1: [^ ]*" "$log" | head -n 1 | sed "s/t-$1: //"
}

"$command" --noise white --sigma $sigma --backend cpu \
  "$work/noisy-rgb.png" "$work/command.png" > /dev/null
reference=$("$pixels" psnr "$work/clean-rgb.png" "$work/command.png")

check "keep-editable: the layer has one filter ($(said filters))" \
  test "$(said filters)" = 1
shown=$("$pixels" psnr "$work/command.png" "$work/shown.raw" "$geometry" 2>&1)
check "the image with the filter looks like the command's result ($shown dB)" \
  at_least "$shown" 50
check "the filter switched off shows the input exactly" \
  cmp "$work/before.raw" "$work/hidden.raw"

check "the XCF opened again holds the filter ($(said reopened-filters))" \
  test "$(said reopened-filters)" = 1
check "... the operation bm3d:denoise ($(said operation))" \
  test "$(said operation)" = bm3d:denoise
check "merged: no filter left ($(said merged-filters))" \
  test "$(said merged-filters)" = 0
psnr=$("$pixels" psnr "$work/clean-rgb.png" "$work/merged.raw" "$geometry" \
         2>&1)
check "merged: PSNR $psnr dB within 0.05 dB of the command's $reference dB" \
  awk -v a="$psnr" -v b="$reference" \
    'BEGIN { d = a - b; exit !(d <= 0.05 && d >= -0.05) }'
same=$("$pixels" psnr "$work/command.png" "$work/merged.raw" "$geometry" 2>&1)
check "merged: the command's pixels, with its settings ($same dB)" \
  at_least "$same" 50
check "merged: alpha bit-exact" "$pixels" same-alpha \
  "$work/before.raw" "$work/merged.raw" "$geometry"

finish
