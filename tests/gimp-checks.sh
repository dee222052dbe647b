# The checks the GIMP 2.10 and the GIMP 3 tests share; sourced, not run,
# by tests/gimp-lib.sh (GIMP 2.10) and tests/gimp3-lib.sh (GIMP 3),
# which say how each GIMP is installed into, run and called.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
# Each test installs the freshly built plug-in into a folder of its own
# (never the build folder: GIMP would try to run everything in it), runs
# real GIMP headless with an isolated configuration, and reads GIMP's
# output: success is "batch command executed successfully" for every
# command, no "Plug-in crashed", and pixels that pass the checks.
#
# What each GIMP's library sets before a test runs:
#   gimp_console      the gimp-console program
#   gimp_work_name    the name the work folder starts with
#   gimp_scripts      the Script-Fu files installed, relative to top_srcdir
#   install_extras    (a function, given the plug-in's folder) what else
#                     the plug-in needs beside it
#   run_gimp          (a function) one gimp-console, LOG EXPRESSION...
#   u8 u16 f32 f32_linear   the precisions, by that GIMP's names
#   bm3d_auto         mode BM3D on the automatic backend, as that GIMP's
#                     procedure arguments spell them
#
# Needs top_builddir and top_srcdir (exported by `make check`).

set -u

: "${top_builddir:?run through make check, or set top_builddir}"
: "${top_srcdir:?run through make check, or set top_srcdir}"

plugin=$top_builddir/plugin/bm3d-denoise-gimp
command=$top_builddir/cli/bm3d-denoise
pixels=$top_builddir/tests/gimp-pixels

# Messages in English, whatever the machine's language.
LC_ALL=C.UTF-8
LANGUAGE=
export LC_ALL LANGUAGE

tap_count=0
tap_failed=0

skip_all ()
{
  echo "1..0 # SKIP $*"
  exit 0
}

ok ()
{
  tap_count=$((tap_count + 1))
  echo "ok $tap_count - $*"
}

not_ok ()
{
  tap_count=$((tap_count + 1))
  tap_failed=$((tap_failed + 1))
  echo "not ok $tap_count - $*"
}

# check DESCRIPTION COMMAND...: one TAP line; the command's output becomes
# diagnostics when it fails.
check ()
{
  local description=$1
  shift
  if "$@" > "$work/check.out" 2>&1; then
    ok "$description"
  else
    not_ok "$description"
    sed 's/^/#   /' "$work/check.out"
  fi
}

finish ()
{
  echo "1..$tap_count"
  exit 0
}


require_tools ()
{
  command -v "$gimp_console" > /dev/null 2>&1 \
    || skip_all "$gimp_console not found"
  command -v timeout > /dev/null 2>&1 || skip_all "timeout not found"
  test -x "$plugin" || skip_all "plug-in not built ($plugin)"
  test -x "$command" || skip_all "bm3d-denoise not built ($command)"
  test -x "$pixels" || skip_all "tests/gimp-pixels not built (needs libpng)"
}


# A work folder with the test installation: plug-ins/NAME/NAME, the
# Script-Fu files ($gimp_scripts), and a gimprc pointing at them.
setup_gimp ()
{
  local plugdir script
  work=$(mktemp -d "${TMPDIR:-/tmp}/$gimp_work_name.XXXXXX") || exit 1
  if test -z "${KEEP_TEST_FILES:-}"; then
    trap 'rm -rf "$work"' EXIT
  else
    echo "# test files kept in $work"
  fi

  # The user's data folder, where GEGL finds modules at start, is the
  # test's own: a bm3d:denoise the machine's user installed stays out.
  export XDG_DATA_HOME=$work/data
  plugdir=$work/install/plug-ins/bm3d-denoise-gimp
  mkdir -p "$plugdir" "$work/install/scripts" "$XDG_DATA_HOME"
  cp "$plugin" "$plugdir/bm3d-denoise-gimp"
  chmod 755 "$plugdir/bm3d-denoise-gimp"
  install_extras "$plugdir"
  for script in $gimp_scripts; do
    cp "$top_srcdir/$script" "$work/install/scripts/"
  done

  cat > "$work/gimprc" <<EOF2
(plug-in-path "\${gimp_dir}/plug-ins:\${gimp_plug_in_dir}/plug-ins:$work/install/plug-ins")
(script-fu-path "\${gimp_dir}/scripts:\${gimp_data_dir}/scripts:$work/install/scripts")
EOF2
  gimp_runs=0
}

