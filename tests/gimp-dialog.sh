#!/bin/bash
# The dialog under a virtual display: it opens (preview included), starts
# from the last values, takes a new noise level typed into it, runs what
# it shows on OK, and saves those values for RUN-WITH-LAST-VALS.
# Skipped without xvfb-run, xdotool and dbus-run-session.
. "${top_srcdir:-.}/tests/gimp-lib.sh"

inner ()
{
  local log=$1 gimp_pid window
  shift
  gimp_runs=0
  run_gimp "$log" "$@" &
  gimp_pid=$!
  # The dialog's title is its name; --sync waits until it is mapped.
  window=$(timeout 120 xdotool search --sync --name '^BM3D Denoise$' \
             | head -n 1)
  if test -n "$window"; then
    echo "dialog-window: $window" >> "$work/dialog.out"
    # Let the preview render (it follows the dialog by a moment).
    sleep 3
    if command -v import > /dev/null 2>&1; then
      import -window root "$work/dialog.png" 2>> "$work/dialog.out" || :
    fi
    # No window manager here: give the dialog the keyboard directly, then
    # send real key presses.  Alt+N: the "Noise level" field; type 10;
    # Tab commits it; Alt+O: the OK button.
    xdotool windowfocus --sync "$window" 2>> "$work/dialog.out" || :
    xdotool key alt+n ctrl+a
    xdotool type --delay 50 "10"
    xdotool key Tab
    sleep 1
    xdotool key alt+o
  else
    echo "dialog-window: none" >> "$work/dialog.out"
  fi
  wait "$gimp_pid"
}

if test "${1:-}" = --inner; then
  # Run under xvfb-run by the outer part below, with its environment.
  shift
  inner "$@"
  exit 0
fi

require_tools
for tool in xvfb-run xdotool dbus-run-session; do
  command -v $tool > /dev/null 2>&1 || skip_all "$tool not found"
done
setup_gimp
make_inputs

rgb=$work/noisy-rgb.png
u8=PRECISION-U8-GAMMA
foreign="#(2 0 0 0  1 0 0 0  1 0 0 0  0 0 0 0  0 0 0 0 0 0 36 64)"
saved_40="#(1 0 0 0  0 0 0 0  1 0 0 0  0 0 0 0  0 0 0 0 0 0 68 64)"
log=$work/gimp.log
: > "$work/dialog.out"

# Saved sigma 40 (BM3D, CPU) is what the dialog must start from; the user
# then types 10.  The other batch commands give the references.
export work
timeout 300 xvfb-run -a -s "-screen 0 1280x900x24" \
  dbus-run-session -- bash "$0" --inner "$log" \
  "(t-set-last-values $saved_40)" \
  "(t-denoise \"$rgb\" $u8 #f RUN-INTERACTIVE 99.0 7 7 #f \"$work/interactive.raw\")" \
  "(t-denoise \"$rgb\" $u8 #f RUN-WITH-LAST-VALS 99.0 7 7 #f \"$work/last.raw\")" \
  "(t-denoise \"$rgb\" $u8 #f RUN-NONINTERACTIVE 10.0 0 1 #f \"$work/typed.raw\")" \
  2> "$work/xvfb.err"
echo "# xvfb-run exited with status $?"

check "GIMP ran without a plug-in crash" no_crash "$log"
check "the dialog appeared" grep -q "dialog-window: [0-9]" "$work/dialog.out"
for k in 1 2 3 4; do
  check "batch command $k succeeded" is_ok "$log" $k
done
check "OK ran the values in the dialog (saved mode and backend, typed sigma)" \
  cmp "$work/interactive.raw" "$work/typed.raw"
check "the dialog's values were saved for RUN-WITH-LAST-VALS" \
  cmp "$work/last.raw" "$work/typed.raw"

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$log"
  sed 's/^/# dialog: /' "$work/dialog.out"
  sed 's/^/# xvfb-run: /' "$work/xvfb.err"
fi
finish
