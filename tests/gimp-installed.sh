#!/bin/bash
# `make installcheck`: the installed plug-in, as GIMP finds it in
# $gimpplugindir, denoises the sample image, and speaks German and Czech
# from the installed catalogues.  Prints TAP; exits 1 on any failure.
#   gimpplugindir=DIR top_srcdir=DIR tests/gimp-installed.sh
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
set -u
: "${gimpplugindir:?}" "${top_srcdir:?}"
gimp_console=${GIMP_CONSOLE:-gimp-console-2.10}
installed=$gimpplugindir/bm3d-denoise-gimp/bm3d-denoise-gimp

if ! command -v "$gimp_console" > /dev/null 2>&1; then
  echo "1..0 # SKIP $gimp_console not found"
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bm3d-gimp-installed.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cat > "$work/gimprc" <<EOF
(plug-in-path "\${gimp_dir}/plug-ins:\${gimp_plug_in_dir}/plug-ins:$gimpplugindir")
EOF

count=0 failed=0
check ()
{
  local description=$1
  shift
  count=$((count + 1))
  if "$@" > /dev/null 2>&1; then
    echo "ok $count - $description"
  else
    failed=$((failed + 1))
    echo "not ok $count - $description"
  fi
}

# run LANGUAGE EXPRESSION: one gimp-console run, output in $work/LANGUAGE.log
run ()
{
  LANGUAGE=$1 LC_ALL=C.UTF-8 GIMP2_DIRECTORY="$work/gimpdir-$1" \
    timeout 300 "$gimp_console" -i -d -f --gimprc="$work/gimprc" \
    -b "$2" -b '(gimp-quit 0)' > "$work/$1.log" 2>&1
}

sample=$top_srcdir/data/sample.png
denoise_and_refuse="
  (let* ((image (car (gimp-file-load RUN-NONINTERACTIVE \"$sample\" \"$sample\")))
         (drawable (car (gimp-image-get-active-drawable image))))
    (plug-in-bm3d-denoise RUN-NONINTERACTIVE image drawable 10.0 1 0)
    (gimp-file-save RUN-NONINTERACTIVE image drawable
                    \"$work/out.png\" \"$work/out.png\")
    (catch #f (plug-in-bm3d-denoise RUN-NONINTERACTIVE image drawable
                                    -3.0 0 0))
    (gimp-image-delete image))"

check "the plug-in is installed at $installed" test -x "$installed"
run de "$denoise_and_refuse"
check "GIMP ran the installed plug-in" \
  grep -q "batch command executed successfully" "$work/de.log"
check "no plug-in crash" bash -c "! grep -q 'Plug-in crashed' '$work/de.log'"
check "the sample was denoised and saved" \
  bash -c "test -s '$work/out.png' && ! cmp -s '$work/out.png' '$sample'"
check "German message from the installed catalogue" \
  grep -q -F "sigma muss eine Zahl von 0 bis 255 sein" "$work/de.log"
run cs "$denoise_and_refuse"
check "Czech message from the installed catalogue" \
  grep -q -F "sigma musí být číslo od 0 do 255" "$work/cs.log"

echo "1..$count"
if test $failed -gt 0; then
  sed 's/^/# de: /' "$work/de.log"
  sed 's/^/# cs: /' "$work/cs.log"
  exit 1
fi
exit 0
