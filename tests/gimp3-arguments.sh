#!/bin/bash
# GIMP 3: plug-in-bm3d-denoise's arguments and run modes.  Every bad call
# is refused with a message (GIMP's own for a value out of its declared
# range, ours for indexed images, layer groups, two drawables) and
# leaves the image bit-exact; the modes and backends named by their
# nicks denoise; sigma 0 estimates the noise level, prints it, and
# denoises exactly as a call with that sigma does.  RUN-WITH-LAST-VALS
# uses the values GIMP saved (GimpProcedureConfig's .last file, written
# here as an interactive OK writes it), expert options included, ignores
# damaged ones, and neither a non-interactive run nor its arguments
# change them; a script's call never picks up saved expert options.
# Messages come in German with LANGUAGE=de.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-.}/tests/gimp3-lib.sh"

require_tools
setup_gimp
make_inputs

in=$work/noisy-rgba.png

# name|sigma|mode|backend|prep|expected message (a fixed string; a
# range error's message is GIMP's, printed when the call is not caught:
# see below)
refusals=(
  "sigma -1|-1.0|bm3d|auto|$u8|"
  "sigma 255.5|255.5|bm3d|auto|$u8|"
  "indexed image|25.0|bm3d|auto|'indexed|BM3D Denoise works on RGB and grayscale images only"
  "layer group|25.0|bm3d|auto|'group|A layer group cannot be denoised; choose a layer inside it"
)
# Accepted: they denoise.
accepted=(
  "mode bm3d-fast|25.0|bm3d-fast|auto"
  "mode nlm|25.0|nlm|auto"
  "mode isoline|25.0|isoline|auto"
  "backend cpu|25.0|bm3d|cpu"
)
# CUDA: refused without a usable device, saying so; else it denoises.
cuda="backend cuda|25.0|bm3d|cuda|The CUDA backend cannot be used"

exprs=()
i=0
for entry in "${refusals[@]}"; do
  IFS='|' read -r name sigma mode backend prep message <<< "$entry"
  i=$((i + 1))
  exprs+=("(t-try \"$in\" $prep RUN-NONINTERACTIVE $sigma \"$mode\" \"$backend\"
            \"$work/refused-$i-before.raw\" \"$work/refused-$i-after.raw\")")
done
i=0
for entry in "${accepted[@]}"; do
  IFS='|' read -r name sigma mode backend <<< "$entry"
  i=$((i + 1))
  exprs+=("(t-try \"$in\" $u8 RUN-NONINTERACTIVE $sigma \"$mode\" \"$backend\"
            \"$work/accepted-$i-before.raw\" \"$work/accepted-$i-after.raw\")")
done
IFS='|' read -r cuda_name sigma mode backend cuda_message <<< "$cuda"
exprs+=("(t-try \"$in\" $u8 RUN-NONINTERACTIVE $sigma \"$mode\" \"$backend\"
          \"$work/cuda-before.raw\" \"$work/cuda-after.raw\")")
exprs+=("(t-try \"$in\" $u8 RUN-NONINTERACTIVE 0.0 \"bm3d\" \"auto\"
          \"$work/sigma0-before.raw\" \"$work/sigma0-after.raw\")")
exprs+=("(t-try-two \"$in\")")

log=$work/gimp.log
run_gimp "$log" "${exprs[@]}"
check "GIMP ran without a plug-in crash" no_crash "$log"
check "gimp-console exited 0 (every refusal caught)" exited_with "$log" 0

k=0
i=0
for entry in "${refusals[@]}"; do
  IFS='|' read -r name sigma mode backend prep message <<< "$entry"
  i=$((i + 1)) k=$((k + 1))
  check "$name: refused" test "$(outcome $k)" = refused
  test -z "$message" \
    || check "$name: says \"$message\"" grep -q -F -- "$message" "$log"
  check "$name: image unchanged" \
    cmp "$work/refused-$i-before.raw" "$work/refused-$i-after.raw"