# set_batch_args EXPRESSION...: batch_args=(-b EXPRESSION ...), one
# batch command an expression, for run_gimp.
set_batch_args ()
{
  local arg
  batch_args=()
  for arg in "$@"; do
    batch_args+=(-b "$arg")
  done
}

# batch_result LOG K: "ok" or "error" for the K-th batch command.
batch_result ()
{
  grep -E '^batch command (executed successfully|experienced an execution error)' "$1" \
    | sed -n "${2}p" \
    | sed -e 's/.*executed successfully.*/ok/' -e 's/.*execution error.*/error/'
}

# batch_said LOG K: for the name of a check that failed, what GIMP said
# of the K-th batch command: " (batch command K: ok)", or its error's
# first line, or " (batch command K: no result)".
batch_said ()
{
  local said
  said=$(awk -v k="$2" '
    /^batch command (executed successfully|experienced an execution error)/ {
      if (++n < k) next
      if (/successfully/) { print "ok"; exit }
      getline line; print "error: " substr(line, 1, 160); exit
    }' "$1")
  echo " (batch command $2: ${said:-no result})"
}

# is_ok LOG K: the K-th batch command succeeded.
is_ok ()
{
  local result
  result=$(batch_result "$1" "$2")
  test "$result" = ok || { echo "batch command $2: ${result:-no result}"; return 1; }
}

# no_crash LOG: the plug-in never crashed and GIMP did not time out.
no_crash ()
{
  if grep -n -E 'Plug-in crashed|core dumped|Terminated' "$1"; then
    return 1
  fi
  return 0
}

files_differ ()
{
  if cmp -s "$1" "$2"; then
    echo "$1 and $2 are identical"
    return 1
  fi
}

# at_least A B: A >= B (decimal numbers), printing both.
at_least ()
{
  echo "$1 >= $2 ?"
  awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'
}

# The inputs: a colour and a gray crop of the sample image, noise of
# sigma 25 added by the command, alpha added on top for the *a layouts,
# and the command's own result and PSNR on each noisy input.
make_inputs ()
{
  local layout
  "$pixels" crop "$top_srcdir/data/sample.png" "$work/clean-rgb.png" \
    150 40 128 128 || exit 1
  "$pixels" crop "$top_srcdir/data/sample.png" "$work/clean-gray.png" \
    150 40 128 128 gray || exit 1
  for layout in rgb gray; do
    "$command" --add-noise 25 --seed 7 "$work/clean-$layout.png" \
      "$work/noisy-$layout.png" || exit 1
    "$pixels" add-alpha "$work/noisy-$layout.png" "$work/noisy-${layout}a.png" \
      || exit 1
    cp "$work/clean-$layout.png" "$work/clean-${layout}a.png"
  done
}

# The files procedures' inputs, from make_inputs: $work/in holds a.png
# (RGB), b.png (gray), c.png (RGBA) and broken.png (not an image);
# $work/keep a copy of them, to show they were never overwritten.
make_file_list ()
{
  mkdir -p "$work/in" "$work/keep"
  cp "$work/noisy-rgb.png" "$work/in/a.png"
  cp "$work/noisy-gray.png" "$work/in/b.png"
  cp "$work/noisy-rgba.png" "$work/in/c.png"
  echo "not an image" > "$work/in/broken.png"
  cp -p "$work/in/"* "$work/keep/"
}

# The files procedures' inputs that tell imageio's path from GIMP's,
# from make_inputs (python3 needed): $work/in3 holds d.png (a wide-gamut
# profile, read by imageio), e.png (a Title chunk) and f.png (EXIF
# orientation 6), both left to GIMP's loader; and when the command
# writes JPEG, g.jpg (quality 87, 4:2:0) and h.jpg (the same with an
# APP3 marker the reader does not keep), listed in $jpegs.  Also makes
# $work/out3 and $work/single3 for their results.
make_reader_inputs ()
{
  mkdir -p "$work/in3" "$work/out3" "$work/single3"
  python3 "$top_srcdir/tests/gimp-saved.py" with-profile \
    "$work/noisy-rgb.png" "$work/in3/d.png" || exit 1
  python3 "$top_srcdir/tests/gimp-saved.py" with-title \
    "$work/noisy-rgb.png" "$work/in3/e.png" || exit 1
  python3 "$top_srcdir/tests/gimp-saved.py" with-turn \
    "$work/noisy-rgb.png" "$work/in3/f.png" || exit 1
  jpegs=
  if "$command" --convert --quality 87 "$work/noisy-rgb.png" \
       "$work/in3/g.jpg" 2> /dev/null; then
    python3 "$top_srcdir/tests/gimp-saved.py" with-app3 "$work/in3/g.jpg" \
      "$work/in3/h.jpg" || exit 1
    jpegs="$work/in3/g.jpg $work/in3/h.jpg"
  fi
}

# A Scheme list of the strings given: (list "A" "B" ...).
scheme_list ()
{
  local f out="(list"
  for f in "$@"; do
    out="$out \"$f\""
  done
  echo "$out)"
}

# command_psnr LAYOUT SIGMA MODE: the command's PSNR on the same noisy
# input (alpha plays no part in it, so the RGB/gray result serves the
# alpha layouts too).
command_psnr ()
{
  local base=${1%a} mode_name
  case $3 in
    0) mode_name=bm3d ;;
    1) mode_name=bm3d-fast ;;
  esac
  "$command" --sigma "$2" --mode "$mode_name" --backend auto \
    "$work/noisy-$base.png" "$work/command-$base-$2-$3.png" > /dev/null \
    || return 1
  "$pixels" psnr "$work/clean-$base.png" "$work/command-$base-$2-$3.png"
}

