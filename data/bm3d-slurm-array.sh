#!/bin/bash
# Denoise a photo archive with a Slurm job array: every task takes its
# share of the files (every N-th of the sorted list) and runs one
# bm3d-denoise process per folder of its share, on the GPUs Slurm gave
# it, mirroring the archive's folders under OUTDIR.  Needs a file system
# that every node sees.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   sbatch --array=0-15 data/bm3d-slurm-array.sh ARCHIVE OUTDIR [OPTION]...
#
# OPTIONs go to bm3d-denoise (default: --sigma 20).  A task that fails
# on some files exits 1 (see its log); rerunning the array redoes only
# what is missing when BM3D_SKIP_DONE=1.
#
#SBATCH --job-name=bm3d-denoise
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=8
#SBATCH --mem=16G
#SBATCH --time=04:00:00
#SBATCH --output=bm3d-denoise-%A_%a.log
set -uo pipefail

if [ $# -lt 2 ]; then
  sed -n '2,/^[^#]/{/^#/p}' "$0" | sed '/Copyright (C)/,/any later version/d; /^#SBATCH/d' >&2
  exit 2
fi
archive=${1%/}
outdir=${2%/}
shift 2
[ $# -gt 0 ] || set -- --sigma 20
task=${SLURM_ARRAY_TASK_ID:-0}
tasks=${SLURM_ARRAY_TASK_COUNT:-1}
denoise=${BM3D_DENOISE:-bm3d-denoise}

# This task's files, grouped by folder (NUL-separated: any file name).
status=0
current= files=()
flush () {
  [ ${#files[@]} -gt 0 ] || return 0
  mkdir -p "$outdir/$current" || { status=1; return; }
  "$denoise" "$@" -o "$outdir/$current" "${files[@]}" || status=1
  files=()
}
while IFS= read -r -d '' rel; do
  dir=$(dirname "$rel")
  if [ "$dir" != "$current" ]; then
    flush "$@"
    current=$dir
  fi
  if [ "${BM3D_SKIP_DONE:-0}" = 1 ] && [ -e "$outdir/$rel" ]; then
    continue
  fi
  files+=("$archive/$rel")
done < <(cd "$archive" && find . -type f \( -iname '*.jpg' -o -iname '*.jpeg' \
           -o -iname '*.png' -o -iname '*.tif' -o -iname '*.tiff' \) -print0 \
         | sort -z \
         | awk -v RS='\0' -v ORS='\0' -v k="$task" -v n="$tasks" \
               '(NR - 1) % n == k { sub(/^\.\//, ""); print }')
flush "$@"
exit $status
