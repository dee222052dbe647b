#!/bin/bash
# The dialog in real GIMP under a virtual display, driven with xdotool:
#  1. it opens from the last values, renders a 400 x 400 preview, takes
#     a noise level typed into its spin button, and OK gives the pixels
#     of the non-interactive call at that level, which are also saved
#     for RUN-WITH-LAST-VALS; the preview tile equals the final result
#     on its area (within one 8-bit level), the screen shows it, and the
#     original with Preview off;
#  2. a slider drag of 20 steps: answered at once (the age of the X
#     event when the dialog handled it, logged by the dialog: median
#     within 50 ms, none over 500 ms), the fast mode shown while it
#     moves, the chosen mode
#     requested when it rests; then Cancel while that render runs: the
#     image unchanged;
#  3. OK pressed while the first preview is still rendering, with saved
#     expert options: the same pixels as RUN-WITH-LAST-VALS with them,
#     which differ from the defaults' (the options apply);
#  4. Reset: back to the defaults (camera noise, strengths 1), the
#     preview waits for the measured profile, and OK gives the pixels of
#     plug-in-bm3d-denoise-camera with the defaults;
#  5. Estimate (when the engine can estimate): sets sigma, previews it,
#     and OK gives the pixels of the procedure's sigma 0 (estimate,
#     then denoise);
#  6. Estimate and OK at once, from a saved sigma of 60: OK waits for
#     the estimate, and gives the pixels of sigma 0 too;
#  7. the Noise choice, from saved camera noise (strength 1.5, chroma
#     strength 0.75): the profile is measured and shown, the preview
#     filters it; white noise chosen with the keyboard previews sigma,
#     camera noise again previews the profile without measuring anew; a
#     typed strength of 2 is previewed, a drag of the strength slider
#     shows the fast mode, and OK gives the pixels of the
#     non-interactive camera call, which the last preview tile equals.
# A screenshot of the first dialog is kept (BM3D_DIALOG_SCREENSHOT=FILE
# copies it out).  Skipped without xvfb-run, xdotool, dbus-run-session
# and ImageMagick's import.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-.}/tests/gimp-lib.sh"

title='^BM3D Denoise$'

# wait_rest_request SECONDS: until the current dialog has requested the
# chosen mode after the slider's last change.
wait_rest_request ()
{
  local i
  for i in $(seq 1 $(( $1 * 10 ))); do
    session_log | awk '/ sigma value/ { n = 0 } / request .* fast=0 / { n++ }
                       END { exit !n }' && return 0
    sleep 0.1
  done
  note "timed out waiting for the request after the drag"
  return 1
}

# A drag of the sigma slider (or of SLIDER: strength) with the middle
# button (GTK moves the slider to the pointer and follows it), 20 steps
# of 4 pixels.  Each step's round trip, as the shell sees it (xdotool's
# start-up included), goes to drag.out (drag-SLIDER.out); the dialog
# logs the age of each event it handled.
drag_slider ()
{
  local name=${1:-sigma} geometry x y h i before now t0 t1
  local out=$work/drag.out
  test "$name" = sigma || out=$work/drag-$name.out
  geometry=$(session_log | grep -m 1 "geometry $name-scale")
  x=$(echo "$geometry" | sed 's/.* x=\([0-9]*\).*/\1/')
  y=$(echo "$geometry" | sed 's/.* y=\([0-9]*\).*/\1/')
  h=$(echo "$geometry" | sed 's/.* height=\([0-9]*\).*/\1/')
  y=$((y + h / 2)) x=$((x + 30))
  xdotool mousemove "$x" "$y" mousedown 2
  sleep 0.1
  echo "drag-start $(session_log | grep -c " $name value")" >> "$out"
  for i in $(seq 1 20); do
    before=$(session_log | grep -c " $name value")
    t0=$(date +%s%N)
    xdotool mousemove $((x + 4 * i)) "$y"
    while now=$(session_log | grep -c " $name value"); test "$now" -le "$before"
    do
      test $(( ($(date +%s%N) - t0) / 1000000 )) -gt 5000 && break
    done
    t1=$(date +%s%N)
    echo "step $i round-trip-ms $(( (t1 - t0) / 1000000 ))" >> "$out"
    sleep 0.1
  done
  # On a slow machine the fast render may outlast 20 steps: keep the
  # slider moving (a pixel either way) until one has shown, 30 s at most.
  for i in $(seq 1 200); do
    session_log | grep -q -E 'drawn .* fast=1 ' && break
    xdotool mousemove $((x + 80 + i % 2)) "$y"
    sleep 0.15
  done
  xdotool mouseup 2
}