channels_of ()
{
  case $1 in
    rgb) echo 3 ;; rgba) echo 4 ;; gray) echo 1 ;; graya) echo 2 ;;
  esac
}


# outcome K: what the K-th t-try (tests/gimp-checks.scm) in $log said:
# "refused" or "accepted".
outcome ()
{
  grep -o 't-outcome: [a-z]*' "$log" | sed -n "${1}p" | sed 's/t-outcome: //'
}

# same_pixels A B: the two files hold the same pixels (the command's
# comparison: PSNR "inf" on the colour channels, alpha bit-exact).
same_pixels ()
{
  local psnr
  psnr=$("$command" --compare "$1" "$2") || return 1
  echo "PSNR $psnr"
  test "$psnr" = inf
}

# command_pixels IN RESULT: RESULT holds the pixels the command gives IN
# with sigma estimated (it denoises the file's own values, in its own
# colour space).
command_pixels ()
{
  local out="$work/command-$(basename "$1")"
  "$command" --sigma auto "$1" "$out" || return 1
  same_pixels "$out" "$2"
}

# The dialog tests' driver (tests/gimp-dialog.sh, tests/gimp3-dialog.sh):
# GIMP runs under a virtual display, xdotool presses the keys, and the
# dialog's own log ($dialog_log, BM3D_DIALOG_LOG) says what it did.  They
# set title (the window's name, a regular expression) and, in the driver,
# gimp_pid; notes go to $work/driver.out.

note ()
{
  echo "$*" >> "$work/driver.out"
}

# The dialog's window, once it exists; then until it is gone.  Polled,
# not `xdotool search --sync`: xdotool exits on an X error, which a
# search meets when a window of the previous dialog is destroyed while
# it walks the tree, and the --sync search then returned nothing at
# once (seen in about 1 run in 20: the driver's steps for the next
# dialog went to this one).
wait_window ()
{
  local i id
  for i in $(seq 1 1800); do
    id=$(xdotool search --name "$title" 2> /dev/null | head -n 1)
    if test -n "$id"; then
      echo "$id"
      return 0
    fi
    # GIMP gone: no dialog will come.
    if test -n "${gimp_pid:-}" && ! kill -0 "$gimp_pid" 2> /dev/null; then
      return 0
    fi
    sleep 0.1
  done
}

wait_gone ()
{
  local i
  for i in $(seq 1 600); do
    xdotool search --name "$title" > /dev/null 2>&1 || return 0
    sleep 0.1
  done
  note "the dialog did not close"
}

# The log lines of the dialog opened last.
session_log ()
{
  local n
  n=$(grep -n ' open ' "$dialog_log" | tail -n 1 | cut -d: -f1)
  tail -n +"${n:-1}" "$dialog_log"
}

# wait_more REGEX N [SECONDS]: until the current dialog has logged more
# than N such lines (a new one, where an older line would match too).
wait_more ()
{
  local i
  for i in $(seq 1 $(( ${3:-120} * 10 ))); do
    test "$(session_log | grep -c -E "$1")" -gt "$2" && return 0
    sleep 0.1
  done
  note "timed out waiting for more than $2 lines of: $1"
  return 1
}

