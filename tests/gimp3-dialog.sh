#!/bin/bash
# GIMP 3: the GTK 3 dialog in real GIMP under a virtual display, driven
# with xdotool:
#  1. with no values of the user's yet it opens at the dialog's defaults
#     (camera noise, strengths 1, as GIMP 2.10 and Reset give, not the
#     procedure's white noise) and renders a 400 x 400 preview; white
#     noise chosen with the keyboard previews sigma 25, a noise
#     level typed into its spin button is previewed, and OK gives the
#     pixels of the non-interactive call at that level, which GIMP keeps
#     as the last values (RUN-WITH-LAST-VALS gives them again); the
#     preview tile equals the final result on its area (within one 8-bit
#     level) and the screen shows it;
#  2. it opens at the last OK's values (white noise, sigma 10), no longer
#     the defaults; a drag of the sigma slider shows the fast mode while
#     it moves; then Cancel: the image unchanged;
#  3. Reset goes back to the dialog's defaults (camera noise, strengths
#     1), and OK gives the pixels of the procedure with #:noise "camera";
#  4. white noise chosen with the keyboard (the dialog opened on the
#     camera noise Reset left), Estimate sets sigma, previews it, and OK
#     gives the pixels of the procedure's sigma 0 (estimate, then
#     denoise).
# A screenshot of the first dialog, expert options open, is kept
# (BM3D_DIALOG_SCREENSHOT=FILE copies it out).  Skipped without
# xvfb-run, xdotool, dbus-run-session and ImageMagick's import.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-.}/tests/gimp3-lib.sh"

title='^BM3D Denoise$'

# A drag of the sigma slider (GTK 3 moves it to the pointer and follows
# it), in steps of 4 pixels until the fast mode has been drawn, 30 s at
# most.
drag_slider ()
{
  local geometry x y h i
  geometry=$(session_log | grep -m 1 'geometry sigma-scale')
  x=$(echo "$geometry" | sed 's/.* x=\([0-9]*\).*/\1/')
  y=$(echo "$geometry" | sed 's/.* y=\([0-9]*\).*/\1/')
  h=$(echo "$geometry" | sed 's/.* height=\([0-9]*\).*/\1/')
  y=$((y + h / 2)) x=$((x + 30))
  xdotool mousemove "$x" "$y" mousedown 1
  for i in $(seq 1 200); do
    xdotool mousemove $((x + 4 * (i % 20))) "$y"
    sleep 0.15
    session_log | grep -q -E 'drawn .* fast=1 ' && break
  done
  xdotool mouseup 1
}

inner ()
{
  local log=$1 window
  shift
  gimp_runs=0
  run_gimp "$log" "$@" &
  gimp_pid=$!

  # 1. The dialog's defaults; white noise; 10 typed; OK.
  window=$(wait_window)
  note "dialog 1: ${window:-none}"
  if test -n "$window"; then
    focus "$window"
    wait_log 'drawn .* mode=bm3d fast=0 .*noise=camera strength=1 chroma-strength=1$'
    # Alt+Y: the noise type; Down steps from camera noise to white.
    xdotool key alt+y Down
    wait_log 'drawn .* mode=bm3d fast=0 .*sigma=25 .*noise=white '
    type_sigma 10
    wait_log 'drawn .* mode=bm3d fast=0 .*sigma=10 ' \
      && cp "$work/tile" "$work/tile-10"
    sleep 0.5
    screen_shot "$work/screen-on.png"
    # Alt+A opens the expert options, for the screenshot.
    xdotool key alt+a
    sleep 1
    import -window "$window" "$work/dialog.png" 2>> "$work/driver.out" || :
    xdotool key alt+o
    wait_gone
  fi

  # 2. A drag, then Cancel.
  window=$(wait_window)
  note "dialog 2: ${window:-none}"
  if test -n "$window"; then
    focus "$window"
    wait_log 'geometry sigma-scale'
    drag_slider
    xdotool key alt+c
    wait_gone
  fi

  # 3. Reset, then OK.
  window=$(wait_window)
  note "dialog 3: ${window:-none}"
  if test -n "$window"; then
    focus "$window"
    wait_log 'drawn '
    xdotool key alt+r
    wait_log 'drawn .* mode=bm3d fast=0 .*noise=camera strength=1 chroma-strength=1$'
    xdotool key alt+o
    wait_gone
  fi

  # 4. Estimate, then OK once the estimate is previewed.
  window=$(wait_window)
  note "dialog 4: ${window:-none}"
  if test -n "$window"; then
    focus "$window"
    wait_log ' probe .* estimate=1'
    # Alt+Y: the noise type; Down steps from camera noise to white.
    wait_log 'drawn .* mode=bm3d fast=0 .*noise=camera '
    xdotool key alt+y Down
    wait_log 'drawn .* mode=bm3d fast=0 .*noise=white '
    xdotool key alt+e
    wait_log ' estimate sigma='
    estimate=$(session_log | sed -n 's/.* estimate sigma=\([^ ]*\).*/\1/p')
    wait_log "drawn .* mode=bm3d fast=0 .*sigma=$estimate "
    xdotool key alt+o
    wait_gone
  fi
  wait "$gimp_pid"
}

dialog_setup "$@"