inner ()
{
  local log=$1 gimp_pid window requests
  shift
  gimp_runs=0
  run_gimp "$log" "$@" &
  gimp_pid=$!

  # 1. Starts from the saved sigma 40; 10 typed; OK.
  window=$(wait_window)
  note "dialog 1: ${window:-none}"
  if test -n "$window"; then
    focus "$window"
    wait_log 'drawn .* mode=bm3d fast=0 .*sigma=40 '
    type_sigma 10
    wait_log 'drawn .* mode=bm3d fast=0 .*sigma=10 ' \
      && cp "$work/tile" "$work/tile-10"
    # What the preview area shows, with Preview on, then off (Alt+P).
    sleep 0.5
    screen_shot "$work/screen-on.png"
    xdotool key alt+p
    sleep 1
    screen_shot "$work/screen-off.png"
    xdotool key alt+p
    # Alt+A opens the expert options, for the screenshot.
    xdotool key alt+a
    sleep 1
    import -window "$window" "$work/dialog.png" 2>> "$work/driver.out" || :
    xdotool key alt+o
    wait_gone
  fi

  # 2. A drag, then Cancel while the chosen mode renders.
  window=$(wait_window)
  note "dialog 2: ${window:-none}"
  if test -n "$window"; then
    focus "$window"
    wait_log 'geometry sigma-scale'
    # Wait for the chosen mode's request after the slider's last change,
    # then Cancel at once, while it renders.  Requests before it do not
    # count: the dialog's first preview, and those of the rest timer when
    # drag steps come more than 300 ms apart on a loaded machine.
    drag_slider
    wait_rest_request 10
    xdotool key alt+c
    wait_gone
  fi

  # 3. OK while the first preview renders (saved expert options).
  window=$(wait_window)
  note "dialog 3: ${window:-none}"
  if test -n "$window"; then
    focus "$window"
    wait_log 'request '
    xdotool key alt+o
    wait_gone
  fi

  # 4. Reset, then OK.
  window=$(wait_window)
  note "dialog 4: ${window:-none}"
  if test -n "$window"; then
    focus "$window"
    wait_log 'drawn '
    xdotool key alt+r
    wait_log 'drawn .* mode=bm3d fast=0 .*noise=camera strength=1 chroma-strength=1$'
    xdotool key alt+o
    wait_gone
  fi

  # 5. Estimate, then OK; Escape when the engine cannot estimate.
  window=$(wait_window)
  note "dialog 5: ${window:-none}"
  if test -n "$window"; then
    focus "$window"
    wait_log ' probe '
    if session_log | grep -q ' probe .* estimate=1'; then
      xdotool key alt+e
      wait_log ' estimate sigma='
      estimate=$(session_log | sed -n 's/.* estimate sigma=\([^ ]*\).*/\1/p')
      wait_log "drawn .* mode=bm3d fast=0 .*sigma=$estimate "
      xdotool key alt+o
    else
      xdotool key Escape
    fi
    wait_gone
  fi

  # 6. Estimate and OK at once (saved sigma 60): OK waits for the
  # estimate.  Escape when the engine cannot estimate.
  window=$(wait_window)
  note "dialog 6: ${window:-none}"
  if test -n "$window"; then
    focus "$window"
    wait_log ' probe '
    if session_log | grep -q ' probe .* estimate=1'; then
      xdotool key alt+e alt+o
    else
      xdotool key Escape
    fi
    wait_gone
  fi

  # 7. The Noise choice: camera (saved), white, camera; a typed strength,
  # a drag; OK.
  window=$(wait_window)
  note "dialog 7: ${window:-none}"
  if test -n "$window"; then
    focus "$window"
    wait_log 'drawn .* mode=bm3d fast=0 .*noise=camera strength=1.5 chroma-strength=0.75$' \
      && cp "$work/tile" "$work/tile-camera"
    # Alt+Y: the noise type; the arrow keys step through its choices
    # (camera noise first, then white).
    xdotool key alt+y Down
    wait_log 'drawn .* mode=bm3d fast=0 .*noise=white '
    xdotool key alt+y Up
    wait_more 'drawn .* mode=bm3d fast=0 .*noise=camera ' 1
    # Alt+T: the strength's spin button.
    xdotool key alt+t ctrl+a
    xdotool type --delay 50 2
    xdotool key Tab
    wait_log 'drawn .* mode=bm3d fast=0 .*noise=camera strength=2 ' \
      && cp "$work/tile" "$work/tile-strength-2"
    drag_slider strength
    # Back to 2 for OK, typed again, and its preview.
    xdotool key alt+t ctrl+a
    xdotool type --delay 50 2
    xdotool key Tab
    wait_more 'drawn .* mode=bm3d fast=0 .*noise=camera strength=2 ' 1
    xdotool key alt+o
    wait_gone
  fi
  wait "$gimp_pid"
}