# wait_log REGEX [SECONDS]: until the current dialog logs such a line.
wait_log ()
{
  wait_more "$1" 0 "${2:-120}"
}

focus ()
{
  # No window manager: give the dialog the keyboard directly.
  xdotool windowfocus --sync "$1" 2>> "$work/driver.out" || :
}

# Alt+N: the noise level's spin button; Tab commits what was typed.
type_sigma ()
{
  xdotool key alt+n ctrl+a
  xdotool type --delay 50 "$1"
  xdotool key Tab
}

# screen_shot FILE: the preview area's pixels, as on the screen.
# click_widget NAME: a click near the left end of the widget whose place
# the dialog log gave ("geometry NAME x= y= width= height="), halfway
# down: a check button's box.
click_widget ()
{
  local geometry x y h
  geometry=$(session_log | grep -m 1 "geometry $1 ")
  x=$(echo "$geometry" | sed 's/.* x=\([0-9]*\).*/\1/')
  y=$(echo "$geometry" | sed 's/.* y=\([0-9]*\).*/\1/')
  h=$(echo "$geometry" | sed 's/.* height=\([0-9]*\).*/\1/')
  test -n "$x" || { note "no geometry for $1"; return 1; }
  xdotool mousemove $((x + 8)) $((y + h / 2)) click 1
}

screen_shot ()
{
  local geometry x y w h
  geometry=$(session_log | grep -m 1 'geometry preview ')
  x=$(echo "$geometry" | sed 's/.* x=\([0-9]*\).*/\1/')
  y=$(echo "$geometry" | sed 's/.* y=\([0-9]*\).*/\1/')
  w=$(echo "$geometry" | sed 's/.* width=\([0-9]*\).*/\1/')
  h=$(echo "$geometry" | sed 's/.* height=\([0-9]*\).*/\1/')
  import -window root -crop "${w}x${h}+${x}+${y}" +repage "$1" \
    2>> "$work/driver.out" || :
}

# session K: the log lines of the K-th dialog.
session ()
{
  awk -v k="$1" '/ open / { n++ } n == k' "$dialog_log"
}

# Does session K's log (from its first line matching FROM, when given)
# have a line matching PATTERN: K PATTERN [FROM].  A pipe, not a process
# substitution: bash closes those early when the command runs inside
# nested functions, as check does.
session_has ()
{
  session "$1" | sed -n "/${3:-.}/,\$p" | grep -q -E "$2"
}

# Does session K's first preview drawn (the dialog as it opened, before
# any key) match PATTERN: K PATTERN.
first_drawn_is ()
{
  session "$1" | grep -m 1 ' drawn ' | grep -q -E "$2"
}

# require_display_tools: skips the test without what drives the dialog.
require_display_tools ()
{
  local tool
  for tool in xvfb-run xdotool dbus-run-session import; do
    command -v $tool > /dev/null 2>&1 || skip_all "$tool not found"
  done
}

# dialog_setup "$@": where a dialog test starts.  Run again by itself
# under xvfb-run with --inner, the script is the driver (its function
# inner); otherwise the test's tools, its installation, and a noisy
# 512 x 512 photograph (room for a 400 x 400 preview) in $noisy, of
# $geometry.
dialog_setup ()
{
  if test "${1:-}" = --inner; then
    # Run under xvfb-run by the test's outer part, with its environment.
    shift
    inner "$@"
    exit 0
  fi

  require_tools
  require_display_tools
  setup_gimp
  "$command" --add-noise 20 --seed 7 "$top_srcdir/tests/data/astronaut.png" \
    "$work/noisy.png" > /dev/null || exit 1
  noisy=$work/noisy.png
  geometry=512x512x3xu8
}

# layout_exprs ARGS: onto exprs, t-denoise of every layout and precision
# of $layouts and $precisions, whole and in the selection $sel_*, with
# the procedure's arguments ARGS after the sigma; check_layouts reads
# their results.
layout_exprs ()
{
  local layout precision p in
  for layout in $layouts; do
    for precision in $precisions; do
      eval "p=\$$precision"
      in="$work/noisy-$layout.png"
      exprs+=("(t-denoise \"$in\" $p #f RUN-NONINTERACTIVE $sigma $1
                \"$work/$layout-$precision-before.raw\"
                \"$work/$layout-$precision-after.raw\")")
      exprs+=("(t-denoise \"$in\" $p '($sel_x $sel_y $sel_w $sel_h)
                RUN-NONINTERACTIVE $sigma $1
                \"$work/$layout-$precision-sel-before.raw\"
                \"$work/$layout-$precision-sel-after.raw\")")
    done
  done
}

