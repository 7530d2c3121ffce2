#!/usr/bin/env bash
# Packs GAPAT (pure Python) and what it needs that the GPU machine lacks — Taichi 1.7 and dill — for
# CPython 3.12 into .gapat/ (ignored). Taichi's wheel (56 MB) does not fit in one device call beside
# the source tree, so it is repacked without what `import taichi` and ti.init(arch=ti.cuda) do not
# load: its C API library (a second 55 MB copy of the compiler), the C headers of its data folder,
# its GUI assets and examples; debug sections stripped; xz instead of the wheel's deflate.
#   taichi-<v>-cp312-slim.tar.xz   untar into a folder on PYTHONPATH
#   gapat-*.whl, dill-*.whl        pip install --no-index --no-deps --target that folder
# On the GPU machine (carry .gapat): bench/peers/request.sh does both.
# Env: TAICHI_VERSION (1.7.4), GAPAT_VERSION (1.2.0), DILL_VERSION (0.4.1), PIP_PYTHON (python3).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
out=.gapat
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qx '/.gapat/' "$exclude" 2>/dev/null || echo '/.gapat/' >> "$exclude"
tv=${TAICHI_VERSION:-1.7.4}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pip_dl() {
  "${PIP_PYTHON:-python3}" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d "$1" "$2"
}
rm -rf "$out"
mkdir -p "$out"
pip_dl "$tmp" "taichi==$tv"
pip_dl "$out" "gapat==${GAPAT_VERSION:-1.2.0}"
pip_dl "$out" "dill==${DILL_VERSION:-0.4.1}"
mkdir -p "$tmp/site"
unzip -q "$tmp"/taichi-"$tv"-*.whl -d "$tmp/site" -x 'taichi/_lib/c_api/*' "taichi-$tv.data/*" 'taichi/assets/*' \
  'taichi/examples/*'
find "$tmp/site" -name '*.so' -print0 | xargs -0 strip --strip-debug
XZ_OPT=${XZ_OPT:--6} tar -cJf "$out/taichi-$tv-cp312-slim.tar.xz" -C "$tmp/site" .
# Taichi's own needs (numpy, colorama, rich on the image; dill carried):
unzip -p "$tmp"/taichi-"$tv"-*.whl '*/METADATA' | grep '^Requires-Dist' | tee "$out/MANIFEST.txt"
ls -l "$out" | tee -a "$out/MANIFEST.txt"
