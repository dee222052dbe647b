#!/bin/bash
# The dialog tests again and again on a loaded machine: a flaky test
# shows here, not in one run.  From a build folder:
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   ../bench/dialog-repeat.sh [N [TEST...]]
#
# runs each TEST (default: tests/gimp-dialog.sh, tests/gimp-dialog-de.sh
# and tests/gimp-dialog-resize.sh) N times in a row (default 20), with
# one busy loop per core running all along (set BM3D_REPEAT_LOAD=0 for
# none), and stops at the first failure, keeping its log as
# dialog-repeat-fail-PID-K.log.  Prints one line per round and the count
# at the end.  The tests run directly (top_builddir and top_srcdir from
# the build folder), so two of these may run side by side.
set -u

n=${1:-20}
shift $(( $# > 0 ? 1 : 0 ))
tests=("$@")
test ${#tests[@]} -gt 0 \
  || tests=(tests/gimp-dialog.sh tests/gimp-dialog-de.sh tests/gimp-dialog-resize.sh)
test -f Makefile || { echo "run from a build folder"; exit 1; }

busy=()
for i in $(seq 1 "${BM3D_REPEAT_LOAD:-$(nproc)}"); do
  bash -c 'while :; do :; done' &
  busy+=($!)
done
trap 'test ${#busy[@]} -gt 0 && kill "${busy[@]}" 2> /dev/null' EXIT

export top_builddir=${top_builddir:-$(pwd)}
export top_srcdir=${top_srcdir:-$(sed -n 's/^abs_top_srcdir = //p' Makefile)}

passed=0
for round in $(seq 1 "$n"); do
  start=$(date +%s)
  for t in "${tests[@]}"; do
    # Run directly, not through make: several of these may run at once.
    log=dialog-repeat-$$-$(basename "$t" .sh).log
    bash "$top_srcdir/$t" > "$log" 2>&1
    if grep -q '^not ok' "$log" || ! grep -q '^1\.\.[1-9]' "$log"; then
      cp "$log" "dialog-repeat-fail-$$-$round.log"
      echo "round $round: $t failed (or skipped); log in dialog-repeat-fail-$$-$round.log"
      grep -E '^(not ok|1\.\.0)' "$log" | head -n 5
      echo "$passed of $n rounds passed before the failure (load $(cut -d' ' -f1-3 /proc/loadavg))"
      exit 1
    fi
    rm -f "$log"
  done
  passed=$round
  echo "round $round: passed in $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "$passed of $n rounds passed in a row"