# The procedure on every layout and precision (tests/gimp-procedure.sh,
# tests/gimp3-procedure.sh): RGB, RGBA, gray and gray+alpha at 8-bit,
# 16-bit and float (perceptual), each whole and with a selection, then
# float linear light and a layer mask.  procedure_exprs sets exprs, the
# batch commands, in the order check_procedure_results reads them.
procedure_exprs ()
{
  local layout precision p in
  sigma=25
  layouts="rgb rgba gray graya"
  precisions="u8 u16 f32"
  # A rectangle that touches no image edge and no multiple of 8.
  sel_x=37 sel_y=21 sel_w=50 sel_h=61
  exprs=()
  layout_exprs "$bm3d_auto"
  # Linear light: GIMP converts to the perceptual encoding for the engine
  # and back; measured after converting the result to perceptual float.
  exprs+=("(t-denoise-convert \"$work/noisy-rgba.png\" $f32_linear
            $sigma $bm3d_auto \"$work/rgba-lin-before.raw\"
            \"$work/rgba-lin-after.raw\" $f32
            \"$work/rgba-lin-converted.raw\")")
  # A layer mask is denoised as gray; its layer stays as it was.
  exprs+=("(t-denoise-mask \"$work/noisy-rgb.png\" $sigma
            \"$work/mask-before.raw\" \"$work/mask-after.raw\"
            \"$work/layer-before.raw\" \"$work/layer-after.raw\")")
}

# check_layouts LOG PREFIX [exact-u8]: layout_exprs' results, in its
# order from the caller's k on: each as good as the command's
# ($reference_rgb, $reference_gray; with exact-u8 the 8-bit results are
# the command's pixels), alpha bit-exact, every pixel outside the
# selection bit-exact; PREFIX begins each check's name.
check_layouts ()
{
  local layout precision c geometry name psnr same reference
  for layout in $layouts; do
    eval "reference=\$reference_${layout%a}"
    c=$(channels_of "$layout")
    for precision in $precisions; do
      geometry=128x128x${c}x$precision
      name="$2$layout $precision"

      k=$((k + 1))
      check "$name: the procedure succeeded" is_ok "$1" $k
      psnr=$("$pixels" psnr "$work/clean-$layout.png" \
               "$work/$layout-$precision-after.raw" "$geometry" 2>&1)
      check "$name: PSNR $psnr dB >= the command's $reference dB - 0.05" \
        at_least "$psnr" "$(awk -v r="$reference" 'BEGIN { print r - 0.05 }')"
      if test "${3:-}" = exact-u8 && test "$precision" = u8; then
        same=$("$pixels" psnr "$work/command-${layout%a}-$sigma-0.png" \
                 "$work/$layout-$precision-after.raw" "$geometry" 2>&1)
        check "$name: the command's pixels exactly (PSNR $same)" \
          test "$same" = 999.0000
      fi
      case $layout in
        *a)
          check "$name: alpha bit-exact" "$pixels" same-alpha \
            "$work/$layout-$precision-before.raw" \
            "$work/$layout-$precision-after.raw" "$geometry" ;;
      esac

      k=$((k + 1))
      check "$name, selection: the procedure succeeded" is_ok "$1" $k
      check "$name, selection: pixels outside bit-exact, inside changed" \
        "$pixels" same-outside "$work/$layout-$precision-sel-before.raw" \
        "$work/$layout-$precision-sel-after.raw" "$geometry" \
        $sel_x $sel_y $sel_w $sel_h
    done
  done
}

