#!/bin/bash
# Camera-noise quality beside two other free denoisers (issue 35): this
# project's camera mode (`bm3d-denoise --noise camera`, its defaults,
# blind), G'MIC's patch-based `denoise` and OpenCV's
# fastNlMeansDenoisingColored, each peer tuned per set as a user would:
# its strength swept over a few values and the ONE value with the best
# mean PSNR on the set kept.  A benchmark only: nothing here is part of
# the project, and no time is measured or checked.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/peer-camera.sh BUILD-DIR [BENCHMARK-SETS] [RESULTS-DIR]
#
# e.g. nice -n 19 bench/peer-camera.sh /tmp/build /work/shared/benchmark-sets /tmp/peer-results
#
# The sets (read where they are, never copied into the project):
#   synthetic-phone-noise  NAME_real.jpg against NAME_mean.png (24)
#   real-noise-polyu       NAME_real.JPG against NAME_mean.JPG (50)
#   kodak24                the clean originals, no noise added: each
#                          output against its own input (24); the peers
#                          at the setting tuned on PolyU (a user's
#                          everyday setting), nothing tuned on this set.
#
# The peers (Debian: apt-get install gmic python3-opencv):
#   G'MIC    gmic -i IN denoise SPATIAL,P cut 0,255 round 1 -o OUT.png
#            (5x5 patches, lookup 6, smoothness 1: its defaults), P (the
#            patch std-dev, its strength) swept over GMIC_P.
#   OpenCV   cv2.fastNlMeansDenoisingColored(img, None, h, h, 7, 21),
#            h = hColor swept over CV_H.
# Every noisy file is decoded once by `bm3d-denoise --convert` to an
# 8-bit PNG, which both peers read (the same pixels camera mode reads
# from the original file); every output is an 8-bit PNG, scored with
# `bm3d-denoise --compare` (PSNR, peak 255, three channels), so the three
# are measured alike.
#
# Environment:
#   GMIC_P       G'MIC patch std-devs to try (default "3 5 7 10 14")
#   GMIC_SPATIAL G'MIC spatial std-dev (default 10; 3 to 30 moved the
#                PSNR by under 0.1 dB in a first look)
#   CV_H         OpenCV h values to try (default "3 4 6 8 11")
#   PEER_SETS    which sets, in this order (default "phone polyu kodak";
#                kodak needs polyu's tuning from the same RESULTS-DIR)
#   PEER_LIMIT   only the first N photos of each set (default: all)
#   THREADS      threads for every tool (default 2)
#   PYTHON       a Python 3 with OpenCV (default: the first of python3,
#                /usr/bin/python3 that imports cv2)
#
# Writes RESULTS-DIR/SET.tsv (per photo: input, camera mode and every
# peer setting, dB) and RESULTS-DIR/table.md; prints the table.
set -eu
build=${1:?usage: $0 BUILD-DIR [BENCHMARK-SETS] [RESULTS-DIR]}
sets=${2:-${BENCHMARK_SETS:-/work/shared/benchmark-sets}}
res=${3:-${TMPDIR:-/tmp}/bm3d-peer-camera}
gmic_p=${GMIC_P:-3 5 7 10 14}
gmic_s=${GMIC_SPATIAL:-10}
cv_h=${CV_H:-3 4 6 8 11}
which_sets=${PEER_SETS:-phone polyu kodak}
limit=${PEER_LIMIT:-0}
threads=${THREADS:-2}

bm3d=$build/cli/bm3d-denoise
[ -x "$bm3d" ] || { echo "$0: $bm3d not found: build it first" >&2; exit 1; }
command -v gmic >/dev/null || { echo "$0: gmic not found (apt-get install gmic)" >&2; exit 1; }
python=
for p in ${PYTHON:-} python3 /usr/bin/python3; do
  if "$p" -c 'import cv2, numpy' 2>/dev/null; then python=$p; break; fi
done
[ -n "$python" ] || { echo "$0: no Python 3 with OpenCV (apt-get install python3-opencv)" >&2; exit 1; }
export OMP_NUM_THREADS=$threads
mkdir -p "$res"

# "36.61 dB" -> 36.61 ("inf dB" -> inf)
psnr() { "$bm3d" --compare "$1" "$2" | sed 's/ dB$//'; }

