#!/bin/sh
# No photo lost, no hang, nothing hostile on the terminal:
#  - INPUT OUTPUT where OUTPUT is INPUT by name, "./", a symbolic or a
#    hard link: refused for a denoise, --convert and --add-noise, the
#    input byte-identical;
#  - a write that fails on a full disk (a small tmpfs; needs root, else
#    skipped visibly) leaves an existing OUTPUT as it was, no temporary
#    file, and says "No space left on device";
#  - SIGINT or SIGTERM during a large write: the old OUTPUT intact or the
#    new one complete, no temporary file, death by the signal;
#  - OUTPUT keeps its permissions, and a symbolic link stays a link;
#  - PNG chunks that claim gigabytes: refused at once in little memory;
#  - control characters from a file's header do not reach the terminal;
#  - a FIFO as input is refused, not waited on (also in a batch);
#  - a JPEG too wide for the format is refused before the denoise;
#  - an ICC profile over the 16 MiB limit is dropped with a message.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-$(dirname "$0")/..}/tests/cli-lib.sh"

cmd=$BM3D_DENOISE

if ! has_python; then
  echo "1..0 # SKIP python3 not found"
  exit 0
fi
generate_images >/dev/null || { echo "Bail out! cannot write test images"; exit 1; }
if has_png; then ext=png; else ext=ppm; fi

# no_temporary_files DIR: nothing named .NAME.XXXXXX left in DIR.
no_temporary_files ()
{
  ! ls -A "$1" | grep -q '^\.'
}

