# Shared by the benchmarks that time real gimp-console runs
# (bench/plugin-cost.sh, bench/gimp-batch-cost.sh); sourced, not run.
# Needs $gimp_console.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.

now () { date +%s.%N; }

# install_plugin DIR BINARY: BINARY as the plug-in of a GIMP
# configuration of its own in DIR (DIR/gimprc points GIMP at it, and
# DIR/gimpdir is made afresh by the first run, then reused: a fresh one
# costs GIMP several seconds of set-up per run).
install_plugin ()
{
  local dir=$1 binary=$2
  mkdir -p "$dir/plug-ins/bm3d-denoise-gimp"
  cp "$binary" "$dir/plug-ins/bm3d-denoise-gimp/bm3d-denoise-gimp"
  cat > "$dir/gimprc" <<EOF2
(plug-in-path "\${gimp_dir}/plug-ins:\${gimp_plug_in_dir}/plug-ins:$dir/plug-ins")
EOF2
  rm -rf "$dir/gimpdir"
}

# gimp DIR LOG EXPRESSION [ENV...]: one gimp-console process with DIR's
# plug-in (install_plugin) running EXPRESSION, its output in LOG; exits
# the benchmark unless the batch command succeeded.
gimp ()
{
  local dir=$1 log=$2 expr=$3
  shift 3
  env GIMP2_DIRECTORY="$dir/gimpdir" "$@" \
    timeout 900 "$gimp_console" -i -d -f --gimprc="$dir/gimprc" \
    -b "$expr" -b '(gimp-quit 0)' > "$log" 2>&1 || true
  if ! grep -q 'batch command executed successfully' "$log" \
     || grep -q -E 'execution error|Plug-in crashed' "$log"; then
    echo "gimp-console failed:" >&2
    sed 's/^/  /' "$log" >&2
    exit 1
  fi
}

# work_folder KEEP NAME: $work, KEEP when given (kept), else a temporary
# folder named after NAME, removed on exit.
work_folder ()
{
  if [ -n "$1" ]; then
    work=$1; mkdir -p "$work"
  else
    work=$(mktemp -d "${TMPDIR:-/tmp}/$2.XXXXXX")
    trap 'rm -rf "$work"' EXIT
  fi
}

# median: the median of the numbers on stdin, one a line.
median ()
{
  sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
                                        else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# build_folder DIR: $build (DIR, absolute), $plugin and $photos in it;
# exits unless both are built.
build_folder ()
{
  build=$(cd "$1" && pwd)
  plugin=$build/plugin/bm3d-denoise-gimp
  photos=$build/bench/bm3d-batch-photos
  [ -x "$plugin" ] && [ -x "$photos" ] \
    || { echo "build $build first" >&2; exit 1; }
}