done
# GIMP checks the declared range itself: uncaught, the call stops the
# batch with GIMP's message and exit status 70.
run_gimp "$work/gimp-range.log" \
  "(t-denoise \"$in\" $u8 #f RUN-NONINTERACTIVE 255.5 \"bm3d\" \"auto\" #f
              \"$work/range-after.raw\")"
check "sigma 255.5 uncaught: GIMP names the range" \
  grep -q -F "value 255.500000 out of range: 0.000000 to 255.000000" \
  "$work/gimp-range.log"
check "sigma 255.5 uncaught: GIMP exited 70" \
  exited_with "$work/gimp-range.log" 70

check_accepted 3

k=$((k + 1))
if test "$(outcome $k)" = refused; then
  check "$cuda_name: refused without a device, saying \"$cuda_message\"" \
    grep -q -F -- "$cuda_message" "$log"
  check "$cuda_name: refused, image unchanged" \
    cmp "$work/cuda-before.raw" "$work/cuda-after.raw"
else
  psnr=$("$pixels" psnr "$work/clean-rgba.png" "$work/cuda-after.raw" \
           128x128x4xu8 2>&1)
  check "$cuda_name: PSNR $psnr dB >= the noisy input's + 3" \
    at_least "$psnr" "$(awk -v p="$noisy_psnr" 'BEGIN { print p + 3 }')"
fi

k=$((k + 1))
check "sigma 0: accepted" test "$(outcome $k)" = accepted
estimate=$(sed -n 's/.*estimated noise level (sigma) \([0-9.e+-]*\).*/\1/p' \
             "$log" | head -n 1)
check "sigma 0: the estimate is printed (${estimate:-none})" \
  test -n "$estimate"

k=$((k + 1))
check "two drawables: refused" test "$(outcome $k)" = refused
check "two drawables: says so" \
  grep -q -F "BM3D Denoise works on one drawable at a time" "$log"

# In German: GIMP 3 finds the catalogue in the plug-in's locale/ folder
# (set_i18n).  A German locale is needed: newer C libraries (Debian 13's)
# ignore LANGUAGE in C.UTF-8.
if locale -a 2> /dev/null | grep -q -i '^de_DE\.utf-\?8$'; then
  LC_ALL=de_DE.UTF-8 LANGUAGE=de run_gimp "$work/gimp-de.log" \
    "(t-try \"$in\" 'group RUN-NONINTERACTIVE 25.0 \"bm3d\" \"auto\"
            \"$work/de-before.raw\" \"$work/de-after.raw\")"
  check "in German: the refusal says so in German" \
    grep -q -F "Eine Ebenengruppe kann nicht entrauscht werden" \
    "$work/gimp-de.log"
  check "in German: no complaint about our catalogues" \
    eval "! grep -q -F '[plug-in-bm3d-denoise] Localization disabled' \
            '$work/gimp-de.log'"
else
  ok "# SKIP in German: no de_DE.UTF-8 locale (Debian: locales, locale-gen)"
fi

# Sigma 0 against the printed estimate, in one piece and in strips.
run_gimp "$work/gimp-estimate.log" \
  "(t-denoise \"$in\" $u8 #f RUN-NONINTERACTIVE ${estimate:-1} \"bm3d\" \"auto\"
              #f \"$work/at-estimate.raw\")"
BM3D_STRIP_ROWS=40 run_gimp "$work/gimp-estimate-strips.log" \
  "(t-denoise \"$in\" $u8 #f RUN-NONINTERACTIVE 0.0 \"bm3d\" \"auto\" #f
              \"$work/strips-0.raw\")" \
  "(t-denoise \"$in\" $u8 #f RUN-NONINTERACTIVE ${estimate:-1} \"bm3d\" \"auto\"
              #f \"$work/strips-at-estimate.raw\")"
check "sigma 0: the same pixels as sigma $estimate" \
  cmp "$work/sigma0-after.raw" "$work/at-estimate.raw"
check "sigma 0 in strips: the same pixels as sigma $estimate in strips" \
  cmp "$work/strips-0.raw" "$work/strips-at-estimate.raw"