# list_set SET: lines "NAME NOISY TRUTH" (TRUTH = NOISY for the clean set)
list_set() {
  case $1 in
    phone)
      for f in "$sets"/synthetic-phone-noise/*_real.jpg; do
        n=$(basename "$f" _real.jpg)
        echo "$n $f ${f%_real.jpg}_mean.png"
      done ;;
    polyu)
      for f in "$sets"/real-noise-polyu/*_real.JPG; do
        n=$(basename "$f" _real.JPG)
        echo "$n $f ${f%_real.JPG}_mean.JPG"
      done ;;
    kodak)
      for f in "$sets"/kodak24/kodim*.png; do
        echo "$(basename "$f" .png) $f $f"
      done ;;
  esac | if [ "$limit" -gt 0 ]; then head -n "$limit"; else cat; fi
}

# mean of column COL (1-based) of a TSV with a header line
col_mean() {
  awk -v c="$2" 'NR > 1 { s += $c; n++ } END { if (n) printf "%.2f", s / n }' "$1"
}
# "N of M >= 45; least X; median Y" of column COL
col_clean() {
  awk -v c="$2" 'NR > 1 { v[++n] = ($c == "inf" ? 1e9 : $c); if (v[n] >= 45) k++ }
    END { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
            if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
          m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
          printf "%d of %d ≥ 45; least %.2f; median %s", k, n, v[1],
                 (m >= 1e9 ? "inf" : sprintf("%.2f", m)) }' "$1"
}
# the header column (1-based) whose mean is the highest among those named PREFIX*
best_col() {
  awk -v p="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if (index($i, p) == 1) want[i] = 1; next }
    { for (i in want) s[i] += $i; n++ }
    END { b = 0; for (i in want) if (!b || s[i] > s[b] || (s[i] == s[b] && i < b)) b = i; print b }' "$1"
}
col_name() { head -n 1 "$1" | awk -v c="$2" '{ print $c }'; }

run_set() {
  set_name=$1 p_list=$2 h_list=$3
  work=$res/$set_name
  mkdir -p "$work/in" "$work/out"
  list_set "$set_name" >"$work/list"
  # one decode for both peers
  while read -r n noisy truth; do
    [ -s "$work/in/$n.png" ] || "$bm3d" --convert "$noisy" "$work/in/$n.png"
  done <"$work/list"
  # OpenCV: one process per set, every h
  "$python" - "$work" "$threads" $h_list <<'EOF'
import os, sys, cv2
work, threads, hs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cv2.setNumThreads(threads)
names = [l.split()[0] for l in open(os.path.join(work, "list"))]
for h in hs:
    for n in names:
        img = cv2.imread(os.path.join(work, "in", n + ".png"), cv2.IMREAD_COLOR)
        out = cv2.fastNlMeansDenoisingColored(img, None, float(h), float(h), 7, 21)
        cv2.imwrite(os.path.join(work, "out", "cv-%s-%s.png" % (h, n)), out)
EOF
  {
    printf 'name\tinput\tcamera'
    for p in $p_list; do printf '\tgmic_%s' "$p"; done
    for h in $h_list; do printf '\tcv_%s' "$h"; done
    printf '\n'
    while read -r n noisy truth; do
      line="$n"
      if [ "$set_name" = kodak ]; then line="$line	-"
      else line="$line	$(psnr "$work/in/$n.png" "$truth")"; fi
      "$bm3d" --noise camera --threads "$threads" "$noisy" "$work/out/camera.png"
      line="$line	$(psnr "$work/out/camera.png" "$truth")"
      for p in $p_list; do
        gmic -v - -i "$work/in/$n.png" denoise "$gmic_s,$p" cut 0,255 round 1 \
          -o "$work/out/gmic.png"
        line="$line	$(psnr "$work/out/gmic.png" "$truth")"
      done
      for h in $h_list; do
        line="$line	$(psnr "$work/out/cv-$h-$n.png" "$truth")"
        rm -f "$work/out/cv-$h-$n.png"
      done
      echo "$line"
    done <"$work/list"
  } >"$res/$set_name.tsv"
}

label() {
  case $1 in
    phone) echo "synthetic-phone-noise" ;;
    polyu) echo "real-noise-polyu" ;;
    kodak) echo "Kodak24 clean" ;;
  esac
}

{
  echo "| set | input | camera mode (defaults, blind) | G'MIC \`denoise\` tuned ($gmic_s,P) | OpenCV NL-means tuned (h, 7, 21) |"
  echo "|---|---|---|---|---|"
} >"$res/table.md"
for s in $which_sets; do
  if [ "$s" = kodak ]; then
    [ -s "$res/polyu.tsv" ] || { echo "$0: kodak needs $res/polyu.tsv (run polyu first)" >&2; exit 1; }
    gp=$(col_name "$res/polyu.tsv" "$(best_col "$res/polyu.tsv" gmic_)"); gp=${gp#gmic_}
    ch=$(col_name "$res/polyu.tsv" "$(best_col "$res/polyu.tsv" cv_)"); ch=${ch#cv_}
    run_set kodak "$gp" "$ch"
    t=$res/kodak.tsv
    echo "| $(label kodak) ($(($(wc -l <"$t") - 1)); against the input) | — | $(col_clean "$t" 3) | P $gp (PolyU's tuning): $(col_clean "$t" 4) | h $ch (PolyU's tuning): $(col_clean "$t" 5) |" >>"$res/table.md"
  else
    run_set "$s" "$gmic_p" "$cv_h"
    t=$res/$s.tsv
    gb=$(best_col "$t" gmic_); cb=$(best_col "$t" cv_)
    echo "| $(label "$s") ($(($(wc -l <"$t") - 1))) | $(col_mean "$t" 2) | $(col_mean "$t" 3) | $(col_mean "$t" "$gb") (P $(col_name "$t" "$gb" | sed 's/gmic_//')) | $(col_mean "$t" "$cb") (h $(col_name "$t" "$cb" | sed 's/cv_//')) |" >>"$res/table.md"
  fi
done
# every setting's mean, to show what the tuning chose from
for s in $which_sets; do
  [ "$s" = kodak ] && continue
  t=$res/$s.tsv
  awk -v s="$(label "$s")" 'NR == 1 { for (i = 3; i <= NF; i++) h[i] = $i; nf = NF; next }
    { for (i = 3; i <= nf; i++) m[i] += $i; n++ }
    END { printf "%s, mean of %d:", s, n
          for (i = 3; i <= nf; i++) printf " %s %.2f", h[i], m[i] / n; printf "\n" }' "$t"
done >"$res/sweep.txt"
cat "$res/table.md"
echo
cat "$res/sweep.txt"
