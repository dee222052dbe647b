#!/bin/bash
# This project's CPU backend against BM3DCPU (the AVX2 CPU code of
# VapourSynth-BM3DCUDA), measured in one invocation: camera 512² gray and
# astronaut 512² RGB, sigma 25 noise from `bm3d-denoise --add-noise 25
# --seed 7`, the runs of every configuration alternated round by round
# (A B C ... A B C ...), the median of ROUNDS each.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/peer-speed.sh PEER-HARNESS [BUILD-DIR] [ROUNDS]
#
# PEER-HARNESS is a host program built outside this repository (see
# docs/cpu-speed.md, "BM3DCPU measured"): `HARNESS IN.pfm OUT.pfm STEP
# BM_RANGE REPEATS [FRAMES]` runs BM3DCPU's basic and final steps on a
# gray or opponent-space RGB image, FRAMES copies at once on one thread
# each (VapourSynth gives a frame one thread), and prints "run 1: T ms".
# Its sigma is scaled by PEER_SIGMA_SCALE (default 4/3: BM3DCPU's
# thresholds assume 3/4 of the sigma it is given).  The noisy inputs are
# 8-bit PNGs, as in issue 25's table (NOISY_DEPTH=float: float PFM, no
# rounding or clipping); both programs read the same PFM copy.
#
# This project's time is the engine time of `bm3d-denoise --verbose`;
# the peer's is the filter calls alone.  Both exclude reading and
# writing files.
set -u
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
peer=${1:?usage: peer-speed.sh PEER-HARNESS [BUILD-DIR] [ROUNDS]}
build=$(cd "${2:-$top_srcdir/_build}" && pwd) || exit 1
rounds=${3:-5}
cli="$build/cli/bm3d-denoise"
test -x "$cli" || { echo "peer-speed.sh: no $cli (build first)" >&2; exit 1; }
test -x "$peer" || { echo "peer-speed.sh: no peer harness $peer" >&2; exit 1; }
export SIGMA_SCALE=${PEER_SIGMA_SCALE:-1.3333333}
depth=${NOISY_DEPTH:-8}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), commit" \
     "$(git -C "$top_srcdir" rev-parse --short HEAD 2>/dev/null || echo unknown)," \
     "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
lscpu 2>/dev/null | grep -E '^Model name' | sed 's/^/#   /'
echo "# $rounds rounds, configurations alternated; peer sigma scale $SIGMA_SCALE;" \
     "noisy inputs $depth-bit"

# One configuration: prints its time in ms and leaves its output in $work.
run_config () {
  local img=$1 cfg=$2 out="$work/$1-$2.pfm" in="$work/$1-noisy.pfm"
  case $cfg in
    ours-t1|ours-t2)
      "$cli" -b cpu -t "${cfg#ours-t}" -v "$in" "$out" 2>&1 \
        | sed -n 's/.*engine \([0-9.]*\) s.*/\1/p' | awk '{ print $1 * 1000 }' ;;
    fast-t1|fast-t2)
      "$cli" -b cpu -m bm3d-fast -t "${cfg#fast-t}" -v "$in" "$out" 2>&1 \
        | sed -n 's/.*engine \([0-9.]*\) s.*/\1/p' | awk '{ print $1 * 1000 }' ;;
    peer-s2|peer-s3|peer-s2x2|peer-s3x2)
      local step range frames=1
      case $cfg in peer-s2*) step=2 range=16 ;; *) step=3 range=19 ;; esac
      case $cfg in *x2) frames=2 ;; esac
      "$peer" "$in" "$out" "$step" "$range" 1 "$frames" \
        | awk -v f="$frames" '/^run 1:/ { print $3 / f }' ;;
  esac
}

# Each comparison's two configurations run next to each other in a round,
# so a change in the machine's load between them is as short as it can be.
configs="peer-s2x2 ours-t2 peer-s2 ours-t1 fast-t1 peer-s3 fast-t2 peer-s3x2"
declare -A times
for img in camera astronaut; do
  if test "$depth" = 8; then
    "$cli" --add-noise 25 --seed 7 "$top_srcdir/tests/data/$img.png" \
      "$work/$img-noisy.png" || exit 1
    "$cli" --convert "$work/$img-noisy.png" "$work/$img-noisy.pfm" || exit 1
  else
    "$cli" --add-noise 25 --seed 7 "$top_srcdir/tests/data/$img.png" \
      "$work/$img-noisy.pfm" || exit 1
  fi
  "$cli" --convert "$top_srcdir/tests/data/$img.png" "$work/$img-clean.pfm" || exit 1
  for r in $(seq "$rounds"); do
    for cfg in $configs; do
      t=$(run_config "$img" "$cfg")
      test -n "$t" || { echo "peer-speed.sh: $img $cfg failed" >&2; exit 1; }
      times[$img,$cfg]="${times[$img,$cfg]:-} $t"
    done
  done
done

median () { echo "$@" | tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
psnr () { "$cli" --compare "$work/$1-$2.pfm" "$work/$1-clean.pfm" | awk '{ print $1 }'; }

echo
echo "| image | configuration | median ms | runs ms | PSNR dB |"
echo "|---|---|---|---|---|"
declare -A med
for img in camera astronaut; do
  for cfg in $configs; do
    med[$img,$cfg]=$(median ${times[$img,$cfg]})
    echo "| $img | $cfg | ${med[$img,$cfg]} |${times[$img,$cfg]} | $(psnr "$img" "$cfg") |"
  done
done

echo
echo "The peer at its nominal sigma 25 (PEER_SIGMA_SCALE=1), PSNR dB:"
for img in camera astronaut; do
  for sr in "2 16" "3 19"; do
    set -- $sr
    SIGMA_SCALE=1 "$peer" "$work/$img-noisy.pfm" "$work/$img-nominal.pfm" "$1" "$2" 1 > /dev/null \
      || exit 1
    echo "  $img, step $1: $(psnr "$img" nominal)"
  done
done

echo
echo "Ratios: peer time / this project's time, per round (the two runs next"
echo "to each other), median and range over the rounds; above 1, this"
echo "project is faster"
echo
# ratio IMG PEER-CONFIG OURS-CONFIG: "median (min–max)" of the per-round ratios
ratio () {
  paste <(echo ${times[$1,$2]} | tr ' ' '\n') <(echo ${times[$1,$3]} | tr ' ' '\n') \
    | awk '{ print $1 / $2 }' | sort -g \
    | awk '{ r[NR] = $1 } END { printf "%.2f (%.2f–%.2f)", r[int((NR + 1) / 2)], r[1], r[NR] }'
}
echo "| image | bm3d 2 threads vs peer step 2, 1 frame | vs peer step 2, 2 frames at once (per frame) | bm3d 1 thread vs peer step 2 | bm3d-fast 2 threads vs peer step 3, 1 frame | vs peer step 3, 2 frames at once (per frame) | bm3d-fast 1 thread vs peer step 3 |"
echo "|---|---|---|---|---|---|---|"
for img in camera astronaut; do
  echo "| $img | $(ratio $img peer-s2 ours-t2) | $(ratio $img peer-s2x2 ours-t2)" \
       "| $(ratio $img peer-s2 ours-t1) | $(ratio $img peer-s3 fast-t2)" \
       "| $(ratio $img peer-s3x2 fast-t2) | $(ratio $img peer-s3 fast-t1) |"
done