dialog_setup "$@"

# Saved values (tests/gimp-lib.sh): sigma 40, BM3D, CPU; then sigma 20
# with expert options that make BM3D slower than its defaults (so that
# OK surely comes while the first preview renders): search window 51,
# groups 8 and 16, step 2, lambda 3.0, chroma scale 1.5.
saved_40=$(saved_values 40 0 1)
saved_expert=$(saved_values 20 0 1 1 51 8 16 2 3.0 1.5)
saved_60=$(saved_values 60 0 0)
# White noise of sigma 25, as Reset used to leave it (dialog 5), and
# camera noise with strength 1.5, chroma strength 0.75, BM3D, CPU
# (dialog 7).
saved_25=$(saved_values 25 0 0)
saved_camera=$(saved_values 25 0 1 1 0 0 0 0 0 0 3 1 1.5 0.75)

denoise ()  # RUN-MODE SIGMA MODE BACKEND OUT
{
  echo "(t-denoise \"$noisy\" $u8 #f $1 $2 $3 $4 #f \"$work/$5.raw\")"
}

dialog_log=$work/dialog.log
log=$work/gimp.log
: > "$work/driver.out"
: > "$work/drag.out"
: > "$dialog_log"
export work dialog_log title
# -noreset: otherwise the server resets whenever its last client leaves
# (between dialogs only xdotool's polls come and go), and a plug-in that
# connects during the reset is refused, which GIMP reports as a crash.
BM3D_DIALOG_LOG=$dialog_log BM3D_DIALOG_TILE=$work/tile \
timeout 900 xvfb-run -a -s "-screen 0 1280x900x24 -noreset" \
  dbus-run-session -- bash "$0" --inner "$log" \
  "(t-set-last-values $saved_40)" \
  "$(denoise RUN-INTERACTIVE 99.0 7 7 interactive)" \
  "$(denoise RUN-WITH-LAST-VALS 99.0 7 7 last)" \
  "$(denoise RUN-NONINTERACTIVE 10.0 0 1 typed)" \
  "(t-try \"$noisy\" $u8 RUN-INTERACTIVE 99.0 7 7
          \"$work/cancel-before.raw\" \"$work/cancel-after.raw\")" \
  "(t-set-last-values $saved_expert)" \
  "$(denoise RUN-WITH-LAST-VALS 99.0 7 7 expert-last)" \
  "$(denoise RUN-NONINTERACTIVE 20.0 0 1 expert-plain)" \
  "$(denoise RUN-INTERACTIVE 99.0 7 7 expert-dialog)" \
  "$(denoise RUN-INTERACTIVE 99.0 7 7 reset)" \
  "(t-denoise-camera \"$noisy\" $u8 #f RUN-NONINTERACTIVE 1.0 1.0 0 0 #f
                     \"$work/camera-defaults.raw\")" \
  "(t-set-last-values $saved_25)" \
  "(t-try \"$noisy\" $u8 RUN-INTERACTIVE 99.0 7 7
          \"$work/estimate-before.raw\" \"$work/estimate-dialog.raw\")" \
  "(t-try \"$noisy\" $u8 RUN-NONINTERACTIVE 0.0 0 0
          \"$work/sigma0-before.raw\" \"$work/sigma0.raw\")" \
  "(t-set-last-values $saved_60)" \
  "(t-try \"$noisy\" $u8 RUN-INTERACTIVE 99.0 7 7
          \"$work/estimate-ok-before.raw\" \"$work/estimate-ok.raw\")" \
  "(t-set-last-values $saved_camera)" \
  "$(denoise RUN-INTERACTIVE 99.0 7 7 noise-dialog)" \
  "(t-denoise-camera \"$noisy\" $u8 #f RUN-NONINTERACTIVE 2.0 0.75 0 1 #f
                     \"$work/camera-typed.raw\")" \
  2> "$work/xvfb.err"
