# Shared by tests/gimp-save.sh (GIMP 2.10) and tests/gimp3-save.sh
# (GIMP 3), sourced after gimp-lib.sh or gimp3-lib.sh: the inputs of the
# batch's saves and the checks on what it wrote (tests/gimp-saved.py
# reads the files).
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.

saved="python3 $top_srcdir/tests/gimp-saved.py"

# The test's start: GIMP set up, and the inputs below made.
setup_save_test ()
{
  require_tools
  command -v python3 > /dev/null 2>&1 || skip_all "python3 not found"
  setup_gimp
  make_inputs
  make_save_inputs
}

# The files, from make_inputs' noisy colour crop, in $work/save-in:
#   a.png  8-bit RGB with an ICC profile, EXIF and a comment
#   b.png  the same at 16 bits
#   c.jpg  quality 87, the same metadata
#   d.tif  Deflate, the same metadata
#   e.tif  uncompressed, no metadata
#   f.tif  PackBits, no metadata
# JPEG and TIFF need the command built with libjpeg and libtiff; without
# them save_formats lists the PNG files alone.
make_save_inputs ()
{
  local in=$work/save-in
  mkdir -p "$in"
  $saved with-meta "$work/noisy-rgb.png" "$in/a.png" || exit 1
  "$command" --convert --depth 16 "$in/a.png" "$in/b.png" || exit 1
  save_formats="a.png b.png"
  if "$command" --convert --quality 87 "$in/a.png" "$work/c-plain.jpg" \
       2> /dev/null; then
    $saved with-comment "$work/c-plain.jpg" "$in/c.jpg" || exit 1
    save_formats="$save_formats c.jpg"
  fi
  if "$command" --convert "$in/a.png" "$in/d.tif" 2> /dev/null; then
    $saved plain-tiff "$work/noisy-rgb.png" "$in/e.tif" || exit 1
    $saved packbits-tiff "$work/noisy-rgb.png" "$in/f.tif" || exit 1
    save_formats="$save_formats d.tif e.tif f.tif"
  fi
}

# zlib's FLEVEL for a compression level, as deflate writes it.
flevel_of ()
{
  if test "$1" -lt 2; then echo 0
  elif test "$1" -lt 6; then echo 1
  elif test "$1" -eq 6; then echo 2
  else echo 3
  fi
}

# fact FILE KEY: one line of gimp-saved.py's description of FILE,
# described once for each state of the file (its name, inode, time and size).
fact ()
{
  local kept
  kept=$work/facts/$(stat -c '%n %i %.9Y %s' "$1" 2>/dev/null | cksum | tr ' ' -)
  if ! test -f "$kept"; then
    mkdir -p "$work/facts"
    $saved describe "$1" > "$kept.new" && mv "$kept.new" "$kept"
  fi
  sed -n "s/^$2 //p" "$kept" 2>/dev/null
}

# same_fact KEY IN OUT: OUT has IN's KEY.
same_fact ()
{
  local a b
  a=$(fact "$2" "$1") b=$(fact "$3" "$1")
  echo "$1: input $a, result $b"
  test -n "$a" && test "$a" = "$b"
}

# is_fact KEY VALUE FILE
is_fact ()
{
  local v
  v=$(fact "$3" "$1")
  echo "$1: $v, expected $2"
  test "$v" = "$2"
}

# own_writer FILE: FILE's image data, over 8192 bytes, does not start
# with a chunk of 8192 bytes, as libpng (GIMP's PNG export) cuts it: the
# project's writer wrote it (the zlib header alone, then chunks of 1 MiB).
own_writer ()
{
  local sizes
  sizes=$(fact "$1" idat)
  echo "IDAT: first chunk and all of them ${sizes:-none} bytes"
  set -- $sizes
  test $# -eq 2 && test "$2" -gt 8192 && test "$1" -ne 8192
}

# check_saved_folder OUT LEVEL LABEL: every input of make_save_inputs
# has its result in OUT, in its format, depth, ICC profile, EXIF and
# comment; JPEG at its quality and sampling, TIFF with its compression,
# PNG at zlib level LEVEL, written by the project's PNG writer.
check_saved_folder ()
{
  local out=$1 level=$2 label=$3 in=$work/save-in name key
  for name in $save_formats; do
    check "$label: $name written" test -f "$out/$name"
    test -f "$out/$name" || continue
    for key in format depth icc make; do
      case $name:$key in
        *.jpg:depth | [ef].tif:icc) continue ;;
      esac
      check "$label: $name keeps its $key" same_fact "$key" "$in/$name" \
        "$out/$name"
    done
    case $name in
      *.png)
        check "$label: $name written at zlib level $level" \
          is_fact flevel "$(flevel_of "$level")" "$out/$name"
        check "$label: $name keeps its comment" \
          same_fact comment "$in/$name" "$out/$name"
        check "$label: $name written by the project's PNG writer" \
          own_writer "$out/$name" ;;
      *.jpg)
        check "$label: $name keeps its quality (quantization tables)" \
          same_fact tables "$in/$name" "$out/$name"
        check "$label: $name keeps its chroma sampling" \
          same_fact sampling "$in/$name" "$out/$name"
        check "$label: $name keeps its comment" \
          same_fact comment "$in/$name" "$out/$name" ;;
      *.tif)
        check "$label: $name keeps its compression" \
          same_fact compression "$in/$name" "$out/$name" ;;
    esac
  done
}

# check_png_level OUT LEVEL LABEL: the PNG results in OUT are written at
# zlib level LEVEL by the project's PNG writer.
check_png_level ()
{
  local name
  for name in a.png b.png; do
    check "$3: $name written at zlib level $2" \
      is_fact flevel "$(flevel_of "$2")" "$1/$name"
    check "$3: $name written by the project's PNG writer" \
      own_writer "$1/$name"
  done
}

# check_paths LOG LABEL: the batch whose log (BM3D_PLUGIN_TIMES=1) is
# LOG read and wrote each PNG and JPEG of make_save_inputs itself
# ("by imageio"), and left each TIFF to GIMP's loader and export.
check_paths ()
{
  local name by
  for name in $save_formats; do
    case $name in
      *.tif) by=GIMP ;;
      *) by=imageio ;;
    esac
    check "$2: $name read and written by $by" \
      grep -q "save-in/$name: load .* by $by\$" "$1"
  done
}
