#!/bin/sh
# bm3d-denoise --verbose says the same things in the same words for one
# file and for a batch (-o DIR): the line naming the file, its size and
# layout, the mode, the noise and the backend is the same in both forms,
# for a given sigma, --sigma auto (the estimate, said to be one) and
# camera noise; a camera-mode run never prints a white sigma.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-$(dirname "$0")/..}/tests/cli-lib.sh"

cmd=$BM3D_DENOISE
data=$top_srcdir/tests/data
mkdir "$work/in" "$work/one"
"$cmd" --add-noise 20 --seed 3 "$data/camera.png" "$work/in/noisy.png"
cd "$work/in" || exit 1

# run_line FILE: the line of the file noisy.png in FILE (a run's stderr),
# without the batch's times after it.
run_line ()
{
  sed -n 's/^bm3d-denoise: \(noisy\.png: .*backend [a-z]*\( (GPU)\)\{0,1\}\).*/\1/p' "$1"
}

for form in "--sigma 20" "--sigma auto" "--noise camera"; do
  # shellcheck disable=SC2086
  run "$cmd" $form --verbose --backend cpu --threads 2 noisy.png \
    "$work/one/out.png"
  cp "$work/run.err" "$work/single.err"
  rm -rf "$work/many" && mkdir "$work/many"
  # shellcheck disable=SC2086
  run "$cmd" $form --verbose --backend cpu --threads 2 -o "$work/many" \
    noisy.png
  cp "$work/run.err" "$work/batch.err"
  single=$(run_line "$work/single.err")
  batch=$(run_line "$work/batch.err")
  echo "# $form: $single"
  if [ -n "$single" ] && [ "$single" = "$batch" ]; then
    ok "$form --verbose: one file and a batch say the same line"
  else
    not_ok "$form --verbose: one file and a batch say the same line"
    sed 's/^/#   single: /' "$work/single.err"
    sed 's/^/#   batch:  /' "$work/batch.err"
  fi
done

# The last form was camera noise.  Its white noise is filtered as white
# noise of the finest scale's reading, which the notice names; no other
# line gives a white sigma.
if grep -q 'camera noise, strength 1, chroma strength 1' "$work/single.err" \
   && ! grep -h -v "the finest scale's reading" "$work/single.err" \
          "$work/batch.err" | grep -q -E 'sigma [0-9]|white-model'
then
  ok "--noise camera --verbose: camera noise and its strengths, no white sigma"
else
  not_ok "--noise camera --verbose: camera noise and its strengths, no white sigma"
  sed 's/^/#   /' "$work/single.err" "$work/batch.err"
fi

finish
