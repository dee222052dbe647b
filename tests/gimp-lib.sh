# The GIMP 2.10 tests' library (tests/gimp-*.sh); sourced, not run.
# The checks live in tests/gimp-checks.sh, shared with the GIMP 3 tests;
# this file says how GIMP 2.10 is installed into, run and called.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
# gimp-console 2.10 exits 0 even when a procedure fails: every batch
# command's own line is read (is_ok, batch_result).

. "${top_srcdir:-.}/tests/gimp-checks.sh"

gimp_console=${GIMP_CONSOLE:-gimp-console-2.10}
gimp_work_name=bm3d-gimp-test
gimp_scripts="data/bm3d-denoise-batch.scm tests/gimp-checks.scm
  tests/gimp-helpers.scm"

# The precisions, by GIMP 2.10's names.
u8=PRECISION-U8-GAMMA
u16=PRECISION-U16-GAMMA
f32=PRECISION-FLOAT-GAMMA
f32_linear=PRECISION-FLOAT-LINEAR

# Mode and backend are numbers in GIMP 2.10 (0: BM3D, 0: automatic).
bm3d_auto="0 0"

# Nothing beside the plug-in: under GIMP 2.10 it finds its catalogues
# in the folder it was built for (or BM3D_DENOISE_LOCALEDIR).
install_extras ()
{
  :
}

# run_gimp LOG EXPRESSION...: one gimp-console, one batch command per
# expression, a configuration folder that does not exist beforehand.
run_gimp ()
{
  local log=$1
  shift
  set_batch_args "$@"
  gimp_runs=$((gimp_runs + 1))
  GIMP2_DIRECTORY="$work/gimpdir-$gimp_runs" \
    timeout 600 "$gimp_console" -i -d -f --gimprc="$work/gimprc" \
    "${batch_args[@]}" -b '(gimp-quit 0)' > "$log" 2>&1
  echo "# gimp-console exited with status $? ($# batch commands)"
}

# start_console LOG: GIMP with its windows (under the tests' virtual
# display), its Script-Fu console reading standard input
# (tests/gimp-checks.sh, console_open).
start_console ()
{
  GIMP2_DIRECTORY="$work/gimpdir-console" \
    timeout 900 "${GIMP_GUI:-gimp-2.10}" --no-splash -d -f \
    --gimprc="$work/gimprc" -b - > "$1" 2>&1
}

# saved_values SIGMA MODE BACKEND [FAST SEARCH GROUP1 GROUP2 STEP LAMBDA
# CHROMA [VERSION [NOISE STRENGTH CHROMA-STRENGTH]]]: the bytes
# gimp_set_data stores for Bm3dValues (plugin/bm3d-values.h, 64 bytes,
# version 3; noise 0 is white, 1 camera), as a Script-Fu vector for
# t-set-last-values.  Little-endian: the test machines are x86-64 or
# arm64.
saved_values ()
{
  perl -e 'my ($s, $m, $b, $f, $se, $g1, $g2, $st, $l, $c, $v, $n, $k,
               $kc) = @ARGV;
           print "#(", join (" ", unpack ("C*",
             pack ("L< l< l< l< d< l< l< l< l< f< f< l< f< f< l<", $v // 3,
                   $m, $b, $f // 1, $s, $se // 0, $g1 // 0, $g2 // 0,
                   $st // 0, $l // 0, $c // 0, $n // 0, $k // 1, $kc // 1,
                   0))), ")"' -- "$@"
}

# The version 2 layout (48 bytes: no noise model), which version 3 must
# ignore: SIGMA MODE BACKEND.
saved_values_v2 ()
{
  perl -e 'print "#(", join (" ", unpack ("C*",
             pack ("L< l< l< l< d< l< l< l< l< f< f<", 2, $ARGV[1],
                   $ARGV[2], 1, $ARGV[0], 0, 0, 0, 0, 0, 0))), ")"' -- "$@"
}

# The version 1 layout (24 bytes: version, mode, backend, reserved,
# sigma), which version 3 must ignore.
saved_values_v1 ()
{
  perl -e 'print "#(", join (" ", unpack ("C*",
             pack ("L< l< l< L< d<", 1, $ARGV[1], $ARGV[2], 0,
                   $ARGV[0]))), ")"' -- "$@"
}