denoise ()  # RUN-MODE SIGMA MODE BACKEND OUT
{
  echo "(t-denoise \"$noisy\" $u8 #f $1 $2 \"$3\" \"$4\" #f \"$work/$5.raw\")"
}

dialog_log=$work/dialog.log
log=$work/gimp.log
: > "$work/driver.out"
: > "$dialog_log"
export work dialog_log title
# One GIMP for all: the last values live in its configuration folder.
GIMPDIR=$work/gimpdir \
BM3D_DIALOG_LOG=$dialog_log BM3D_DIALOG_TILE=$work/tile \
timeout 900 xvfb-run -a -s "-screen 0 1280x900x24 -noreset" \
  dbus-run-session -- bash "$0" --inner "$log" \
  "$(denoise RUN-INTERACTIVE 0 bm3d auto interactive)" \
  "$(denoise RUN-WITH-LAST-VALS 0 bm3d auto last)" \
  "$(denoise RUN-NONINTERACTIVE 10.0 bm3d auto typed)" \
  "(t-try \"$noisy\" $u8 RUN-INTERACTIVE 0 \"bm3d\" \"auto\"
          \"$work/cancel-before.raw\" \"$work/cancel-after.raw\")" \
  "$(denoise RUN-INTERACTIVE 0 bm3d auto reset)" \
  "(let* ((image (t-load \"$noisy\"))
          (drawable (t-drawable image)))
     (plug-in-bm3d-denoise #:run-mode RUN-NONINTERACTIVE #:image image
                           #:drawables (vector drawable) #:noise \"camera\"
                           #:strength 1.0 #:chroma-strength 1.0
                           #:mode \"bm3d\" #:backend \"auto\")
     (t-dump image \"$work/camera-defaults.raw\")
     (gimp-image-delete image))" \
  "$(denoise RUN-INTERACTIVE 0 bm3d auto estimate-dialog)" \
  "$(denoise RUN-NONINTERACTIVE 0.0 bm3d auto sigma0)" \
  2> "$work/xvfb.err"
echo "# xvfb-run exited with status $?"

check "GIMP ran without a plug-in crash" no_crash "$log"
check "gimp-console exited 0" exited_with "$log" 0
for k in 1 2 3 4; do
  check "dialog $k appeared" grep -q "dialog $k: [0-9]" "$work/driver.out"
done
for k in 1 2 3 4 5 6 7 8; do
  check "batch command $k succeeded" is_ok "$log" $k
done

# 1.
check "the dialog opened at its defaults (camera noise, strengths 1, BM3D)" \
  first_drawn_is 1 'drawn .* mode=bm3d fast=0 .*noise=camera strength=1 chroma-strength=1$'
check "white noise chosen with the keyboard was previewed at sigma 25" \
  session_has 1 'drawn .* mode=bm3d fast=0 .*sigma=25 .*noise=white '
check "the preview is 400 x 400" \
  session_has 1 'drawn .* width=400 height=400 '
check "the typed noise level was previewed in the chosen mode" \
  test -s "$work/tile-10"
check "OK ran the dialog's values (the typed sigma)" \
  cmp "$work/interactive.raw" "$work/typed.raw"
check "GIMP kept them as the last values (RUN-WITH-LAST-VALS)" \
  cmp "$work/last.raw" "$work/typed.raw"
check "the preview tile equals the final result on its area" \
  "$pixels" tile-matches "$work/tile-10" "$work/interactive.raw" $geometry
check "with Preview on, the screen shows the tile" \
  "$pixels" tile-matches "$work/tile-10" "$work/screen-on.png" -
check "a screenshot of the dialog was taken" test -s "$work/dialog.png"
if test -n "${BM3D_DIALOG_SCREENSHOT:-}" && test -s "$work/dialog.png"; then
  cp "$work/dialog.png" "$BM3D_DIALOG_SCREENSHOT"
fi

# 2.
check "the next dialog opened at the last OK's values (white noise, sigma 10)" \
  first_drawn_is 2 'drawn .* mode=bm3d fast=0 .*sigma=10 .*noise=white '
check "the fast mode was shown while the slider moved" \
  session_has 2 'drawn .* fast=1 '
check "Cancel was answered (response -6)" \
  session_has 2 'close response=-6'
check "Cancel left the image unchanged" \
  cmp "$work/cancel-before.raw" "$work/cancel-after.raw"

# 3.
check "Reset restored the defaults (camera noise, strengths 1, BM3D)" \
  session_has 3 'drawn .* mode=bm3d fast=0 .*noise=camera strength=1 chroma-strength=1$'
check "Reset, OK: the pixels of #:noise \"camera\" with the defaults" \
  cmp "$work/reset.raw" "$work/camera-defaults.raw"
check "white noise chosen with the keyboard was previewed with sigma" \
  session_has 4 'drawn .* mode=bm3d fast=0 .*noise=white '

# 4.
check "Estimate set the slider and the preview followed" \
  session_has 4 'drawn .* mode=bm3d fast=0 ' ' estimate sigma='
check "Estimate, then OK: the pixels of the procedure's sigma 0" \
  cmp "$work/estimate-dialog.raw" "$work/sigma0.raw"

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$log"
  sed 's/^/# driver: /' "$work/driver.out"
  sed 's/^/# dialog: /' "$dialog_log"
  sed 's/^/# xvfb-run: /' "$work/xvfb.err"
fi
finish