# check_procedure_results LOG [exact-u8]: every result as good as the
# command's on the same noisy input (with exact-u8, the 8-bit results
# are the command's pixels), alpha bit-exact, every pixel outside a
# selection bit-exact.
check_procedure_results ()
{
  local log=$1 exact=${2:-} base reference reference_rgb reference_gray
  local k psnr
  for base in rgb gray; do
    reference=$(command_psnr "$base" "$sigma" 0) || reference=
    check "the command denoised noisy-$base.png (PSNR ${reference:-?} dB)" \
      test -n "$reference"
    eval "reference_$base=\${reference:-999}"
  done

  k=0
  check_layouts "$log" "" "$exact"

  k=$((k + 1))
  check "rgba float linear: the procedure succeeded" is_ok "$log" $k
  psnr=$("$pixels" psnr "$work/clean-rgba.png" "$work/rgba-lin-converted.raw" \
           128x128x4xf32 2>&1)
  check "rgba float linear: PSNR $psnr dB >= the command's $reference_rgb dB - 0.05" \
    at_least "$psnr" "$(awk -v r="$reference_rgb" 'BEGIN { print r - 0.05 }')"
  check "rgba float linear: alpha bit-exact" "$pixels" same-alpha \
    "$work/rgba-lin-before.raw" "$work/rgba-lin-after.raw" 128x128x4xf32

  k=$((k + 1))
  check "layer mask: the procedure succeeded" is_ok "$log" $k
  check "layer mask: denoised as one gray channel" "$pixels" same-outside \
    "$work/mask-before.raw" "$work/mask-after.raw" 128x128x1xu8 0 0 128 128
  check "layer mask: the layer itself unchanged" \
    cmp "$work/layer-before.raw" "$work/layer-after.raw"
}

# check_accepted MARGIN: the procedure's arguments tests
# (tests/gimp-arguments.sh, tests/gimp3-arguments.sh).  Each call of
# accepted (NAME|SIGMA|MODE|BACKEND), the t-outcomes after the K-th (k
# counts on), was accepted, gained MARGIN dB or more over the noisy
# input $in, and left alpha bit-exact.
check_accepted ()
{
  noisy_psnr=$("$pixels" psnr "$work/clean-rgba.png" "$in" 2>&1)
  i=0
  for entry in "${accepted[@]}"; do
    IFS='|' read -r name sigma mode backend <<< "$entry"
    i=$((i + 1)) k=$((k + 1))
    after=$work/accepted-$i-after.raw
    check "$name: accepted" test "$(outcome $k)" = accepted
    psnr=$("$pixels" psnr "$work/clean-rgba.png" "$after" 128x128x4xu8 2>&1)
    check "$name: PSNR $psnr dB >= the noisy input's $noisy_psnr dB + $1" \
      at_least "$psnr" "$(awk -v p="$noisy_psnr" -v m="$1" 'BEGIN { print p + m }')"
    check "$name: alpha bit-exact" "$pixels" same-alpha \
      "$work/accepted-$i-before.raw" "$after" 128x128x4xu8
  done
}

# The console tests' driver (tests/gimp-undo.sh, tests/gimp3-undo.sh):
# GIMP with its windows under a virtual display reads Script-Fu from a
# FIFO (its batch interpreter on standard input, `-b -`), one expression
# at a time, so that the test can press keys in the image window or end
# the plug-in between two of them.  Each GIMP's library says how GIMP
# starts (start_console LOG: reads standard input).

# console_open: GIMP started on $work/console.fifo; its output in
# $work/console.out.
console_open ()
{
  mkfifo "$work/console.fifo"
  start_console "$work/console.out" < "$work/console.fifo" &
  console_pid=$!
  exec 7> "$work/console.fifo"
  console_n=0
}

# console_close: GIMP told to quit (without asking about the changed
# images), its input closed.
console_close ()
{
  echo "(gimp-quit TRUE)" >&7
  exec 7>&-
  wait "$console_pid"
}

