#!/bin/bash
# plug-in-bm3d-denoise's arguments and run modes inside GIMP: every bad
# argument is refused with a message naming it and its range, indexed
# images are refused, modes the engine lacks say so, and the image stays
# bit-exact whenever the call fails.  Sigma 0 estimates the noise level,
# prints it, and denoises exactly as a call with that sigma does (in one
# piece and in strips), once the engine can estimate.  RUN-WITH-LAST-VALS uses the values
# saved by an interactive run (set here through the PDB, as the dialog
# cannot run headless), ignores damaged or foreign ones, and a
# non-interactive run does not change them.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-.}/tests/gimp-lib.sh"

require_tools
setup_gimp
make_inputs

in=$work/noisy-rgba.png

# name|sigma|mode|backend|prep|expected message (a fixed string)
refusals=(
  "sigma -1|-1.0|0|0|$u8|sigma must be a number from 0 to 255 (the noise level on a 0..255 scale); got -1"
  "sigma 255.5|255.5|0|0|$u8|sigma must be a number from 0 to 255 (the noise level on a 0..255 scale); got 255.5"
  "mode 4|25.0|4|0|$u8|mode must be 0 (BM3D), 1 (BM3D first phase only), 2 (non-local means) or 3 (isoline); got 4"
  "mode -1|25.0|-1|0|$u8|mode must be 0 (BM3D), 1 (BM3D first phase only), 2 (non-local means) or 3 (isoline); got -1"
  "backend 3|25.0|0|3|$u8|backend must be 0 (automatic), 1 (CPU) or 2 (CUDA); got 3"
  "backend -1|25.0|0|-1|$u8|backend must be 0 (automatic), 1 (CPU) or 2 (CUDA); got -1"
  "indexed image|25.0|0|0|'indexed|BM3D Denoise works on RGB and grayscale images only"
  "layer group|25.0|0|0|'group|A layer group cannot be denoised; choose a layer inside it"
)
# Infinite and NaN sigma: GIMP itself may refuse them before the plug-in
# sees them; either way the message names sigma.
odd_sigmas=(
  "sigma +inf|(exp 1000)"
  "sigma NaN|(sqrt -1)"
)
# Refused while the engine lacks them, denoised once it has them.
maybe=(
  "sigma 0 (estimate, then denoise)|0.0|0|0|Estimating the noise level is not implemented yet"
  "mode 2 (non-local means)|25.0|2|0|The mode “Non-local means” is not implemented yet"
  "backend 2 (CUDA)|25.0|0|2|The CUDA backend cannot be used"
)

# Implemented modes other than BM3D: accepted, and they denoise.
accepted=(
  "mode 3 (isoline)|25.0|3|0"
)

exprs=()
i=0
for entry in "${refusals[@]}"; do
  IFS='|' read -r name sigma mode backend prep message <<< "$entry"
  i=$((i + 1))
  exprs+=("(t-try \"$in\" $prep RUN-NONINTERACTIVE $sigma $mode $backend
            \"$work/refused-$i-before.raw\" \"$work/refused-$i-after.raw\")")
done
i=0
for entry in "${odd_sigmas[@]}"; do
  IFS='|' read -r name sigma <<< "$entry"
  i=$((i + 1))
  exprs+=("(t-try \"$in\" $u8 RUN-NONINTERACTIVE $sigma 0 0
            \"$work/odd-$i-before.raw\" \"$work/odd-$i-after.raw\")")
done
i=0
for entry in "${maybe[@]}"; do
  IFS='|' read -r name sigma mode backend message <<< "$entry"
  i=$((i + 1))
  exprs+=("(t-try \"$in\" $u8 RUN-NONINTERACTIVE $sigma $mode $backend
            \"$work/maybe-$i-before.raw\" \"$work/maybe-$i-after.raw\")")
done