# Last values: one configuration folder for these runs, its .last file
# written between them.
GIMPDIR=$work/gimpdir
export GIMPDIR
last_file=$GIMPDIR/plug-in-settings/GimpProcedureConfigRun-plug-in-bm3d-denoise.last
rgb=$work/noisy-rgb.png
denoise ()  # RUN-MODE SIGMA MODE BACKEND OUT
{
  echo "(t-denoise \"$rgb\" $u8 #f $1 $2 \"$3\" \"$4\" #f \"$work/$5.raw\")"
}
# save_last SIGMA MODE BACKEND [SEARCH GROUP1 GROUP2 STEP LAMBDA CHROMA]
save_last ()
{
  mkdir -p "$(dirname "$last_file")"
  cat > "$last_file" <<EOF2
# settings

(sigma $1)
(mode "$2")
(backend "$3")
(fast-preview yes)
(search ${4:-0})
(group-max-hard ${5:-0})
(group-max-wiener ${6:-0})
(step ${7:-0})
(lambda-3d ${8:-0})
(chroma-scale ${9:-0})

# end of settings
EOF2
}

run_gimp "$work/gimp-last-1.log" \
  "$(denoise RUN-WITH-LAST-VALS 0 bm3d auto last-none)" \
  "$(denoise RUN-NONINTERACTIVE 25.0 bm3d auto defaults)" \
  "$(denoise RUN-NONINTERACTIVE 10.0 bm3d-fast cpu explicit-10)"
save_last 10 bm3d-fast cpu
run_gimp "$work/gimp-last-2.log" \
  "$(denoise RUN-WITH-LAST-VALS 0 bm3d auto last-saved)" \
  "$(denoise RUN-NONINTERACTIVE 40.0 bm3d auto explicit-40)" \
  "$(denoise RUN-WITH-LAST-VALS 0 bm3d auto last-after-40)"
save_last 10 bm3d-fast cpu 51 8 16 2 3.0 1.5
run_gimp "$work/gimp-last-3.log" \
  "$(denoise RUN-WITH-LAST-VALS 0 bm3d auto last-expert)" \
  "$(denoise RUN-NONINTERACTIVE 10.0 bm3d-fast cpu script-after-expert)"
save_last 10 bm3d-fast cpu 20
run_gimp "$work/gimp-last-4.log" \
  "$(denoise RUN-WITH-LAST-VALS 0 bm3d auto last-bad-search)"
save_last 300 bm3d-fast cpu
run_gimp "$work/gimp-last-5.log" \
  "$(denoise RUN-WITH-LAST-VALS 0 bm3d auto last-bad-sigma)" \
  "$(denoise RUN-NONINTERACTIVE 25.0 bm3d-fast cpu explicit-25-fast)"

for j in 1 2 3 4 5; do
  check "last values, GIMP run $j exited 0" \
    exited_with "$work/gimp-last-$j.log" 0
done
check "WITH_LAST_VALS with nothing saved uses the defaults (25, bm3d, auto)" \
  cmp "$work/last-none.raw" "$work/defaults.raw"
check "WITH_LAST_VALS uses the saved values (10, bm3d-fast, cpu)" \
  cmp "$work/last-saved.raw" "$work/explicit-10.raw"
check "a NONINTERACTIVE run does not replace the saved values" \
  cmp "$work/last-after-40.raw" "$work/explicit-10.raw"
check "saved expert options apply to WITH_LAST_VALS" \
  files_differ "$work/last-expert.raw" "$work/explicit-10.raw"
check "a script's call never picks up saved expert options" \
  cmp "$work/script-after-expert.raw" "$work/explicit-10.raw"
check "saved expert options out of range are ignored (defaults used)" \
  cmp "$work/last-bad-search.raw" "$work/defaults.raw"
# GIMP drops a saved value outside its declared range, and keeps the
# default in its place (and the other saved values).
check "a saved sigma out of range is ignored (the default 25 used)" \
  cmp "$work/last-bad-sigma.raw" "$work/explicit-25-fast.raw"

if test $tap_failed -gt 0; then
  sed 's/^/# gimp: /' "$log" "$work"/gimp-last-*.log
fi
finish
