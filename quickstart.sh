#!/usr/bin/env bash
# Sets everything up on a fresh Debian machine, denoises a sample image
# through the plug-in inside GIMP (headless), printing PSNR and time, and
# installs the plug-in and the command for the user who runs it.
# Debian 12 has GIMP 2.10, Debian 13 GIMP 3 (and no 2.10): the plug-in is
# built for the GIMP the system has.  The CUDA backend is built for the
# NVIDIA GPUs of this machine alone, and not at all without a driver.
#   bash quickstart.sh            # packages, build into _build, demo, install
#   QUICKSTART_NO_APT=1 bash quickstart.sh      # skip the package install
#   QUICKSTART_NO_INSTALL=1 bash quickstart.sh  # build and demo only
#   QUICKSTART_GIMP=2|3 bash quickstart.sh      # choose the GIMP yourself
#   QUICKSTART_CUDA=all|none|86,90 bash quickstart.sh
#       the GPUs to build for: every supported generation (a build to copy
#       to other machines; about 15 minutes more on two cores), none, or
#       these compute capabilities; by default this machine's (nvidia-smi)
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
  *) packages="gimp libgimp2.0-dev libgexiv2-dev gtk2-engines-pixbuf $packages" ;;
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

# The GPUs to build CUDA code for: the configure flags, and a few words.
gpus=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null \
         | tr -d '. ' | sort -u | paste -sd, -) || gpus=
case ${QUICKSTART_CUDA:-} in
  none) cuda_flags=--without-cuda; cuda_words="none (QUICKSTART_CUDA=none)" ;;
  all)  cuda_flags="--with-cuda --with-cuda-arch=all"
        cuda_words="every supported GPU generation (about 15 min on 2 cores)" ;;
  "")   if [ -n "$gpus" ]; then
          cuda_flags="--with-cuda --with-cuda-arch=$gpus"
          cuda_words="this machine's GPUs (sm_$gpus; 2-3 min on 2 cores)"
        else
          cuda_flags=--without-cuda
          cuda_words="none, no NVIDIA driver found (nvidia-smi): the CPU does the work; to add it once a driver is in, rm -rf _build and run this again (QUICKSTART_CUDA=all builds for every GPU)"
        fi ;;
  *)    cuda_flags="--with-cuda --with-cuda-arch=$QUICKSTART_CUDA"
        cuda_words="sm_$QUICKSTART_CUDA" ;;
esac
if [ -n "${QUICKSTART_NO_APT:-}" ]; then
  apt_words="none (QUICKSTART_NO_APT)"
else
  apt_words="GIMP and the build tools (apt-get; 1-3 min)"
fi
if [ -n "${QUICKSTART_NO_INSTALL:-}" ]; then
  install_words="none (QUICKSTART_NO_INSTALL)"
else
  install_words="the plug-in into your GIMP's folder, bm3d-denoise on your PATH"
fi
echo "== BM3D Denoise quick start: about 3 minutes on 2 cores, plus the GPU code"
echo "   packages: $apt_words"
echo "   build   : into _build (1 min); GPU code: $cuda_words"
echo "   demo    : a noisy sample denoised by the plug-in inside GIMP, headless"
echo "   install : $install_words"

[ -n "${QUICKSTART_NO_APT:-}" ] || install_packages

echo "== building into _build"
[ -x configure ] || autoreconf -fi
mkdir -p _build
cd _build
# shellcheck disable=SC2086
[ -f Makefile ] || ../configure --with-gimp="$gimp" $cuda_flags \
                     ${QUICKSTART_CONFIGURE_FLAGS:-}
make -j"$(nproc)"

echo "== denoising data/sample.png (sigma 25) with plug-in-bm3d-denoise in GIMP, headless"
"$top/data/demo.sh" "$top" "$(pwd)"

[ -z "${QUICKSTART_NO_INSTALL:-}" ] || exit 0
echo "== installing for $(id -un)"
make -s install-user
# The command: where root's or the user's PATH finds it.
if [ "$(id -u)" = 0 ]; then bindir=/usr/local/bin; else bindir=$HOME/.local/bin; fi
mkdir -p "$bindir"
install -m 755 cli/bm3d-denoise "$bindir/bm3d-denoise"
echo " installed the command as $bindir/bm3d-denoise"
case ":$PATH:" in
  *":$bindir:"*) ;;
  *) echo " $bindir is not on your PATH: add it with" \
          "echo 'export PATH=\"$bindir:\$PATH\"' >> ~/.profile and log in again" ;;
esac
echo "== ready: open an image in GIMP, then Filters > Enhance > BM3D Denoise...;" \
     "in a shell: bm3d-denoise --help"
