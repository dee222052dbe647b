#!/usr/bin/env bash
# Sets everything up on a fresh Debian machine and denoises a sample image
# through the plug-in inside GIMP (headless), printing PSNR and time.
# Debian 12 has GIMP 2.10, Debian 13 GIMP 3 (and no 2.10): the plug-in is
# built for the GIMP the system has.
#   bash quickstart.sh            # install packages, build into _build, demo
#   QUICKSTART_NO_APT=1 bash quickstart.sh   # skip the package install
#   QUICKSTART_GIMP=2|3 bash quickstart.sh   # choose the GIMP yourself
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
set -euo pipefail
cd "$(dirname "$0")"
top=$(pwd)

# Whether apt can install PACKAGE here.
apt_has ()
{
  apt-cache policy "$1" 2> /dev/null | grep -q 'Candidate: [0-9]'
}

# The GIMP to build for: the user's choice, else 2.10 where the system
# has it (as before), else GIMP 3.
gimp=${QUICKSTART_GIMP:-}
if [ -z "$gimp" ]; then
  if [ -n "${QUICKSTART_NO_APT:-}" ]; then
    gimp=auto
  elif apt_has libgimp2.0-dev; then
    gimp=2
  elif apt_has libgimp-3.0-dev; then
    gimp=3
  else
    gimp=2
  fi
fi

packages="autoconf automake autopoint libtool pkg-config
make gcc g++ gettext libpng-dev zlib1g-dev libjpeg62-turbo-dev libtiff-dev
python3"
# The dialog's tests run GIMP under a virtual display and drive it with
# xdotool; without these `make check` skips them.
packages="$packages xvfb xauth xdotool x11-utils imagemagick dbus"
case $gimp in
  3) packages="gimp libgimp-3.0-dev $packages" ;;
  *) packages="gimp libgimp2.0-dev gtk2-engines-pixbuf $packages" ;;
esac

install_packages () {
  local sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  echo "== installing build and test packages (apt-get)"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
  # shellcheck disable=SC2086
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends $packages
}

[ -n "${QUICKSTART_NO_APT:-}" ] || install_packages

echo "== building into _build"
[ -x configure ] || autoreconf -fi
mkdir -p _build
cd _build
# shellcheck disable=SC2086
[ -f Makefile ] || ../configure --with-gimp="$gimp" \
                     ${QUICKSTART_CONFIGURE_FLAGS:-}
make -j"$(nproc)"

echo "== denoising data/sample.png (sigma 25) with plug-in-bm3d-denoise in GIMP, headless"
exec "$top/data/demo.sh" "$top" "$(pwd)"
