#!/bin/sh
# Each BM3D kernel's hardware counters at 12 MP under Nsight Compute:
# its time, the DRAM and L2 bandwidth it achieves (GB/s and share of
# the device's peak), the SM's and the shared memory's throughput, the
# issue slots used and the warps resident, so that docs/cuda-experiments.md
# can name what bounds each kernel on the machine it runs on.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
#
#   bench/ncu-kernels.sh BUILD [CHANNELS] [MEGAPIXELS]
#
# BUILD is a CUDA build folder (or a packed one, bench/pack-build.sh);
# CHANNELS 3 (default) or 1; MEGAPIXELS 2 (default: 1632x1224, one
# tile, as docs/cuda-experiments.md's earlier table).  One `ncu` run a
# kernel, on its first launch in `bm3d-bench` (one call, no warm-up);
# prints a Markdown table.  The times are under the profiler (clocks
# locked to base), so compare them with each other, and take the
# benchmark's own for wall time.  NCU_KEEP=DIR keeps ncu's CSV files.
set -eu
build=${1:?usage: bench/ncu-kernels.sh BUILD [CHANNELS] [MEGAPIXELS]}
channels=${2:-3}
mp=${3:-2}
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

metrics=gpu__time_duration.sum
metrics=$metrics,dram__bytes.sum.per_second
metrics=$metrics,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics=$metrics,lts__t_bytes.sum.per_second
metrics=$metrics,lts__throughput.avg.pct_of_peak_sustained_elapsed
metrics=$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed
metrics=$metrics,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics=$metrics,smsp__issue_active.avg.pct_of_peak_sustained_active
metrics=$metrics,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active
metrics=$metrics,launch__registers_per_thread

echo "| kernel | ms | DRAM GB/s | DRAM % | L2 GB/s | L2 % | smem % | SM % | issue % | FMA pipe % | warps % | regs |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for k in patch_norms block_match_rows collaborative_filter_hard \
         collaborative_filter_wiener aggregate colour_forward colour_inverse; do
  if ! "$ncu" --csv --page raw --metrics "$metrics" -k "regex:^$k" -c 1 \
         "$build/bench/bm3d-bench" --sizes "$mp" --channels "$channels" \
         --backends cuda --repeat 1 --no-warmup >"$tmp/$k.csv" 2>"$tmp/$k.err"
  then
    echo "| $k | ncu failed: $(tail -n 1 "$tmp/$k.err") |"
    continue
  fi
  # The raw page: a header row of metric names, a units row, one row a
  # profiled kernel.  Columns picked by name.
  awk -F'","' -v k="$k" -v m="$metrics" '
    { gsub(/^"|"$/, "") }
    # Numbers may carry thousands separators.
    function num(x) { gsub(/,/, "", x); return x + 0 }
    !head && $1 == "ID" { for (i = 1; i <= NF; i++) col[$i] = i; head = 1; next }
    head && !units { units = 1; for (i = 1; i <= NF; i++) unit[i] = $i; next }
    head && units && !done {
      n = split(m, name, ",")
      for (j = 1; j <= n; j++) v[j] = num($(col[name[j]]))
      # Time to ms, bandwidths to GB/s from whatever unit ncu chose.
      t = v[1]; u = unit[col[name[1]]]
      t = u ~ /^ns/ ? t / 1e6 : u ~ /^(us|usecond)/ ? t / 1e3 : u ~ /^(ms|msecond)/ ? t : u ~ /^(s|second)$/ ? t * 1e3 : t
      for (j = 2; j <= 4; j += 2) {
        u = unit[col[name[j]]]; s = v[j]
        s = u ~ /^T/ ? s * 1000 : u ~ /^G/ ? s : u ~ /^M/ ? s / 1000 : u ~ /^K/ ? s / 1e6 : s / 1e9
        v[j] = s
      }
      printf "| %s | %.3f | %.0f | %.1f | %.0f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %d |\n",
        k, t, v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11]
      done = 1
    }' "$tmp/$k.csv"
  [ -z "${NCU_KEEP:-}" ] || cp "$tmp/$k.csv" "$NCU_KEEP/ncu-$k-$channels.csv"
done
