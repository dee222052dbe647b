# The GIMP 3 tests' library (tests/gimp3-*.sh); sourced, not run.  The checks live in tests/gimp-checks.sh, shared with the GIMP 2.10 tests;
# this file says how GIMP 3 is installed into, run and called:
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
# - GIMP 3's batch mode needs --batch-interpreter, and ends with --quit;
#   a failing batch command skips the rest and makes GIMP exit 70, so a
#   call expected to fail is caught inside Script-Fu (t-try).
# - The configuration folder is $GIMP3_DIRECTORY; each run gets a new one.
# - GIMP 3 reads a plug-in's catalogues from the locale/ folder beside
#   it: the build's catalogues are copied there.
# - Script-Fu calls take named arguments, choices by their nicks
#   (tests/gimp3-helpers.scm).

. "${top_srcdir:-.}/tests/gimp-checks.sh"

# babl converts between pixel formats along paths it picks by their
# measured cost, among those within its tolerance of the exact result,
# and GIMP 3's babl has several for 8-bit and float: two plug-in
# processes can take different paths and round a few values one apart
# (95 dB apart, seen once each in tests/gimp3-files.sh 16 and
# gimp3-arguments.sh 36).  With tolerance 0 only exact paths are taken,
# so the checks that want the same pixels compare the plug-in's work,
# not babl's measurements.  GIMP and its plug-ins read it from the
# environment.
export BABL_TOLERANCE=0.0

gimp_console=${GIMP_CONSOLE:-gimp-console-3.0}
gimp_work_name=bm3d-gimp3-test
gimp_scripts="data/bm3d-denoise-batch-gimp3.scm tests/gimp-checks.scm
  tests/gimp3-helpers.scm"

# The precisions, by GIMP 3's names.
u8=PRECISION-U8-NON-LINEAR
u16=PRECISION-U16-NON-LINEAR
f32=PRECISION-FLOAT-NON-LINEAR
f32_linear=PRECISION-FLOAT-LINEAR

# Mode and backend are choices in GIMP 3, given by their nicks.
bm3d_auto='"bm3d" "auto"'

# mode_nick 0..3, backend_nick 0..2: the choices' nicks.
mode_nick ()
{
  case $1 in
    0) echo bm3d ;; 1) echo bm3d-fast ;; 2) echo nlm ;; 3) echo isoline ;;
  esac
}

backend_nick ()
{
  case $1 in
    0) echo auto ;; 1) echo cpu ;; 2) echo cuda ;;
  esac
}

# The build's catalogues, where GIMP 3 looks for them: plug-in folder
# /locale/LANG/LC_MESSAGES/DOMAIN.mo.
install_extras ()
{
  local dir=$1 gmo lang
  for gmo in "$top_builddir"/po/*.gmo "$top_srcdir"/po/*.gmo; do
    test -f "$gmo" || continue
    lang=$(basename "$gmo" .gmo)
    test -f "$dir/locale/$lang/LC_MESSAGES/bm3d-denoise-gimp.mo" && continue
    mkdir -p "$dir/locale/$lang/LC_MESSAGES"
    cp "$gmo" "$dir/locale/$lang/LC_MESSAGES/bm3d-denoise-gimp.mo"
  done
  mkdir -p "$dir/locale"
}

# run_gimp LOG EXPRESSION...: one gimp-console, one batch command per
# expression, a configuration folder of its own (GIMPDIR, when set, names
# one to reuse: last values live there).
run_gimp ()
{
  local log=$1 status
  shift
  set_batch_args "$@"
  gimp_runs=$((gimp_runs + 1))
  GIMP3_DIRECTORY="${GIMPDIR:-$work/gimpdir-$gimp_runs}" \
    timeout 600 "$gimp_console" ${gimp_ui_args:--i} -d -f --quit \
    --gimprc="$work/gimprc" \
    --batch-interpreter=plug-in-script-fu-eval "${batch_args[@]}" \
    > "$log" 2>&1
  status=$?
  echo "gimp-console exited with status $status" >> "$log"
  echo "# gimp-console exited with status $status ($# batch commands)"
}

# run_gimp_gui LOG EXPRESSION...: the same in GIMP with its windows
# (under the test's own X display), for what only they offer, such as
# Edit > Undo; its messages go to the log, as gimp-console's do.
run_gimp_gui ()
{
  gimp_console=${GIMP_GUI:-gimp-3.0} \
    gimp_ui_args="--no-splash --console-messages" run_gimp "$@"
}

# said NAME: the value of the Script-Fu helpers' line "t-NAME: VALUE"
# (t-say) in the log $log.
said ()
{
  grep -o "t-$1: [^ ]*" "$log" | head -n 1 | sed "s/t-$1: //"
}

# start_console LOG: GIMP with its windows (under the tests' virtual
# display), its Script-Fu console reading standard input
# (tests/gimp-checks.sh, console_open); it quits when that ends.
start_console ()
{
  GIMP3_DIRECTORY="$work/gimpdir-console" \
    timeout 900 "${GIMP_GUI:-gimp-3.0}" --no-splash -d -f --quit \
    --gimprc="$work/gimprc" --batch-interpreter=plug-in-script-fu-eval \
    -b - > "$1" 2>&1
}

# exited_with LOG STATUS
exited_with ()
{
  grep -q "^gimp-console exited with status $2\$" "$1"
}
