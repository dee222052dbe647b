#!/bin/bash
# GIMP 3: the dialog's Keep editable choice, in real GIMP under a virtual
# display, driven with xdotool, the GEGL operation installed as a user's
# would be ($XDG_DATA_HOME/gegl-0.4/plug-ins):
#  1. the dialog opens with Keep editable on, at its defaults (camera
#     noise, strengths 1); white noise chosen and a noise level typed,
#     then OK: the layer gets one bm3d:denoise filter and keeps its own pixels
#     (with the filter switched off the image is the input, bit-exact);
#     merged, the pixels are the procedure's and the command's at that
#     level (the dialog's settings reached the filter);
#  2. Keep editable clicked off (its place from the dialog log), OK: no
#     filter, the pixels baked, byte for byte the procedure's.
# Skipped without the operation, xvfb-run, xdotool, dbus-run-session and
# ImageMagick's import.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-.}/tests/gimp3-lib.sh"

title='^BM3D Denoise$'
module=${BM3D_GEGL_MODULE:-$top_builddir/plugin/bm3d-denoise-gegl.so}

inner ()
{
  local log=$1 window
  shift
  gimp_runs=0
  run_gimp "$log" "$@" &
  gimp_pid=$!

  # 1. Keep editable left as it opens; white noise; 10 typed; OK.
  window=$(wait_window)
  note "dialog 1: ${window:-none}"
  if test -n "$window"; then
    focus "$window"
    wait_log 'drawn .* mode=bm3d fast=0 .*noise=camera strength=1 chroma-strength=1$'
    # Alt+Y: the noise type; Down steps from camera noise to white.
    xdotool key alt+y Down
    wait_log 'drawn .* mode=bm3d fast=0 .*sigma=25 .*noise=white '
    type_sigma 10
    wait_log 'drawn .* mode=bm3d fast=0 .*sigma=10 '
    xdotool key alt+o
    wait_gone
  fi

  # 2. Keep editable clicked off; OK.
  window=$(wait_window)
  note "dialog 2: ${window:-none}"
  if test -n "$window"; then
    focus "$window"
    wait_log 'geometry keep-editable '
    click_widget keep-editable
    wait_log 'keep-editable value=0'
    xdotool key alt+o
    wait_gone
  fi
  wait "$gimp_pid"
}

test "${1:-}" = --inner || test -f "$module" \
  || skip_all "GEGL operation not built ($module)"
dialog_setup "$@"
cp "$top_srcdir/tests/gimp3-filter.scm" "$work/install/scripts/"
mkdir -p "$XDG_DATA_HOME/gegl-0.4/plug-ins"
cp "$module" "$XDG_DATA_HOME/gegl-0.4/plug-ins/"

dialog_log=$work/dialog.log
log=$work/gimp.log
: > "$work/driver.out"
: > "$dialog_log"
export work dialog_log title
dialog ()  # TAG
{
  echo "(t-filter-dialog \"$noisy\" \"$1\" \"$work/$1-before.raw\"
     \"$work/$1-shown.raw\" \"$work/$1-hidden.raw\" \"$work/$1-merged.raw\")"
}
# One GIMP for both: the last values live in its configuration folder.
GIMPDIR=$work/gimpdir \
BM3D_DIALOG_LOG=$dialog_log \
timeout 900 xvfb-run -a -s "-screen 0 1280x900x24 -noreset" \
  dbus-run-session -- bash "$0" --inner "$log" \
  "$(dialog d1)" "$(dialog d2)" \
  "(t-denoise \"$noisy\" $u8 #f RUN-NONINTERACTIVE 10.0 \"bm3d\" \"auto\" #f
              \"$work/typed.raw\")" \
  2> "$work/xvfb.err"
echo "# xvfb-run exited with status $?"

check "GIMP ran without a plug-in crash" no_crash "$log"
check "gimp-console exited 0" exited_with "$log" 0
for k in 1 2; do
  check "dialog $k appeared" grep -q "dialog $k: [0-9]" "$work/driver.out"
done
for k in 1 2 3; do
  check "batch command $k succeeded" is_ok "$log" $k
done

# 1.
check "the dialog opened at its defaults (camera noise, strengths 1)" \
  first_drawn_is 1 'drawn .* mode=bm3d fast=0 .*noise=camera strength=1 chroma-strength=1$'
check "white noise was chosen before the typed sigma" \
  session_has 1 'drawn .* mode=bm3d fast=0 .*sigma=25 .*noise=white '
check "Keep editable was offered and OK kept it on, untouched" \
  session_has 1 'close response=-5 .*keep-editable=1$'
check "... never toggled in dialog 1" \
  eval "! session 1 | grep -q 'keep-editable value='"
check "OK left one filter on the layer ($(said d1-filters))" \
  test "$(said d1-filters)" = 1
check "... the operation bm3d:denoise ($(said d1-operation))" \
  test "$(said d1-operation)" = bm3d:denoise
check "the image shows the filter" \
  files_differ "$work/d1-before.raw" "$work/d1-shown.raw"
check "the layer's own pixels untouched (the filter switched off)" \
  cmp "$work/d1-before.raw" "$work/d1-hidden.raw"
check "merged: no filter left ($(said d1-merged-filters))" \
  test "$(said d1-merged-filters)" = 0
# The command at the typed sigma: the reference both are held to.
"$command" --noise white --sigma 10 --backend cpu "$noisy" \
  "$work/command.png" > /dev/null
same=$("$pixels" psnr "$work/command.png" "$work/typed.raw" $geometry 2>&1)
check "the procedure at sigma 10 gives the command's pixels ($same dB)" \
  at_least "$same" 50
same=$("$pixels" psnr "$work/command.png" "$work/d1-merged.raw" $geometry \
         2>&1)
check "merged: the same pixels, the dialog's settings ($same dB)" \
  at_least "$same" 50

# 2.
check "Keep editable's place was logged" \
  session_has 2 'geometry keep-editable x=[0-9]+ y=[0-9]+ '
check "a click switched it off" session_has 2 'keep-editable value=0'
check "OK ran with it off" \
  session_has 2 'close response=-5 .*keep-editable=0$'
check "no filter on the layer ($(said d2-filters))" \
  test "$(said d2-filters)" = 0
check "the pixels baked: the procedure's, byte for byte" \
  cmp "$work/typed.raw" "$work/d2-shown.raw"

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$log"
  sed 's/^/# driver: /' "$work/driver.out"
  sed 's/^/# dialog: /' "$dialog_log"
  sed 's/^/# xvfb-run: /' "$work/xvfb.err"
fi
finish