# console_send EXPR: sends EXPR (on one line) without waiting; its
# answer, "ok" or "error" (whether it raised an error), is answer
# number $console_n.
console_send ()
{
  console_n=$((console_n + 1))
  echo "(begin (display (string-append \"t-answer $console_n \"
          (catch \"error\" $1 \"ok\"))) (newline))" | tr '\n' ' ' >&7
  echo >&7
}

# console_answer N [SECONDS]: answer N once it has come (empty after
# SECONDS, 600 by default).
console_answer ()
{
  local i
  for i in $(seq 1 $(( ${2:-600} * 10 ))); do
    if grep -q -o "t-answer $1 [a-z]*" "$work/console.out" 2> /dev/null; then
      grep -o "t-answer $1 [a-z]*" "$work/console.out" | head -n 1 \
        | sed "s/t-answer $1 //"
      return 0
    fi
    kill -0 "$console_pid" 2> /dev/null || return 0
    sleep 0.1
  done
}

# console_define NAME: a global variable, for `console "(set! NAME ...)"`
# (a define inside console's catch would stay inside it).
console_define ()
{
  echo "(define $1 #f)" >&7
}

# console EXPR: sends EXPR and waits for its answer; fails on "error".
console ()
{
  local answer
  console_send "$1"
  answer=$(console_answer "$console_n")
  note "console $console_n: ${answer:-no answer}: $1"
  test "$answer" = ok
}

# image_window: the window of the only image shown (both GIMPs end its
# title with "GIMP"; GIMP 3 names an image loaded by Script-Fu
# [Untitled], so not by its file).
image_window ()
{
  local i id
  for i in $(seq 1 300); do
    id=$(xdotool search --name ' GIMP$' 2> /dev/null | head -n 1)
    test -n "$id" && { echo "$id"; return 0; }
    sleep 0.1
  done
}

# wait_changed FILE OTHER DUMP-EXPR: dumps the image to FILE (DUMP-EXPR
# writes it) until FILE differs from OTHER, 30 s at most: a key pressed
# in the image window is handled in GIMP's main loop, in no fixed order
# with the console's calls.
wait_changed ()
{
  local i
  for i in $(seq 1 60); do
    console "$3" || return 1
    cmp -s "$1" "$2" || return 0
    sleep 0.5
  done
  note "$1 never changed"
}

# progress_pid N: the process id of the N-th plug-in run that logged to
# $progress_log (BM3D_PROGRESS_LOG), once it has sent a value above 0
# and below 1 (its final run under way); empty after 120 s.
progress_pid ()
{
  local i pid
  for i in $(seq 1 1200); do
    pid=$(awk '$2 == "init" && !seen[$1]++ { n++; if (n == N) print $1 }' \
            N="$1" "$progress_log" 2> /dev/null)
    if test -n "$pid" \
       && awk -v p="$pid" '$1 == p && $2 == "update" && $3 > 0 && $3 < 1 {
                             f = 1 } END { exit !f }' "$progress_log"; then
      echo "$pid"
      return 0
    fi
    sleep 0.1
  done
}

# check_progress PID NAME: the run PID's calls to GIMP's progress API
# ($progress_log): the bar started ("init", accepted by GIMP), more than
# one value sent, never backwards, within 0..1, the last 1, and GIMP
# accepted every one.
check_progress ()
{
  check "$2: the progress bar was started" \
    awk -v p="$1" '$1 == p && $2 == "init" && $NF == 1 { f = 1 }
                   END { exit !f }' "$progress_log"
  check "$2: the bar advanced, never backwards, to its end (1.0)" \
    awk -v p="$1" '$1 == p && $2 == "update" {
                     n++; if ($3 < last || $3 < 0 || $3 > 1) bad = 1
                     last = $3 }
                   END { print n " values, the last " last
                         exit !(n > 1 && !bad && last == 1) }' "$progress_log"
  check "$2: GIMP accepted every value" \
    awk -v p="$1" '$1 == p && $NF != 1 { print; bad = 1 } END { exit bad }' \
    "$progress_log"
}

# The undo, progress and cancel session (tests/gimp-undo.sh,
# tests/gimp3-undo.sh), run by the test's inner part under the virtual
# display; check_undo_session reads what it left in $work.
#  1. The procedure on $noisy, then Ctrl+Z once in the image window, then
#     Ctrl+Y: dumps before, after, undone and redone.
#  2. A 1536 x 1536 image ($work/big.png, scaled up): the procedure's
#     plug-in process is ended (SIGKILL) once its final run has sent a
#     progress value above 0, as GIMP ends a plug-in whose progress is
#     cancelled (gimp_plug_in_close (plug_in, TRUE), from the progress's
#     "cancel" signal); dumps before and after.
#  3. The dialog (BM3D_DIALOG_LOG: $dialog_log) lists its buttons; F1
#     pressed in it, then Escape.
undo_session ()
{
  local window pid n
  console_open
  console_define image
  console_define big
  console "(set! image (t-load \"$noisy\"))"
  console "(gimp-display-new image)"
  console "(t-dump image \"$work/before.raw\")"
  console "(t-run RUN-NONINTERACTIVE image (t-drawable image) 20.0 $bm3d_auto)"
  console "(gimp-displays-flush)"
  console "(t-dump image \"$work/after.raw\")"
  window=$(image_window)
  note "image window: ${window:-none}"
  if test -n "$window"; then
    focus "$window"
    xdotool key ctrl+z
    wait_changed "$work/undone.raw" "$work/after.raw" \
      "(t-dump image \"$work/undone.raw\")"
    xdotool key ctrl+y
    wait_changed "$work/redone.raw" "$work/undone.raw" \
      "(t-dump image \"$work/redone.raw\")"
  fi

  console "(set! big (t-load \"$work/big.png\"))"
  console "(gimp-image-scale big 1536 1536)"
  console "(gimp-display-new big)"
  console "(t-dump big \"$work/cancel-before.raw\")"
  console_send "(t-run RUN-NONINTERACTIVE big (t-drawable big) 20.0 $bm3d_auto)"
  n=$console_n
  pid=$(progress_pid 2)
  note "cancel: plug-in ${pid:-none}"
  test -n "$pid" && kill -KILL "$pid"
  console_answer "$n" > "$work/cancel.answer"
  note "cancelled run: $(cat "$work/cancel.answer")"
  console "(t-dump big \"$work/cancel-after.raw\")"

  console_send "(t-run RUN-INTERACTIVE image (t-drawable image) 20.0 $bm3d_auto)"
  n=$console_n
  window=$(wait_window)
  note "dialog: ${window:-none}"
  if test -n "$window"; then
    focus "$window"
    wait_log ' buttons ' 60
    xdotool search --name '.' getwindowname %@ 2> /dev/null \
      | sort -u > "$work/windows-before-f1"
    xdotool key F1
    sleep 2
    xdotool search --name '.' getwindowname %@ 2> /dev/null \
      | sort -u > "$work/windows-after-f1"
    focus "$window"
    xdotool key Escape
  fi
  console_answer "$n" > /dev/null
  console_close
}

