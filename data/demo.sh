#!/usr/bin/env bash
# The main job: add noise of sigma 25 to the sample image, denoise it, and
# print PSNR before and after plus the time taken.
#   data/demo.sh SRCDIR BUILDDIR
set -euo pipefail
src=$1 build=$2
cmd="$build/cli/bm3d-denoise"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$cmd" --add-noise 25 --seed 1 "$src/data/sample.png" "$work/noisy.png"
start=$(date +%s.%N)
"$cmd" --sigma 25 "$work/noisy.png" "$work/denoised.png"
end=$(date +%s.%N)
echo "noisy    PSNR: $("$cmd" --compare "$src/data/sample.png" "$work/noisy.png")"
echo "denoised PSNR: $("$cmd" --compare "$src/data/sample.png" "$work/denoised.png")"
printf 'time: %.2f s (bm3d-denoise, whole command)\n' "$(echo "$end - $start" | bc -l 2>/dev/null || python3 -c "print($end-$start)")"
