#!/usr/bin/env bash
# Builds the Python package for the GPU machine, which has CPython 3.12, CUDA 13 and no package
# registry: the tomoraster module for CPython 3.12 WITH CUDA (sm_90) from pyenv's 3.12 here,
# into .pygpu/tomoraster (the package and _core*.so), pytest (pure Python) in .pygpu, and in
# .pygpu/lib the Debian libraries _core links that the CUDA image lacks (as tools/gpu-pack.sh
# does for the executables). On the GPU machine, from the repository root (carry .pygpu, .gl):
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   LD_LIBRARY_PATH=$PWD/.pygpu/lib:/usr/local/cuda/lib64 PYTHONPATH=.pygpu \
#     python3.12 -m pytest -q -m gpu -p no:cacheprovider tests/python
# Everything of ours is inside the .so; libcufft/libnvrtc come from the machine's CUDA 13, the
# C and C++ runtimes and OpenSSL from its image.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PY312:-/root/.pyenv/versions/3.12.1/bin/python3.12}
venv=$root/build/venv312
build=$root/build-py312  # beside build/: the same relative paths, so ccache reuses its objects
out=$root/.pygpu
[ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
"$venv/bin/pip" install -q nanobind scikit-build-core numpy pytest
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
# The options pyproject.toml gives `pip install .`, with CUDA required and built for sm_90.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTOMO_PYTHON=ON -DTOMO_BUILD_TESTS=OFF \
  -DTOMO_BUILD_BENCH=OFF -DTOMO_WITH_WINDOW=OFF -DTOMO_PORTABLE=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DPython_EXECUTABLE="$venv/bin/python" "${launcher[@]}" >/dev/null
[ -d "$build/cuda" ] ||
  { echo "py-gpu-pack: no CUDA compiler found; the GPU package needs nvcc" >&2; exit 1; }
cmake --build "$build" -j"${JOBS:-2}" --target _core
rm -rf "$out"
mkdir -p "$out/tomoraster"
cp "$root"/python/tomoraster/*.py "$out/tomoraster/"
cp "$build"/python/_core*.so "$out/tomoraster/"
"$venv/bin/pip" install -q --no-compile --target "$out" pytest
mkdir -p "$out/lib"
ldd "$out"/tomoraster/_core*.so | awk '/=> \//{print $3}' |
  grep -vE '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|libssl|libcrypto|libresolv|libcufft|libnvrtc|libcuda)[.-]' |
  xargs -r cp -L -t "$out/lib"
du -sh "$out"
echo "On the GPU machine: LD_LIBRARY_PATH=\$PWD/.pygpu/lib:/usr/local/cuda/lib64 PYTHONPATH=.pygpu python3.12 -m pytest -q -m gpu -p no:cacheprovider tests/python"