echo "# xvfb-run exited with status $?"

check "GIMP ran without a plug-in crash" no_crash "$log"
for k in 1 2 3 4 5 6 7; do
  check "dialog $k appeared" grep -q "dialog $k: [0-9]" "$work/driver.out"
done
for k in 1 2 3 4 6 7 8 9 10 11 12 13 14 15 16 17 18 19; do
  check "batch command $k succeeded" is_ok "$log" $k
done

# 1.
check "the dialog started from the saved values (sigma 40, BM3D)" \
  grep -q -E 'drawn .* mode=bm3d fast=0 .*sigma=40 ' <(session 1)
check "the preview is 400 x 400" \
  grep -q -E 'drawn .* width=400 height=400 ' <(session 1)
check "the typed noise level was previewed in the chosen mode" \
  test -s "$work/tile-10"
check "OK ran the dialog's values (saved mode and backend, typed sigma)" \
  cmp "$work/interactive.raw" "$work/typed.raw"
check "the dialog's values were saved for RUN-WITH-LAST-VALS" \
  cmp "$work/last.raw" "$work/typed.raw"
check "the preview tile equals the final result on its area" \
  "$pixels" tile-matches "$work/tile-10" "$work/interactive.raw" $geometry
"$pixels" crop "$noisy" "$work/original-400.png" 0 0 400 400 || exit 1
check "with Preview on, the screen shows the tile" \
  "$pixels" tile-matches "$work/tile-10" "$work/screen-on.png" -
check "with Preview off, the screen shows the original" \
  test "$("$pixels" psnr "$work/original-400.png" "$work/screen-off.png")" \
       = 999.0000
check "a screenshot of the dialog was taken" test -s "$work/dialog.png"
if test -n "${BM3D_DIALOG_SCREENSHOT:-}" && test -s "$work/dialog.png"; then
  cp "$work/dialog.png" "$BM3D_DIALOG_SCREENSHOT"
fi

# 2.  The sigma lines after the press: one per step.
drag_start=$(sed -n 's/^drag-start //p' "$work/drag.out")
session 2 | grep ' sigma value' | tail -n +"$(( ${drag_start:-0} + 1 ))" \
  > "$work/drag-steps.log"
ages=$(sed -n 's/.*event-age-ms=\([0-9-]*\).*/\1/p' "$work/drag-steps.log" \
       | tr '\n' ' ')
echo "# drag: event age when handled (ms): $ages"
echo "# drag: round trips seen by the shell (ms, xdotool's start-up" \
     "included): $(sed -n 's/.*round-trip-ms //p' "$work/drag.out" | tr '\n' ' ')"
echo "# dialog 2: $(session 2 | grep -o 'longest-stall-ms=.*')"
check "a drag of 20 steps gave 20 noise level changes" \
  test "$(wc -l < "$work/drag-steps.log")" -ge 20
# A bound on time measures the machine as much as the code: at load 20
# on 2 cores a few steps waited 100 ms for the CPU.  What this guards is
# that the main thread never waits for a render (which takes 20 to
# 600 ms): the median step within 50 ms and none held for half a second.
# The preview's latency goals are measured by bench/dialog-latency.sh.
check "the dialog handled the steps at once (median within 50 ms, none over 500)" \
  awk '{ age[n++] = $1 + 0; if ($1 + 0 > 500) bad++ }
       END { exit !(n >= 20 && !bad && age[int (n / 2)] <= 50) }' \
  <(echo "$ages" | tr ' ' '\n' | grep . | sort -n)
