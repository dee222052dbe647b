# Shared by the tests/gimp-*.sh tests; sourced, not run.
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
# output: gimp-console exits 0 even when a procedure fails, so success is
# "batch command executed successfully" for every command, no "Plug-in
# crashed", and pixels that pass the checks.
#
# Needs top_builddir and top_srcdir (exported by `make check`).

set -u

: "${top_builddir:?run through make check, or set top_builddir}"
: "${top_srcdir:?run through make check, or set top_srcdir}"

gimp_console=${GIMP_CONSOLE:-gimp-console-2.10}
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

# A work folder with the test installation: plug-ins/NAME/NAME, the batch
# script and the tests' Script-Fu helpers, and a gimprc pointing at them.
setup_gimp ()
{
  work=$(mktemp -d "${TMPDIR:-/tmp}/bm3d-gimp-test.XXXXXX") || exit 1
  if test -z "${KEEP_TEST_FILES:-}"; then
    trap 'rm -rf "$work"' EXIT
  else
    echo "# test files kept in $work"
  fi

  mkdir -p "$work/install/plug-ins/bm3d-denoise-gimp" \
           "$work/install/scripts"
  cp "$plugin" "$work/install/plug-ins/bm3d-denoise-gimp/bm3d-denoise-gimp"
  chmod 755 "$work/install/plug-ins/bm3d-denoise-gimp/bm3d-denoise-gimp"
  cp "$top_srcdir/data/bm3d-denoise-batch.scm" "$work/install/scripts/"
  cp "$top_srcdir/tests/gimp-helpers.scm" "$work/install/scripts/"

  cat > "$work/gimprc" <<EOF
(plug-in-path "\${gimp_dir}/plug-ins:\${gimp_plug_in_dir}/plug-ins:$work/install/plug-ins")
(script-fu-path "\${gimp_dir}/scripts:\${gimp_data_dir}/scripts:$work/install/scripts")
EOF
  gimp_runs=0
}

# run_gimp LOG EXPRESSION...: one gimp-console, one batch command per
# expression, a configuration folder that does not exist beforehand.
run_gimp ()
{
  local log=$1 arg
  local args=()
  shift
  for arg in "$@"; do
    args+=(-b "$arg")
  done
  gimp_runs=$((gimp_runs + 1))
  GIMP2_DIRECTORY="$work/gimpdir-$gimp_runs" \
    timeout 600 "$gimp_console" -i -d -f --gimprc="$work/gimprc" \
    "${args[@]}" -b '(gimp-quit 0)' > "$log" 2>&1
  echo "# gimp-console exited with status $? ($# batch commands)"
}

# batch_result LOG K: "ok" or "error" for the K-th batch command.
batch_result ()
{
  grep -E '^batch command (executed successfully|experienced an execution error)' "$1" \
    | sed -n "${2}p" \
    | sed -e 's/.*executed successfully.*/ok/' -e 's/.*execution error.*/error/'
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

# saved_values SIGMA MODE BACKEND [FAST SEARCH GROUP1 GROUP2 STEP LAMBDA
# CHROMA [VERSION [NOISE STRENGTH CHROMA-STRENGTH]]]: the bytes
# gimp_set_data stores for Bm3dValues (plugin/bm3d-values.h, 64 bytes,
# version 3; noise 0 is white, 1 camera), as a Script-Fu vector for
# t-set-last-values.  Little-endian: the test machines are x86-64 or
# arm64.
saved_values ()
{
  perl -e 'my ($s, $m, $b, $f, $se, $g1, $g2, $st, $l, $c, $v, $n, $k,
               $kc) = @ARGV;
           print "#(", join (" ", unpack ("C*",
             pack ("L< l< l< l< d< l< l< l< l< f< f< l< f< f< l<", $v // 3,
                   $m, $b, $f // 1, $s, $se // 0, $g1 // 0, $g2 // 0,
                   $st // 0, $l // 0, $c // 0, $n // 0, $k // 1, $kc // 1,
                   0))), ")"' -- "$@"
}

# The version 2 layout (48 bytes: no noise model), which version 3 must
# ignore: SIGMA MODE BACKEND.
saved_values_v2 ()
{
  perl -e 'print "#(", join (" ", unpack ("C*",
             pack ("L< l< l< l< d< l< l< l< l< f< f<", 2, $ARGV[1],
                   $ARGV[2], 1, $ARGV[0], 0, 0, 0, 0, 0, 0))), ")"' -- "$@"
}

# The version 1 layout (24 bytes: version, mode, backend, reserved,
# sigma), which version 3 must ignore.
saved_values_v1 ()
{
  perl -e 'print "#(", join (" ", unpack ("C*",
             pack ("L< l< l< L< d<", 1, $ARGV[1], $ARGV[2], 0,
                   $ARGV[0]))), ")"' -- "$@"
}
