# Shared by the tests/gimp3-*.sh tests (the GIMP 3 build); sourced, not
# run.  Builds on tests/gimp-lib.sh (TAP, checks, inputs, the command's
# results) and replaces how GIMP is installed into and run:
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

. "${top_srcdir:-.}/tests/gimp-lib.sh"

gimp_console=${GIMP_CONSOLE:-gimp-console-3.0}

# The precisions, by GIMP 3's names.
u8=PRECISION-U8-NON-LINEAR
u16=PRECISION-U16-NON-LINEAR
f32=PRECISION-FLOAT-NON-LINEAR
f32_linear=PRECISION-FLOAT-LINEAR

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
install_catalogues ()
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

setup_gimp ()
{
  local plugdir
  work=$(mktemp -d "${TMPDIR:-/tmp}/bm3d-gimp3-test.XXXXXX") || exit 1
  if test -z "${KEEP_TEST_FILES:-}"; then
    trap 'rm -rf "$work"' EXIT
  else
    echo "# test files kept in $work"
  fi

  plugdir=$work/install/plug-ins/bm3d-denoise-gimp
  mkdir -p "$plugdir" "$work/install/scripts"
  cp "$plugin" "$plugdir/bm3d-denoise-gimp"
  chmod 755 "$plugdir/bm3d-denoise-gimp"
  install_catalogues "$plugdir"
  cp "$top_srcdir/data/bm3d-denoise-batch-gimp3.scm" "$work/install/scripts/"
  cp "$top_srcdir/tests/gimp3-helpers.scm" "$work/install/scripts/"

  cat > "$work/gimprc" <<EOF2
(plug-in-path "\${gimp_dir}/plug-ins:\${gimp_plug_in_dir}/plug-ins:$work/install/plug-ins")
(script-fu-path "\${gimp_dir}/scripts:\${gimp_data_dir}/scripts:$work/install/scripts")
EOF2
  gimp_runs=0
}

# run_gimp LOG EXPRESSION...: one gimp-console, one batch command per
# expression, a configuration folder of its own (GIMPDIR, when set, names
# one to reuse: last values live there).
run_gimp ()
{
  local log=$1 arg status
  local args=()
  shift
  for arg in "$@"; do
    args+=(-b "$arg")
  done
  gimp_runs=$((gimp_runs + 1))
  GIMP3_DIRECTORY="${GIMPDIR:-$work/gimpdir-$gimp_runs}" \
    timeout 600 "$gimp_console" -i -d -f --quit --gimprc="$work/gimprc" \
    --batch-interpreter=plug-in-script-fu-eval "${args[@]}" \
    > "$log" 2>&1
  status=$?
  echo "gimp-console exited with status $status" >> "$log"
  echo "# gimp-console exited with status $status ($# batch commands)"
}

# exited_with LOG STATUS
exited_with ()
{
  grep -q "^gimp-console exited with status $2\$" "$1"
}