check "the fast mode was shown while the slider moved" \
  grep -q -E 'drawn .* fast=1 ' <(session 2)
# From the slider's last change on (the mouse-up), as the driver waited.
session 2 | awk '/ sigma value/ { n = NR } { line[NR] = $0 }
                 END { for (i = n + 1; i <= NR; i++) print line[i] }' \
  > "$work/after-drag.log"
check "the chosen mode was requested when the slider rested" \
  grep -q -E 'request .* mode=bm3d fast=0 .*sigma=' "$work/after-drag.log"
check "Cancel was pressed while that preview rendered" \
  awk '/ request .* fast=0 / { r = $0 } / drawn / { r = "" }
       / close response=-6 / { c = 1 }
       END { exit !(c && r != "") }' "$work/after-drag.log"
check "Cancel left the image unchanged" \
  cmp "$work/cancel-before.raw" "$work/cancel-after.raw"

# 3.
check "OK was pressed while the first preview rendered" \
  awk '/ drawn / { d = 1 } / close response=-5 / { c = 1 }
       END { exit !(c && !d) }' <(session 3)
check "OK with saved expert options: the pixels of RUN-WITH-LAST-VALS" \
  cmp "$work/expert-dialog.raw" "$work/expert-last.raw"
check "the expert options apply (the pixels differ from the defaults')" \
  files_differ "$work/expert-last.raw" "$work/expert-plain.raw"

# 4.
check "Reset restored the defaults (camera noise, strengths 1, BM3D, automatic backend)" \
  grep -q -E 'drawn .* mode=bm3d fast=0 .*backend=.*noise=camera strength=1 chroma-strength=1$' <(session 4)
check "Reset, OK: the pixels of plug-in-bm3d-denoise-camera with the defaults" \
  cmp "$work/reset.raw" "$work/camera-defaults.raw"

# 5.
if grep -q ' probe .* estimate=1' <(session 5); then
  check "Estimate set the slider and the preview followed" \
    grep -q -E 'drawn .* mode=bm3d fast=0 ' <(sed -n '/ estimate sigma=/,$p' <(session 5))
  check "Estimate, then OK: the pixels of the procedure's sigma 0" \
    cmp "$work/estimate-dialog.raw" "$work/sigma0.raw"
  # 6.  When the estimate came before the OK press was handled, the
  # dialog did not need to wait: said, not failed.
  grep -q ' wait-estimate' <(session 6) \
    || echo "# dialog 6: the estimate finished before OK was handled"
  check "Estimate and OK at once: OK waited, the pixels of sigma 0" \
    cmp "$work/estimate-ok.raw" "$work/sigma0.raw"
else
  ok "# SKIP Estimate: the engine cannot estimate the noise level yet"
  check "without an estimator the Estimate button is off and sigma 0 refused" \
    grep -q 'Estimating the noise level is not implemented yet' "$log"
fi

# 7.
check "camera noise: the profile was measured on opening" \
  grep -q -E ' estimate-profile luma=[0-9.]+ chroma=[0-9.]+ ' <(session 7)
check "camera noise: the preview waited for it and filtered it" \
  test -s "$work/tile-camera"
check "white noise chosen: previewed with sigma" \
  grep -q -E 'drawn .* mode=bm3d fast=0 .*sigma=25 .*noise=white ' <(session 7)
check "camera noise chosen again: previewed, the profile not measured anew" \
  test "$(session 7 | grep -c ' estimate-profile ')" = 1
check "the typed strength 2 was previewed" test -s "$work/tile-strength-2"
check "a drag of the strength slider showed the fast mode" \
  grep -q -E 'drawn .* fast=1 .*noise=camera ' <(session 7)
check "OK: the pixels of the non-interactive camera call (strength 2, chroma 0.75)" \
  cmp "$work/noise-dialog.raw" "$work/camera-typed.raw"
check "the strength-2 preview tile equals the final result on its area" \
  "$pixels" tile-matches "$work/tile-strength-2" "$work/noise-dialog.raw" \
  $geometry

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$log"
  sed 's/^/# driver: /' "$work/driver.out"
  sed 's/^/# dialog: /' "$dialog_log"
  sed 's/^/# xvfb-run: /' "$work/xvfb.err"
fi
finish
