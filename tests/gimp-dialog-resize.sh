#!/bin/bash
# The dialog's window enlarged and shrunk while preview renders finish:
# GimpScrolledPreview takes its new size at once but asks for a new
# render only 200 ms later, so results for the old rectangle keep
# arriving; the dialog must drop them rather than draw them at the new
# size (a read past the tile's buffer, which an ASan build of the
# plug-in reports: the sanitizer's report fails the test).  Then OK: the
# pixels of the non-interactive call.  Skipped without xvfb-run, xdotool
# and dbus-run-session.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-.}/tests/gimp-lib.sh"

title='^BM3D Denoise$'

note ()
{
  echo "$*" >> "$work/driver.out"
}

inner ()
{
  local log=$1 gimp_pid window i size
  shift
  gimp_runs=0
  run_gimp "$log" "$@" &
  gimp_pid=$!
  window=$(timeout 180 xdotool search --sync --name "$title" 2> /dev/null \
           | head -n 1)
  note "dialog: ${window:-none}"
  if test -n "$window"; then
    xdotool windowfocus --sync "$window" 2>> "$work/driver.out" || :
    for i in $(seq 1 1200); do
      grep -q ' drawn ' "$dialog_log" && break
      sleep 0.1
    done
    # Alt+N: the noise level's spin button, where Up raises sigma by
    # 0.5: each press asks for a fast render of the current rectangle.
    # The window is resized by the same xdotool call, 0 to 950 ms later
    # (so that, however long a render takes on this machine and build,
    # some finish in the 200 ms before the preview asks for its new
    # size); larger and smaller by turns.
    xdotool key alt+n
    for i in $(seq 0 19); do
      case $((i % 3)) in
        0) size="1000 760" ;;
        1) size="1180 840" ;;
        2) size="1260 880" ;;
      esac
      xdotool key Up sleep "$(printf '0.%02d' $((i * 5)))" \
        windowsize "$window" $size 2>> "$work/driver.out"
      sleep 0.6
      note "resize $i: $size"
    done
    # OK once the last size's preview is drawn (2 minutes at most).
    for i in $(seq 1 1200); do
      size=$(grep ' request ' "$dialog_log" | tail -n 1 \
             | sed 's/.* \(width=[0-9]* height=[0-9]*\).*/\1/')
      grep -q " drawn .* $size " "$dialog_log" && break
      sleep 0.1
    done
    xdotool key alt+o
  fi
  wait "$gimp_pid"
}

if test "${1:-}" = --inner; then
  shift
  inner "$@"
  exit 0
fi

require_tools
for tool in xvfb-run xdotool dbus-run-session; do
  command -v $tool > /dev/null 2>&1 || skip_all "$tool not found"
done
setup_gimp

# A 1600 x 1200 noisy photograph: the preview can grow in both directions.
"$command" --add-noise 20 --seed 7 "$top_srcdir/tests/data/astronaut.png" \
  "$work/noisy.png" > /dev/null || exit 1

# Saved values: sigma 20, the isoline mode (the fastest: every render
# is short, so that many finish around a resize), CPU.
saved=$(saved_values 20 3 1 1)
scaled ()  # RUN-MODE OUT
{
  echo "(let* ((image (t-load \"$work/noisy.png\")))
          (gimp-image-scale image 1600 1200)
          (plug-in-bm3d-denoise $1 image (t-drawable image) 99.0 7 7)
          (t-dump image \"$work/$2.raw\")
          (gimp-image-delete image))"
}

dialog_log=$work/dialog.log
log=$work/gimp.log
: > "$work/driver.out"
: > "$dialog_log"
export work dialog_log title
# -noreset: no server reset when the last client leaves (see
# tests/gimp-dialog.sh).  Leaks are not this test's business: GTK's own
# would fill the log.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} BM3D_DIALOG_LOG=$dialog_log \
timeout 600 xvfb-run -a -s "-screen 0 1280x900x24 -noreset" \
  dbus-run-session -- bash "$0" --inner "$log" \
  "(t-set-last-values $saved)" \
  "$(scaled RUN-INTERACTIVE dialog)" \
  "$(scaled RUN-WITH-LAST-VALS last)" \
  2> "$work/xvfb.err"
echo "# xvfb-run exited with status $?"

sizes=$(sed -n 's/.* drawn .* width=\([0-9]*\) height=\([0-9]*\) .*/\1x\2/p' \
        "$dialog_log" | sort | uniq -c | tr -s ' \n' ' ')
echo "# previews drawn, by size: $sizes"
echo "# results dropped for an old rectangle:" \
     "$(grep -c ' dropped .* reason=moved' "$dialog_log")"

check "GIMP ran without a plug-in crash" no_crash "$log"
check "no sanitizer report" \
  bash -c "! grep -n -E 'AddressSanitizer|runtime error:|LeakSanitizer' '$log'"
check "the dialog appeared" grep -q "dialog: [0-9]" "$work/driver.out"
for k in 1 2 3; do
  check "batch command $k succeeded" is_ok "$log" $k
done
check "the preview was drawn at more than one size" \
  test "$(echo "$sizes" | wc -w)" -ge 4
check "OK after the resizes: the pixels of RUN-WITH-LAST-VALS" \
  cmp "$work/dialog.raw" "$work/last.raw"

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$log"
  sed 's/^/# driver: /' "$work/driver.out"
  sed 's/^/# dialog: /' "$dialog_log"
  sed 's/^/# xvfb-run: /' "$work/xvfb.err"
fi
finish