i=0
for entry in "${accepted[@]}"; do
  IFS='|' read -r name sigma mode backend <<< "$entry"
  i=$((i + 1))
  exprs+=("(t-try \"$in\" $u8 RUN-NONINTERACTIVE $sigma $mode $backend
            \"$work/accepted-$i-before.raw\" \"$work/accepted-$i-after.raw\")")
done

# Saved values (tests/gimp-lib.sh): mode 1, backend 1 (CPU), sigma 10;
# one byte short; a later version; the version 1 and 2 layouts; sigma
# 300; an even search window.
saved_10=$(saved_values 10 1 1)
short_10=$(saved_values 10 1 1 | sed 's/ 0)$/)/')
foreign_10=$(saved_values 10 1 1 1 0 0 0 0 0 0 4)
old_10=$(saved_values_v1 10 1 1)
old2_10=$(saved_values_v2 10 1 1)
bad_sigma=$(saved_values 300 1 1)
bad_search=$(saved_values 10 1 1 1 20)
rgb=$work/noisy-rgb.png
denoise ()  # RUN-MODE SIGMA MODE BACKEND OUT
{
  echo "(t-denoise \"$rgb\" $u8 #f $1 $2 $3 $4 #f \"$work/$5.raw\")"
}
exprs+=(
  "$(denoise RUN-WITH-LAST-VALS 99.0 7 7 last-none)"
  "$(denoise RUN-NONINTERACTIVE 25.0 0 0 defaults)"
  "(t-set-last-values $saved_10)"
  "$(denoise RUN-NONINTERACTIVE 40.0 0 1 explicit-40)"
  "$(denoise RUN-WITH-LAST-VALS 99.0 7 7 last-saved)"
  "$(denoise RUN-NONINTERACTIVE 10.0 1 1 explicit-10)"
  "(t-set-last-values $short_10)"
  "$(denoise RUN-WITH-LAST-VALS 99.0 7 7 last-short)"
  "(t-set-last-values $foreign_10)"
  "$(denoise RUN-WITH-LAST-VALS 99.0 7 7 last-foreign)"
  "(t-set-last-values $bad_sigma)"
  "$(denoise RUN-WITH-LAST-VALS 99.0 7 7 last-bad-sigma)"
  "(t-set-last-values $old_10)"
  "$(denoise RUN-WITH-LAST-VALS 99.0 7 7 last-old)"
  "(t-set-last-values $bad_search)"
  "$(denoise RUN-WITH-LAST-VALS 99.0 7 7 last-bad-search)"
  "(t-set-last-values $old2_10)"
  "$(denoise RUN-WITH-LAST-VALS 99.0 7 7 last-old2)"
)

log=$work/gimp.log
run_gimp "$log" "${exprs[@]}"
check "GIMP ran without a plug-in crash" no_crash "$log"

k=0
i=0
for entry in "${refusals[@]}"; do
  IFS='|' read -r name sigma mode backend prep message <<< "$entry"
  i=$((i + 1)) k=$((k + 1))
  check "$name: refused" test "$(outcome $k)" = refused
  check "$name: says \"$message\"" grep -q -F -- "$message" "$log"
  check "$name: image unchanged" \
    cmp "$work/refused-$i-before.raw" "$work/refused-$i-after.raw"
done
i=0
for entry in "${odd_sigmas[@]}"; do
  IFS='|' read -r name sigma <<< "$entry"
  i=$((i + 1)) k=$((k + 1))
  check "$name: refused" test "$(outcome $k)" = refused
  check "$name: image unchanged" \
    cmp "$work/odd-$i-before.raw" "$work/odd-$i-after.raw"
done
check "NaN sigma: the message names sigma" \
  grep -q -E "value '-?nan' for argument 'sigma'|sigma must be a number" "$log"
check "infinite sigma: the message names sigma" \
  grep -q -E "value '\\+?inf' for argument 'sigma'|sigma must be a number from 0 to 255 \\(the noise level on a 0..255 scale\\); got inf" "$log"

