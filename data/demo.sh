#!/usr/bin/env bash
# The main job, end to end: add noise of sigma 25 to the sample image,
# denoise it with plug-in-bm3d-denoise inside real GIMP (headless), and
# print PSNR before and after, the time of the GIMP run and where the
# result is.
#   data/demo.sh SRCDIR BUILDDIR
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
# The plug-in is installed with `make install-user` into a private
# folder that GIMP finds through a gimprc of its own, and GIMP runs with
# a fresh configuration folder: the user's own GIMP setup is neither
# read nor changed.  GIMP 2.10's gimp-console exits 0 even when a
# procedure fails, so success is read from its output and from the file
# it wrote.  The build's GIMP (2.10 or 3) is the one run.
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
cmd=$build/cli/bm3d-denoise
sigma=25

# The GIMP this build is for.
if grep -q '^#define BM3D_GIMP_MAJOR 3$' "$build/config.h" 2> /dev/null; then
  gimp=3
  gimp_console=${GIMP_CONSOLE:-gimp-console-3.0}
  gimp_dir_variable=GIMP3_DIRECTORY
else
  gimp=2
  gimp_console=${GIMP_CONSOLE:-gimp-console-2.10}
  gimp_dir_variable=GIMP2_DIRECTORY
fi

fail ()
{
  echo "demo: $*" >&2
  exit 1
}

command -v "$gimp_console" > /dev/null \
  || fail "$gimp_console not found; install the gimp package"
test -x "$cmd" || fail "$cmd not built"
test -x "$build/plugin/bm3d-denoise-gimp" \
  || fail "the plug-in was not built (configured --without-gimp?)"

out=$build/demo
mkdir -p "$out"
rm -f "$out/noisy.png" "$out/denoised.png" "$out/gimp.log"
work=$(mktemp -d "${TMPDIR:-/tmp}/bm3d-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A Script-Fu string literal for a file name.
scm_string ()
{
  printf '"%s"' "$(printf '%s' "$1" | sed 's/[\\"]/\\&/g')"
}

"$cmd" --add-noise "$sigma" --seed 1 "$src/data/sample.png" "$out/noisy.png"

env "$gimp_dir_variable=$work/install" \
  make -s -C "$build" install-user > /dev/null \
  || fail "make install-user failed"
cat > "$work/gimprc" <<EOF
(plug-in-path "\${gimp_dir}/plug-ins:\${gimp_plug_in_dir}/plug-ins:$work/install/plug-ins")
(script-fu-path "\${gimp_dir}/scripts:\${gimp_data_dir}/scripts:$work/install/scripts")
EOF

in=$(scm_string "$out/noisy.png")
result=$(scm_string "$out/denoised.png")
if test $gimp = 3; then
  # GIMP 3: named arguments, choices by their nicks; --quit, and a
  # failing command makes GIMP exit 70.
  batch="(let* ((image (car (gimp-file-load RUN-NONINTERACTIVE $in)))
                (drawables (car (gimp-image-get-selected-drawables image))))
           (plug-in-bm3d-denoise #:run-mode RUN-NONINTERACTIVE #:image image
                                 #:drawables drawables #:sigma $sigma.0
                                 #:mode \"bm3d\" #:backend \"auto\")
           (gimp-file-save RUN-NONINTERACTIVE image $result -1)
           (gimp-image-delete image))"
  batch_args=(--quit --batch-interpreter=plug-in-script-fu-eval -b "$batch")
else
  batch="(let* ((image (car (gimp-file-load RUN-NONINTERACTIVE $in $in)))
                (drawable (car (gimp-image-get-active-drawable image))))
           (plug-in-bm3d-denoise RUN-NONINTERACTIVE image drawable
                                 $sigma.0 0 0)
           (gimp-file-save RUN-NONINTERACTIVE image drawable $result $result)
           (gimp-image-delete image))"
  batch_args=(-b "$batch" -b '(gimp-quit 0)')
fi

# English messages, so that the checks below can read them.  The
# configuration folder must not exist beforehand, or GIMP skips its
# first-run setup.
start=$(date +%s.%N)
status=0
env LC_ALL=C.UTF-8 LANGUAGE= "$gimp_dir_variable=$work/gimpdir" \
  timeout 600 "$gimp_console" -i -d -f --gimprc="$work/gimprc" \
  "${batch_args[@]}" > "$out/gimp.log" 2>&1 || status=$?
end=$(date +%s.%N)

if test $status -eq 124; then
  fail "GIMP did not finish within 600 s; its output is in $out/gimp.log"
fi
if { test $gimp = 3 && test $status -ne 0; } \
   || grep -q -E 'execution error|Plug-in crashed' "$out/gimp.log" \
   || ! grep -q 'batch command executed successfully' "$out/gimp.log" \
   || ! test -s "$out/denoised.png"; then
  sed 's/^/  gimp: /' "$out/gimp.log" >&2
  fail "denoising inside GIMP failed (exit status $status); see above"
fi

echo "noisy    PSNR: $("$cmd" --compare "$src/data/sample.png" "$out/noisy.png")"
echo "denoised PSNR: $("$cmd" --compare "$src/data/sample.png" "$out/denoised.png")"
awk -v s="$start" -v e="$end" \
  'BEGIN { printf "time: %.2f s (gimp-console: start-up, load, plug-in-bm3d-denoise, save)\n", e - s }'
echo "denoised image: $out/denoised.png (noisy input: $out/noisy.png)"
