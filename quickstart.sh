#!/usr/bin/env bash
# Sets everything up on a fresh Debian 12 machine and denoises a sample
# image through the plug-in inside GIMP (headless), printing PSNR and time.
#   bash quickstart.sh            # install packages, build into _build, demo
#   QUICKSTART_NO_APT=1 bash quickstart.sh   # skip the package install
set -euo pipefail
cd "$(dirname "$0")"
top=$(pwd)

packages="gimp libgimp2.0-dev autoconf automake autopoint libtool pkg-config
make gcc g++ gettext libpng-dev libjpeg62-turbo-dev libtiff-dev python3"
# The dialog's tests run GIMP under a virtual display and drive it with
# xdotool; without these `make check` skips them.
packages="$packages xvfb xauth xdotool x11-utils imagemagick
gtk2-engines-pixbuf dbus"

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
[ -f Makefile ] || ../configure ${QUICKSTART_CONFIGURE_FLAGS:-}
make -j"$(nproc)"

echo "== denoising data/sample.png (sigma 25) with plug-in-bm3d-denoise in GIMP, headless"
exec "$top/data/demo.sh" "$top" "$(pwd)"
