#!/bin/bash
# GIMP 3: BM3D as a non-destructive filter.  plug-in-bm3d-denoise with
# keep-editable on adds the GEGL operation bm3d:denoise to an RGBA layer
# instead of changing its pixels; the image then looks like the
# command's result, switched off like the input; saved as XCF and opened
# again the filter is still there, and merged its pixels are the
# command's with the settings given (not the operation's defaults:
# white noise of sigma 30 against camera noise), alpha bit-exact.  The
# module is installed where GIMP finds it: $XDG_DATA_HOME/gegl-0.4/plug-ins.
# Undo, in GIMP with its windows under a virtual display (skipped without
# xvfb-run, xdotool and dbus-run-session): one Edit > Undo after the
# procedure attached the filter leaves the layer without it and its
# pixels bit-exact; one after a merge brings the filter back over the
# layer's own pixels.
. "${top_srcdir:-.}/tests/gimp3-lib.sh"

module=${BM3D_GEGL_MODULE:-$top_builddir/plugin/bm3d-denoise-gegl.so}

# Under xvfb-run: GIMP with its windows runs the batch command, and at
# each "t-ready: N" Ctrl+Z is pressed in the image window, then the file
# $work/ready.N tells the batch command to go on (t-wait-undo).
undo_driver ()
{
  local log=$1 n i window
  shift
  gimp_runs=0
  run_gimp_gui "$log" "$@" &
  gimp_pid=$!
  for n in 1 2; do
    for i in $(seq 1 3000); do
      grep -q "t-ready: $n" "$log" 2> /dev/null && break
      kill -0 "$gimp_pid" 2> /dev/null || break
      sleep 0.1
    done
    # The image window's title ends with the image's size.
    window=$(xdotool search --name ' 128x128 ' \
               2> /dev/null | head -n 1)
    echo "undo $n: window ${window:-none}" >> "$work/driver.out"
    if test -n "$window"; then
      xdotool windowfocus --sync "$window" 2>> "$work/driver.out" || :
      xdotool key --clearmodifiers ctrl+z
      # The key is handled before the batch command asks again.
      sleep 2
    fi
    touch "$work/ready.$n"
  done
  wait "$gimp_pid"
}

if test "${1:-}" = --inner; then
  shift
  undo_driver "$@"
  exit 0
fi

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

# Undo.
display_tools=yes
for tool in xvfb-run xdotool dbus-run-session; do
  command -v $tool > /dev/null 2>&1 || display_tools="no ($tool not found)"
done
if test "$display_tools" = yes; then
  log=$work/gimp-undo.log
  : > "$work/driver.out"
  echo "(show-welcome-dialog no)" >> "$work/gimprc"
  export work
  GIMPDIR=$work/gimpdir-undo \
    timeout 600 xvfb-run -a -s "-screen 0 1280x900x24 -noreset" \
    dbus-run-session -- bash "$0" --inner "$log" \
    "(t-filter-undo \"$work/noisy-rgba.png\" $sigma \"$work/undo-before.raw\"
       \"$work/undone.raw\" \"$work/merge-undone.raw\" \"$work/ready\")" \
    2> "$work/xvfb.err"
  check "GIMP with its windows ran without a plug-in crash" no_crash "$log"
  check "... and exited 0" exited_with "$log" 0
  check "undo: the procedure attached one filter ($(said undo-attached))" \
    test "$(said undo-attached)" = 1
  check "undo: Ctrl+Z was pressed in the image window" \
    grep -q "undo 1: window [0-9]" "$work/driver.out"
  check "one undo: no filter left ($(said undo-undone))" \
    test "$(said undo-undone)" = 0
  check "one undo: the layer's pixels bit-exact as before" \
    cmp "$work/undo-before.raw" "$work/undone.raw"
  check "merged again: no filter ($(said undo-merged))" \
    test "$(said undo-merged)" = 0
  check "one undo after the merge: the filter is back" \
    test "$(said undo-merge-undone)" = 1
  check "... over the layer's own pixels, bit-exact" \
    cmp "$work/undo-before.raw" "$work/merge-undone.raw"
  if test $tap_failed -gt 0; then
    sed 's/^/# gimp: /' "$log"
    sed 's/^/# driver: /' "$work/driver.out"
    sed 's/^/# xvfb-run: /' "$work/xvfb.err"
  fi
else
  ok "undo # SKIP $display_tools"
fi

finish
