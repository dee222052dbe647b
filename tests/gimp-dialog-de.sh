#!/bin/bash
# The dialog in German (LANGUAGE=de, the build's catalogue): its window
# is named "BM3D-Entrauschen", the translated title, found with
# xdotool.  The window is then closed (Escape, as the window manager's
# close does) while the first preview renders: no crash, the image
# unchanged.  Where the GEGL operation is built, it is installed as a
# user's would be: the plug-in loads GEGL's modules too, and the module
# must not take the plug-in's catalogue away.  Skipped without xvfb-run,
# xdotool and dbus-run-session.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-.}/tests/gimp-lib.sh"

title='^BM3D-Entrauschen$'

inner ()
{
  local log=$1 gimp_pid window i
  shift
  gimp_runs=0
  # gimp-checks.sh chose English; this GIMP speaks German.
  LANGUAGE=de run_gimp "$log" "$@" &
  gimp_pid=$!
  window=$(timeout 180 xdotool search --sync --name "$title" 2> /dev/null \
           | head -n 1)
  echo "dialog: ${window:-none}" >> "$work/driver.out"
  if test -n "$window"; then
    xdotool windowfocus --sync "$window" 2>> "$work/driver.out" || :
    for i in $(seq 1 600); do
      grep -q ' request ' "$dialog_log" && break
      sleep 0.1
    done
    xdotool key Escape
  else
    # Whatever opened, close it so that GIMP can finish.
    for window in $(xdotool search --name 'BM3D' 2> /dev/null); do
      xdotool getwindowname "$window" >> "$work/driver.out" 2>&1
      xdotool windowfocus --sync "$window" 2> /dev/null
      xdotool key Escape
    done
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
catalogue=$top_builddir/po/de.gmo
test -f "$catalogue" || catalogue=$top_srcdir/po/de.gmo
test -f "$catalogue" || skip_all "po/de.gmo not built"
setup_gimp

module=$top_builddir/plugin/bm3d-denoise-gegl.so
if test -f "$module"; then
  mkdir -p "$XDG_DATA_HOME/gegl-0.4/plug-ins"
  cp "$module" "$XDG_DATA_HOME/gegl-0.4/plug-ins/"
fi

# The uninstalled catalogue, where the plug-in is told to look.
mkdir -p "$work/locale/de/LC_MESSAGES"
cp "$catalogue" "$work/locale/de/LC_MESSAGES/bm3d-denoise-gimp.mo"

"$command" --add-noise 20 --seed 7 "$top_srcdir/tests/data/astronaut.png" \
  "$work/noisy.png" > /dev/null || exit 1

dialog_log=$work/dialog.log
log=$work/gimp.log
: > "$work/driver.out"
: > "$dialog_log"
export work dialog_log
# -noreset: no server reset when the last client leaves (see
# tests/gimp-dialog.sh).
BM3D_DENOISE_LOCALEDIR=$work/locale BM3D_DIALOG_LOG=$dialog_log \
timeout 600 xvfb-run -a -s "-screen 0 1280x900x24 -noreset" \
  dbus-run-session -- bash "$0" --inner "$log" \
  "(t-try \"$work/noisy.png\" PRECISION-U8-GAMMA RUN-INTERACTIVE 99.0 7 7
          \"$work/before.raw\" \"$work/after.raw\")" \
  2> "$work/xvfb.err"
echo "# xvfb-run exited with status $?"

check "GIMP ran without a plug-in crash" no_crash "$log"
check "the dialog's window is named in German: BM3D-Entrauschen" \
  grep -q "dialog: [0-9]" "$work/driver.out"
check "the window was closed while the first preview rendered" \
  awk '/ drawn / { d = 1 } / close response=-4 / { c = 1 }
       END { exit !(c && !d) }' "$dialog_log"
check "closing left the image unchanged" \
  cmp "$work/before.raw" "$work/after.raw"

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$log"
  sed 's/^/# driver: /' "$work/driver.out"
  sed 's/^/# dialog: /' "$dialog_log"
  sed 's/^/# xvfb-run: /' "$work/xvfb.err"
fi
finish