i=0
for entry in "${maybe[@]}"; do
  IFS='|' read -r name sigma mode backend message <<< "$entry"
  i=$((i + 1)) k=$((k + 1))
  before=$work/maybe-$i-before.raw after=$work/maybe-$i-after.raw
  if test "$(outcome $k)" = refused; then
    check "$name: refused, saying \"$message\"" \
      grep -q -F -- "$message" "$log"
    check "$name: refused, image unchanged" cmp "$before" "$after"
  else
    psnr=$("$pixels" psnr "$work/clean-rgba.png" "$after" 128x128x4xu8)
    check "$name: accepted, PSNR $psnr dB above the noisy input's + 3 dB" \
      at_least "$psnr" "$(awk -v p="$("$pixels" psnr "$work/clean-rgba.png" \
                          "$before" 128x128x4xu8)" 'BEGIN { print p + 3 }')"
  fi
done

check_accepted 5

# Sigma 0, when accepted: the printed estimate, given back as sigma,
# gives the same pixels, in one piece and in strips of 40 rows.
if test "$(outcome $(( ${#refusals[@]} + ${#odd_sigmas[@]} + 1 )))" = accepted
then
  estimate=$(sed -n 's/.*estimated noise level (sigma) \([0-9.e+-]*\).*/\1/p' \
               "$log" | head -n 1)
  check "sigma 0: the estimate is printed (${estimate:-none})" \
    test -n "$estimate"
  sigma0=$work/noisy-rgba.png
  run_gimp "$work/gimp-estimate.log" \
    "(t-denoise \"$sigma0\" $u8 #f RUN-NONINTERACTIVE ${estimate:-1} 0 0 #f
                \"$work/at-estimate.raw\")"
  BM3D_STRIP_ROWS=40 run_gimp "$work/gimp-estimate-strips.log" \
    "(t-denoise \"$sigma0\" $u8 #f RUN-NONINTERACTIVE 0.0 0 0 #f
                \"$work/strips-0.raw\")" \
    "(t-denoise \"$sigma0\" $u8 #f RUN-NONINTERACTIVE ${estimate:-1} 0 0 #f
                \"$work/strips-at-estimate.raw\")"
  check "sigma 0: the same pixels as sigma $estimate" \
    cmp "$work/maybe-1-after.raw" "$work/at-estimate.raw"
  check "sigma 0 in strips: the same pixels as sigma $estimate in strips" \
    cmp "$work/strips-0.raw" "$work/strips-at-estimate.raw"
fi

# Last values.  The batch commands after the t-try ones, in order.
first=$(( ${#refusals[@]} + ${#odd_sigmas[@]} + ${#maybe[@]} + ${#accepted[@]} ))
for j in $(seq 1 18); do
  check "run-mode batch command $j succeeded" is_ok "$log" $((first + j))
done
check "WITH_LAST_VALS with nothing saved uses the defaults (25, BM3D, auto)" \
  cmp "$work/last-none.raw" "$work/defaults.raw"
check "WITH_LAST_VALS uses the saved values (10, first phase, CPU)" \
  cmp "$work/last-saved.raw" "$work/explicit-10.raw"
check "a NONINTERACTIVE run does not replace the saved values" \
  files_differ "$work/last-saved.raw" "$work/explicit-40.raw"
check "saved values of the wrong size are ignored (defaults used)" \
  cmp "$work/last-short.raw" "$work/defaults.raw"
check "saved values of another version are ignored (defaults used)" \
  cmp "$work/last-foreign.raw" "$work/defaults.raw"
check "saved values out of range are ignored (defaults used)" \
  cmp "$work/last-bad-sigma.raw" "$work/defaults.raw"
check "values saved in the version 1 layout are ignored (defaults used)" \
  cmp "$work/last-old.raw" "$work/defaults.raw"
check "saved expert options out of range are ignored (defaults used)" \
  cmp "$work/last-bad-search.raw" "$work/defaults.raw"
check "values saved in the version 2 layout are ignored (defaults used)" \
  cmp "$work/last-old2.raw" "$work/defaults.raw"

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$log"
fi
finish
