#!/bin/bash
# Hostile files through the command: a corpus made by bench/fuzz-corpus.py
# from valid seeds of every format, each file through --convert (to each
# output format in turn) and the first ones through a real denoise, under
# timeout.  Run it with a build made with -fsanitize=address,undefined:
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/fuzz-run.sh BM3D-DENOISE [N-CONVERT [N-DENOISE]]
#
# (defaults 3000 and 200).  Prints one table: exit codes, sanitizer
# reports, messages longer than one line, outputs left behind after a
# failure, and the slowest and largest run (/usr/bin/time).  Any row but
# the exit codes, time and memory must read 0.
set -u

cmd=${1:?usage: bench/fuzz-run.sh BM3D-DENOISE [N-CONVERT [N-DENOISE]]}
n_convert=${2:-3000}
n_denoise=${3:-200}
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
test -x /usr/bin/time || { echo "needs /usr/bin/time"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/bm3d-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir "$work/seeds" "$work/corpus" "$work/out"

# Seeds: the tests' generated images and files with metadata, and each
# converted to the formats it lacks.
python3 "$top/tests/cli-images.py" generate "$work/seeds" > /dev/null
python3 "$top/tests/cli-files.py" generate "$work/seeds" > /dev/null
for f in "$work/seeds"/rgb8.png "$work/seeds"/gray16.png \
         "$work/seeds"/meta.png; do
  b=${f%.png}
  for ext in jpg tif pfm; do
    "$cmd" --convert "$f" "$b-seed.$ext" 2> /dev/null
  done
done
python3 "$here/fuzz-corpus.py" "$work/seeds" "$work/corpus" "$n_convert" \
  | sed 's/^/# corpus: /'

export cmd work
# One file: ACTION FILE → "action file status seconds kib lines sanitizer
# leftover" on stdout.
one ()
{
  local action=$1 f=$2 name ext out status lines san left
  name=$(basename "$f")
  case $(( $(cksum <<< "$name" | cut -d' ' -f1) % 5 )) in
    0) ext=png ;; 1) ext=jpg ;; 2) ext=tif ;; 3) ext=pnm ;; 4) ext=pfm ;;
  esac
  out=$work/out/$name.$ext
  if test "$action" = convert; then
    set -- --convert
  else
    set -- --sigma 20 --mode bm3d-fast --threads 1
  fi
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1 \
    /usr/bin/time -f '%e %M' -o "$work/out/$name.time" \
    timeout 60 "$cmd" "$@" "$f" "$out" > /dev/null 2> "$work/out/$name.err"
  status=$?
  lines=$(grep -v -c -E '^(Command exited|$)' "$work/out/$name.err")
  san=$(grep -c -E 'Sanitizer|runtime error:' "$work/out/$name.err")
  left=0
  if test $status -ne 0 && test -e "$out"; then left=1; fi
  ls -A "$work/out" | grep -q "^\.$name" && left=1
  echo "$action $name $status $(tail -n 1 "$work/out/$name.time") $lines $san $left"
  test "$san" -gt 0 && cp "$work/out/$name.err" "$work/$name.sanitizer"
  rm -f "$out" "$work/out/$name.err" "$work/out/$name.time"
}
export -f one

ls "$work/corpus" | sed "s|^|convert $work/corpus/|" > "$work/jobs"
ls "$work/corpus" | head -n "$n_denoise" \
  | sed "s|^|denoise $work/corpus/|" >> "$work/jobs"
start=$(date +%s)
xargs -P 2 -L 1 bash -c 'one "$0" "$1"' < "$work/jobs" > "$work/results"
elapsed=$(( $(date +%s) - start ))

for s in "$work"/*.sanitizer; do
  test -e "$s" || continue
  echo "# sanitizer report: $(basename "$s" .sanitizer)"
  sed 's/^/#   /' "$s" | head -n 30
done

echo "# $(uname -m), $(nproc) cores, $elapsed s; command: $cmd"
awk '
  { n[$1]++; st[$1 " " $3]++
    if ($4 > t[$1]) { t[$1] = $4; tf[$1] = $2 }
    if ($5 > m[$1]) { m[$1] = $5; mf[$1] = $2 }
    if ($3 != 0 && $3 != 1) odd[$1]++
    if ($6 > 1) multi[$1]++
    if ($7 > 0) san[$1]++
    if ($8 > 0) left[$1]++ }
  END {
    printf "%-8s %6s %6s %6s %6s %9s %10s %9s %9s %12s\n", "action",
           "files", "exit 0", "exit 1", "other", "sanitizer", "multi-line",
           "leftover", "max s", "max RSS MiB"
    for (a in n)
      printf "%-8s %6d %6d %6d %6d %9d %10d %9d %9.2f %12.1f\n", a, n[a],
             st[a " 0"], st[a " 1"], odd[a], san[a], multi[a], left[a], t[a],
             m[a] / 1024
    for (a in n)
      printf "# %s: slowest %s, largest %s\n", a, tf[a], mf[a]
  }' "$work/results"