# no_new_windows BEFORE AFTER: the window names in AFTER were all in
# BEFORE (and both lists were taken).
no_new_windows ()
{
  test -f "$1" && test -f "$2" || { echo "no list of windows"; return 1; }
  ! comm -13 "$1" "$2" | grep .
}

# no_help_button LOG: the dialog logged its buttons, OK among them, and
# no Help (GIMP 2.10's stock gtk-help, GIMP 3's _Help).
no_help_button ()
{
  grep ' buttons ' "$1" || return 1
  grep -q -E ' buttons .*_OK' "$1" && ! grep -q -E ' buttons .*(_Help|gtk-help)' "$1"
}

# undo_test ARGS: tests/gimp-undo.sh and tests/gimp3-undo.sh, whole:
# undo_session run in the GIMP of the library sourced, under xvfb-run
# with small strips and the plug-in's progress and dialog logs, then
# check_undo_session.
undo_test ()
{
  # What dialog_setup runs under xvfb-run (--inner).
  inner () { undo_session; }
  dialog_setup "$@"
  cp "$noisy" "$work/big.png"
  progress_log=$work/progress.log
  dialog_log=$work/dialog.log
  title='^BM3D Denoise$'
  : > "$work/driver.out"
  : > "$dialog_log"
  export work noisy progress_log dialog_log title
  # Small strips: many progress values, and a final run long enough to
  # be ended halfway.
  BM3D_PROGRESS_LOG=$progress_log BM3D_STRIP_ROWS=64 \
  BM3D_DIALOG_LOG=$dialog_log \
  timeout 900 xvfb-run -a -s "-screen 0 1280x900x24 -noreset" \
    dbus-run-session -- bash "$0" --inner 2> "$work/xvfb.err"
  echo "# xvfb-run exited with status $?"

  check_undo_session
  sed 's/^/# /' "$work/driver.out"
  finish
}

check_undo_session ()
{
  local pid
  check "the procedure changed the image" \
    files_differ "$work/before.raw" "$work/after.raw"
  check "one undo (Ctrl+Z) restored the image bit-exactly" \
    cmp "$work/before.raw" "$work/undone.raw"
  check "redo (Ctrl+Y) gave the result back bit-exactly" \
    cmp "$work/after.raw" "$work/redone.raw"
  pid=$(awk '$2 == "init" { print $1; exit }' "$progress_log" 2> /dev/null)
  check_progress "${pid:-none}" "the final run"
  check "cancel: the plug-in was ended during its final run" \
    grep -q '^cancel: plug-in [0-9]' "$work/driver.out"
  check "cancel: the call failed" test "$(cat "$work/cancel.answer")" = error
  check "cancel: the image as it was, bit-exactly" \
    cmp "$work/cancel-before.raw" "$work/cancel-after.raw"
  check "the dialog has its OK button and no Help button (no help page to open)" \
    no_help_button "$dialog_log"
  check "F1 in the dialog opened no window (no help, no missing-help message)" \
    no_new_windows "$work/windows-before-f1" "$work/windows-after-f1"
}
