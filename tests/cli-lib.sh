# Shared by the tests/cli-*.sh scripts (sourced, not run): TAP output,
# the command under test and a scratch folder.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
# The command is $BM3D_DENOISE when set, else $top_builddir/cli/bm3d-denoise
# ("make check" exports top_builddir and top_srcdir); run by hand from a
# build folder, the scripts find ./cli/bm3d-denoise.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$(pwd)}
BM3D_DENOISE=${BM3D_DENOISE:-$top_builddir/cli/bm3d-denoise}
IMAGES="$top_srcdir/tests/cli-images.py"

if [ ! -x "$BM3D_DENOISE" ]; then
  echo "Bail out! $BM3D_DENOISE is not built"
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bm3d-cli-test.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

tests_run=0

ok ()
{
  tests_run=$((tests_run + 1))
  echo "ok $tests_run - $1"
}

not_ok ()
{
  tests_run=$((tests_run + 1))
  echo "not ok $tests_run - $1"
}

skip ()
{
  tests_run=$((tests_run + 1))
  echo "ok $tests_run - $1 # SKIP $2"
}

# check DESCRIPTION COMMAND...: one test, passed when COMMAND succeeds.
check ()
{
  desc=$1
  shift
  if "$@" >"$work/check.out" 2>&1; then
    ok "$desc"
  else
    not_ok "$desc"
    sed 's/^/# /' "$work/check.out"
  fi
}

# run COMMAND...: sets $rc, and $out / $err to its stdout / stderr.
run ()
{
  "$@" >"$work/run.out" 2>"$work/run.err"
  rc=$?
  out=$(cat "$work/run.out")
  err=$(cat "$work/run.err")
}

# A failure must be reported as one line "bm3d-denoise: ..." containing
# PATTERN (a case-insensitive extended regular expression).
one_line_error ()
{
  [ "$(wc -l <"$work/run.err")" -eq 1 ] \
    && grep -q '^bm3d-denoise: ' "$work/run.err" \
    && grep -qiE -- "$1" "$work/run.err"
}

# expect_error STATUS PATTERN DESCRIPTION COMMAND...
expect_error ()
{
  status=$1 pattern=$2 desc=$3
  shift 3
  run "$@"
  if [ "$rc" -eq "$status" ] && one_line_error "$pattern"; then
    ok "$desc"
  else
    not_ok "$desc"
    echo "# exit status $rc (expected $status), stderr:"
    sed 's/^/#   /' "$work/run.err"
  fi
}

# The PSNR printed by --compare, as a number ("inf" stays "inf").
psnr ()
{
  "$BM3D_DENOISE" --compare "$1" "$2" | sed 's/ dB$//'
}

# is_above A B: A > B as decimal numbers ("inf" is above everything).
is_above ()
{
  awk -v a="$1" -v b="$2" 'BEGIN { exit !(a == "inf" || (a + 0 > b + 0)) }'
}

# is_near A B TOLERANCE: |A - B| <= TOLERANCE.
is_near ()
{
  awk -v a="$1" -v b="$2" -v t="$3" \
    'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'
}

has_png ()
{
  "$BM3D_DENOISE" --version | grep -q '^PNG support: yes'
}

has_python ()
{
  command -v python3 >/dev/null 2>&1
}

# Generates the images of tests/cli-images.py into $work (needs python3).
generate_images ()
{
  python3 "$IMAGES" generate "$work"
}

# For the scripts that check images: skips the whole script without
# python3, else writes the test images into $work and makes $work/out
# for the results.
prepare_images ()
{
  if ! has_python; then
    echo "1..0 # SKIP python3 is needed to write and check the test images"
    exit 0
  fi
  generate_images \
    || { echo "Bail out! cannot generate the test images"; exit 1; }
  mkdir "$work/out"
}

finish ()
{
  echo "1..$tests_run"
  exit 0
}