# ---- an output that is the input ---------------------------------------
"$cmd" --convert "$work/rgb8.ppm" "$work/photo.$ext"
cp "$work/photo.$ext" "$work/photo-copy.$ext"
ln -s "photo.$ext" "$work/link.$ext"
ln "$work/photo.$ext" "$work/hard.$ext"
for spelling in "$work/photo.$ext" "$work/./photo.$ext" "$work/link.$ext" \
                "$work/hard.$ext"; do
  name=$(basename "$spelling")
  case $spelling in */./*) name="./$name" ;; esac
  for action in denoise convert add-noise; do
    case $action in
      denoise) set -- --sigma 20 ;;
      convert) set -- --convert ;;
      add-noise) set -- --add-noise 10 ;;
    esac
    expect_error 1 'is the input file' \
      "$action: OUTPUT $name is the input, refused" \
      "$cmd" "$@" "$work/photo.$ext" "$spelling"
  done
done
check "the input is byte-identical after all of them" \
  cmp "$work/photo.$ext" "$work/photo-copy.$ext"
check "the links are still links to it" \
  sh -c "test -L '$work/link.$ext' &&
         test \$(stat -c %i '$work/hard.$ext') = \$(stat -c %i '$work/photo.$ext')"

# ---- permissions, links, no temporary file -----------------------------
"$cmd" --convert "$work/rgb8.ppm" "$work/mode.$ext"
chmod 640 "$work/mode.$ext"
"$cmd" --sigma 20 "$work/rgb8.ppm" "$work/mode.$ext"
check "an existing OUTPUT keeps its permissions (640)" \
  test "$(stat -c %a "$work/mode.$ext")" = 640
cp "$work/mode.$ext" "$work/mode-before.$ext"
chmod 444 "$work/mode.$ext"
if [ "$(id -u)" = 0 ]; then
  skip "a read-only OUTPUT is not replaced" "root may write any file"
else
  expect_error 1 'cannot write: Permission denied' \
    "a read-only OUTPUT is not replaced" \
    "$cmd" --sigma 10 "$work/rgb8.ppm" "$work/mode.$ext"
fi
check "and it is unchanged" cmp "$work/mode.$ext" "$work/mode-before.$ext"
chmod 644 "$work/mode.$ext"
"$cmd" --convert "$work/rgb8.ppm" "$work/target.$ext"
ln -s "target.$ext" "$work/out-link.$ext"
"$cmd" --sigma 20 "$work/rgb8.ppm" "$work/out-link.$ext"
check "OUTPUT a symbolic link: written through, the link kept" \
  sh -c "test -L '$work/out-link.$ext' &&
         ! cmp -s '$work/target.$ext' '$work/photo.$ext' &&
         cmp '$work/target.$ext' '$work/mode.$ext'"
check "no temporary file left beside the outputs" no_temporary_files "$work"

# ---- a full disk -------------------------------------------------------
# A 2 MiB tmpfs holding an earlier result, then filled up to 300 KiB:
# a 512 x 512 RGB PNG without compression (768 KiB) cannot fit.
disk=$work/disk
mkdir "$disk"
if [ "$(id -u)" != 0 ]; then
  skip "a full disk keeps the existing OUTPUT" "not root: cannot mount a tmpfs"
elif ! mount -t tmpfs -o size=2m bm3d-test "$disk" 2>"$work/mount.err"; then
  skip "a full disk keeps the existing OUTPUT" \
    "cannot mount a tmpfs: $(head -n 1 "$work/mount.err")"
else
  trap 'umount "$disk" 2>/dev/null; rm -rf "$work"' EXIT
  python3 -c "
import os, sys
w = h = 512
sys.stdout.buffer.write(b'P6 %d %d 255\n' % (w, h) + os.urandom(w * h * 3))
" >"$work/big.ppm"
  "$cmd" --convert "$work/rgb8.ppm" "$disk/result.png" 2>/dev/null
  "$cmd" --convert "$work/rgb8.ppm" "$disk/result.tif" 2>/dev/null
  cp "$disk/result.png" "$work/result-before.png"
  cp "$disk/result.tif" "$work/result-before.tif" 2>/dev/null
  free=$(df -k --output=avail "$disk" | tail -n 1)
  dd if=/dev/zero of="$disk/filler" bs=1k count=$((free - 300)) 2>/dev/null
  for fmt in png tif; do
    if [ ! -e "$disk/result.$fmt" ]; then
      skip "full disk, .$fmt: the existing OUTPUT kept" "no $fmt support"
      continue
    fi
    expect_error 1 'No space left on device' \
      "full disk, .$fmt: one line with the system's reason" \
      "$cmd" --png-level 0 --convert "$work/big.ppm" "$disk/result.$fmt"
    check "full disk, .$fmt: the existing OUTPUT is unchanged" \
      cmp "$disk/result.$fmt" "$work/result-before.$fmt"
    check "full disk, .$fmt: no temporary file left" no_temporary_files "$disk"
  done
  umount "$disk"
  trap 'rm -rf "$work"' EXIT
fi

# ---- a signal during a large write --------------------------------------
# 4000 x 4000 random gray at zlib level 9: seconds of writing.
python3 -c "
import os, sys
w = h = 4000
sys.stdout.buffer.write(b'P5 %d %d 255\n' % (w, h) + os.urandom(w * h))
" >"$work/huge.pgm"
mkdir "$work/sig"
for sig in INT TERM; do
  out=$work/sig/old.$ext
  cp "$work/photo.$ext" "$out"
  set -m 2>/dev/null
  "$cmd" --png-level 9 --convert "$work/huge.pgm" "$out" 2>"$work/sig.err" &
  pid=$!
  set +m
  # Wait until the temporary file exists and holds something.
  n=0
  while [ $n -lt 600 ]; do
    temp=$(ls -A "$work/sig" | grep '^\.' | head -n 1)
    [ -n "$temp" ] && [ -s "$work/sig/$temp" ] && break
    sleep 0.02; n=$((n + 1))
  done
  kill -s "$sig" "$pid"
  wait "$pid" 2>/dev/null
  status=$?
  if cmp -s "$out" "$work/photo.$ext"; then
    state=old
  elif "$cmd" --compare "$work/huge.pgm" "$out" 2>/dev/null | grep -q inf; then
    state=new
  else
    state=damaged
  fi
  if [ "$status" -gt 128 ] && [ "$state" != damaged ] \
     && no_temporary_files "$work/sig"; then
    ok "SIG$sig during the write: $state OUTPUT intact, no temporary file (status $status)"
  else
    not_ok "SIG$sig during the write: OUTPUT intact, no temporary file"
    echo "# status $status, OUTPUT $state, files: $(ls -A "$work/sig" | tr '\n' ' ')"
    sed 's/^/#   /' "$work/sig.err"
  fi
done

# ---- hostile headers ---------------------------------------------------
# A 1 x 1 PNG whose CHUNK claims 2^31 - 1 bytes (57 bytes in all).
huge_chunk ()
{
  python3 -c "
import struct, sys, zlib
def chunk(kind, data, length=None):
    n = len(data) if length is None else length
    return struct.pack('>I', n) + kind + data + \
        struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
ihdr = struct.pack('>IIBBBBB', 1, 1, 8, 0, 0, 0, 0)
sys.stdout.buffer.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) +
                        chunk(sys.argv[1].encode(), b'k\0v', 2**31 - 1))
" "$1"
}
if has_png; then
  for kind in tEXt zTXt iTXt sPLT iCCP; do
    huge_chunk $kind >"$work/huge-$kind.png"
    if [ -x /usr/bin/time ]; then
      /usr/bin/time -f '%e %M' -o "$work/time.out" \
        "$cmd" --convert "$work/huge-$kind.png" "$work/huge-out.png" \
        2>"$work/run.err"
      rc=$?
    else
      run "$cmd" --convert "$work/huge-$kind.png" "$work/huge-out.png"
      echo "0 0" >"$work/time.out"
    fi
    read -r seconds kib <<EOF
$(tail -n 1 "$work/time.out")
EOF
    # libpng before 1.6.4x names the chunk ("... too large"); later ones
    # stop at the end of the file without reading what it claims.
    if [ "$rc" -eq 1 ] && one_line_error "$kind.*too large|truncated PNG" \
       && awk -v s="$seconds" -v k="$kib" 'BEGIN { exit !(s < 1 && k < 100000) }' \
       && [ ! -e "$work/huge-out.png" ]; then
      ok "PNG $kind chunk of 2 GB claimed: refused in $seconds s, $kib KiB"
    else
      not_ok "PNG $kind chunk of 2 GB claimed: refused at once, little memory"
      echo "# status $rc, $seconds s, $kib KiB"
      sed 's/^/#   /' "$work/run.err"
    fi
  done
else
  skip "PNG chunks that claim gigabytes" "no PNG support"
fi

# A PFM header whose scale carries an escape sequence.
printf 'PF\n1 1\n\033[31mred\033]0;title\007\n' >"$work/escape.pfm"
expect_error 1 'invalid scale' "a PFM scale with escapes: one line" \
  "$cmd" --convert "$work/escape.pfm" "$work/escape-out.pfm"
check "no control character reached the message" \
  sh -c "! LC_ALL=C grep -q '[[:cntrl:]]' '$work/run.err'"

# ---- non-regular inputs -------------------------------------------------
mkfifo "$work/fifo.$ext"
run timeout 10 "$cmd" --sigma 20 "$work/fifo.$ext" "$work/fifo-out.$ext"
if [ "$rc" -eq 1 ] && one_line_error 'not a regular file'; then
  ok "a FIFO as INPUT is refused, not waited on"
else
  not_ok "a FIFO as INPUT is refused, not waited on"
  echo "# exit status $rc"; sed 's/^/#   /' "$work/run.err"
fi
mkdir "$work/fifo-batch"
run timeout 20 "$cmd" --sigma 20 -o "$work/fifo-batch" "$work/fifo.$ext" \
  "$work/photo.$ext"
check "a batch reports the FIFO and does the other file" \
  sh -c "test $rc -eq 1 && grep -q 'not a regular file' '$work/run.err' &&
         test -s '$work/fifo-batch/photo.$ext'"

# ---- an output format's limits, before the work ------------------------
if "$cmd" --version | grep -q '^JPEG support: yes'; then
  python3 -c "
import sys
sys.stdout.buffer.write(b'P5 65501 2 255\n' + bytes(65501 * 2))
" >"$work/wide.pgm"
  expect_error 1 'JPEG holds at most 65500 pixels' \
    "a JPEG wider than 65,500 pixels: refused before the denoise" \
    "$cmd" --sigma 20 --mode bm3d "$work/wide.pgm" "$work/wide.jpg"
  check "and no file written" test ! -e "$work/wide.jpg"
else
  skip "a JPEG wider than 65,500 pixels" "no JPEG support"
fi

# ---- an ICC profile over the limit --------------------------------------
if has_png; then
  # A well-formed RGB profile (as tests/cli-files.py makes) of 16.5 MiB,
  # which libpng keeps and the command drops, and of 40 MiB, which libpng
  # leaves out itself.
  for mib in 16.5 40; do
    python3 -c "
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + \
        struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
size = int(float(sys.argv[1]) * (1 << 20))
header = struct.pack('>I4sI4s4s4s12s4s4sI4sI8sI12s4s16s28s',
                     size, b'none', 0x02100000, b'mntr', b'RGB ', b'XYZ ',
                     bytes(12), b'acsp', b'APPL', 0, b'none', 0, bytes(8),
                     0, struct.pack('>iii', 0xF6D6, 0x10000, 0xD32D),
                     b'none', bytes(16), bytes(28))
tags = struct.pack('>I4sII', 1, b'cprt', 144, size - 144)
body = (bytes((i * 7) & 0xff for i in range(256)) * (size // 256 + 1))
profile = header + tags + body[:size - 144]
ihdr = struct.pack('>IIBBBBB', 2, 2, 8, 2, 0, 0, 0)
raw = b'\0' + bytes(range(6)) + b'\0' + bytes(range(6, 12))
sys.stdout.buffer.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) +
    chunk(b'iCCP', b'big\0\0' + zlib.compress(profile, 9)) +
    chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
" "$mib" >"$work/icc-$mib.png"
    run "$cmd" --convert "$work/icc-$mib.png" "$work/icc-out.png"
    if [ "$rc" -eq 0 ] && one_line_error 'ICC profile.* dropped'; then
      ok "an ICC profile of $mib MiB: dropped, said on one line"
    else
      not_ok "an ICC profile of $mib MiB: dropped, said on one line"
      echo "# exit status $rc"; sed 's/^/#   /' "$work/run.err"
    fi
  done
else
  skip "an ICC profile over the limit" "no PNG support"
fi

finish
