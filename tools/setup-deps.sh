#!/usr/bin/env bash
# Installs the Debian packages tomoraster builds and runs with (only those missing).
# Used by tools/run-default.sh, tools/test.sh and .ci/run. Needs root or sudo.
set -euo pipefail
packages=(
  cmake g++ make pkg-config
  libglfw3-dev libglm-dev libstb-dev libtomlplusplus-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libbenchmark-dev libfftw3-dev libtiff-dev
  libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri
  libimgui-dev xvfb xauth
  clang libclang-rt-14-dev libomp-14-dev
  zlib1g-dev liblz4-dev libzstd-dev liblzma-dev libxxhash-dev libhdf5-dev libhdf4-dev libnlopt-cxx-dev python3-numpy python3-iminuit
  python3-venv python3-dev help2man
  libopenmpi-dev openmpi-bin librandom123-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "tomoraster: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
