#!/usr/bin/env bash
# Packs a CUDA build for the GPU machine (run here, after building BUILD_DIR, default
# build-gpu, with -DCMAKE_CUDA_ARCHITECTURES=90): executables and test scripts without
# object files into .gpu/build.tar.xz, plus the shared libraries the GPU machine's
# image lacks into .gpu/lib. Carry ".gpu" and ".gl" (tools/device-gl.sh).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
build=${1:-build-gpu}
exclude=$(git rev-parse --git-path info/exclude)  # a worktree's .git is a file
mkdir -p "$(dirname "$exclude")"
grep -qx '/.gpu/' "$exclude" 2>/dev/null || echo '/.gpu/' >> "$exclude"
rm -rf .gpu
mkdir -p .gpu/lib
# The carried tree is limited to 64 MiB: test executables that only test CPU/llvmpipe code
# (every test_<folder> without _gpu, but test_apps) stay here unless GPU_PACK_ALL=1.
skip=()
if [ "${GPU_PACK_ALL:-0}" != 1 ]; then
  for t in "$build"/tests/test_*; do
    n=$(basename "$t")
    [[ " ${GPU_PACK_KEEP:-} " == *" $n "* ]] && continue  # GPU_PACK_KEEP="test_oat test_musr": carry these too
    # test_musr: `ctest -L gpu` runs its gl-compute tests on the GPU's own GL driver.
    case "$n" in *_gpu|test_apps|test_musr|*.*) ;; *) [ -f "$t" ] && skip+=("--exclude=$t") ;; esac
  done
fi
# The Python build trees and venv never travel; GPU_PACK_EXCLUDE adds tar patterns of your own
# (e.g. "bench_engine tomoraster-view") for a run that does not need them.
for p in python python-wheel venv venv312 ${GPU_PACK_EXCLUDE:-}; do skip+=("--exclude=$p"); done
# xz -9: a 64 MiB dictionary, so the CUDA fat binaries that every executable links (~10 MB each,
# more than -6's 8 MiB window) compress once across files instead of once per file.
XZ_OPT=${XZ_OPT:--9} tar -cJf .gpu/build.tar.xz --exclude=CMakeFiles --exclude='*.o' --exclude='*.a' --exclude='*.cpp' "${skip[@]}" "$build"
# Libraries from this distribution that the CUDA image does not ship.
# tomoraster-view's display libraries travel too, so that it starts there and reports the
# missing display itself instead of failing in the dynamic loader.
find "$build" -type f -perm -u+x \( -name 'tomoraster*' -o -name 'test_*' -o -name 'bench_*' \) -print0 |
  xargs -0 -n1 ldd 2>/dev/null | awk '/=> \//{print $3}' |
  grep -E 'libgomp|libfftw3|libtomlplusplus|libbenchmark|libglfw|libstb|libX11|libxcb|libXau|libXdmcp|libbsd|libmd\.|libhdf5|libmfhdf|libdf\.|libtirpc|libjpeg|libsz|libaec|libcurl|libnghttp2|libidn2|librtmp|libssh2|libpsl|libgssapi|libldap|liblber|libbrotli|libunistring|libgnutls|libnettle|libhogweed|libgmp|libp11|libtasn1|libkrb5|libk5crypto|libcom_err|libkeyutils|libsasl2|libzstd|liblz4|libnlopt|libz\.|libffi|libtiff|libwebp|libLerc|libjbig|libjpeg|libdeflate|liblzma' |
  sort -u | xargs -r cp -L -t .gpu/lib
du -sh .gpu .gl 2>/dev/null
