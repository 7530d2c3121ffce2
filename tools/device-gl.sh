#!/usr/bin/env bash
# The OpenGL/EGL loader packages the GPU machine's image lacks (it has the NVIDIA driver but
# no libglvnd, libEGL or libGL), fetched once here into .gl/ (git-ignored through
# info/exclude) as Debian packages for amd64. Carry ".gl" with the build folder
# (tools/gpu-pack.sh) and unpack them first on the GPU machine (tools/gpu-check.sh does):
#   for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
# If EGL then finds no NVIDIA device, also export
#   __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qx '/.gl/' "$exclude" 2>/dev/null || echo '/.gl/' >> "$exclude"
lists=$(mktemp -d)
trap 'rm -rf "$lists"' EXIT
mkdir -p .gl "$lists/partial"
apt_opts=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "-oDir::State::Lists=$lists")
apt-get "${apt_opts[@]}" update -qq >/dev/null
(cd .gl && apt-get "${apt_opts[@]}" download -qq libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 libglfw3)
ls .gl
