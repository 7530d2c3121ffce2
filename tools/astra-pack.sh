#!/usr/bin/env bash
# Packs ASTRA's PyPI wheel (astra-toolbox, cp312) with what it needs of CUDA 12 into .astra/ for
# the GPU machine, which has neither and cannot download (bench/python/astra_side_by_side.py).
#
# What libastra.so.0 needs (readelf -d; the script prints it again): libcudart.so.12 and
# libcufft.so.11, found through RUNPATH $ORIGIN/../nvidia/{cuda_runtime,cufft}/lib. The runtime
# comes from nvidia-cuda-runtime-cu12 (only libcudart.so.12, 0.7 MB, of its 9 MB). cuFFT 11
# (nvidia-cufft-cu12, ~200 MB) does not fit in a device call's 64 MiB, but the GPU machine has
# cuFFT 12 (CUDA 13), whose API for the five calls libastra makes is the same:
# tools/stubs/cufft_forward.c builds a libcufft.so.11 with the same SONAME and symbol version and
# exactly the symbols libastra imports (checked below), each forwarding by dlvsym to
# libcufft.so.12's. ASTRA's filtering (FDK_CUDA, FBP_CUDA) therefore runs with the machine's cuFFT;
# libcufft.so.12 must be on the loader's path there (LD_LIBRARY_PATH=/usr/local/cuda/lib64, or
# CUFFT_FORWARD_TARGET=/path/libcufft.so.12). Debug sections are stripped (libastra.so.0 40 MB ->
# ~13 MB; its CUDA fat binaries, sm_50..sm_120, stay).
#
# Output: .astra/astra-cp312.tar.xz (site/astra, site/nvidia/...) and .astra/MANIFEST.txt.
# On the GPU machine (carry ".astra"):
#   mkdir -p /tmp/astra && tar -xJf .astra/astra-cp312.tar.xz -C /tmp/astra && export PYTHONPATH=/tmp/astra/site
# ASTRA_CHECK_PYTHON=/path/python3.12 (with numpy and scipy) also checks `import astra` here with
# the packed folder alone on PYTHONPATH (the GPU call itself cannot run here).
# Env: ASTRA_VERSION (2.5.0), CUDART_VERSION (12.9.79), ASTRA_PACK_CACHE (download cache),
# PIP_PYTHON (python3: the interpreter whose pip downloads).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
astra_version=${ASTRA_VERSION:-2.5.0}
cudart_version=${CUDART_VERSION:-12.9.79}
cache=${ASTRA_PACK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tomoraster-astra-pack}
out=.astra
exclude=$(git rev-parse --git-path info/exclude)
grep -qx '/.astra/' "$exclude" 2>/dev/null || echo '/.astra/' >> "$exclude"

mkdir -p "$cache"
platforms=()
for p in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux1_x86_64; do
  platforms+=(--platform "$p")
done
download() {  # wheel name==version, for CPython 3.12 on x86-64 Linux
  "${PIP_PYTHON:-python3}" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp "${platforms[@]}" -d "$cache" "$1"
}
download "astra-toolbox==$astra_version"
download "nvidia-cuda-runtime-cu12==$cudart_version"
astra_whl=$(find "$cache" -maxdepth 1 -name "astra_toolbox-$astra_version-cp312-*.whl" | head -n1)
cudart_whl=$(find "$cache" -maxdepth 1 -name "nvidia_cuda_runtime_cu12-$cudart_version-*.whl" | head -n1)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
site=$work/site
mkdir -p "$site/nvidia/cuda_runtime/lib" "$site/nvidia/cufft/lib"
unzip -q "$astra_whl" 'astra/*' -d "$site"
unzip -q -j "$cudart_whl" 'nvidia/cuda_runtime/lib/libcudart.so.12' -d "$site/nvidia/cuda_runtime/lib"

lib=$site/astra/libastra.so.0
needed=$(readelf -d "$lib" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')
for want in libcudart.so.12 libcufft.so.11; do
  [[ " $needed " == *" $want "* ]] || { echo "astra-pack: libastra.so.0 no longer needs $want (NEEDED: $needed); revisit this script" >&2; exit 1; }
done
# The forwarder must define exactly what libastra imports from cuFFT, under the same version node.
imports=$(nm -D --undefined-only "$lib" | awk '/@libcufft\.so\.11/{sub(/@.*/, "", $2); print $2}' | sort)
stub_src=tools/stubs/cufft_forward.c
defined=$(grep -oE '^FORWARD\((cufft[A-Za-z0-9_]+),' "$stub_src" | sed -E 's/^FORWARD\((.*),/\1/' | sort)
if [ "$imports" != "$defined" ]; then
  echo "astra-pack: libastra.so.0 imports these cuFFT symbols: $(echo "$imports" | tr '\n' ' ')" >&2
  echo "            $stub_src defines: $(echo "$defined" | tr '\n' ' ')" >&2
  exit 1
fi
{ echo 'libcufft.so.11 {'; echo '  global:'; for s in $imports; do echo "    $s;"; done; echo '  local: *;'; echo '};'; } > "$work/cufft.map"
gcc -O2 -shared -fPIC -Wall -Wextra -Werror -Wl,-soname,libcufft.so.11 -Wl,--version-script="$work/cufft.map" \
  -o "$site/nvidia/cufft/lib/libcufft.so.11" "$stub_src" -ldl -lpthread
# The forwarder's exports, with their version, must match the imports one for one.
got=$(nm -D --defined-only "$site/nvidia/cufft/lib/libcufft.so.11" | awk '$2=="T"{print $3}' | sort)
want=$(for s in $imports; do echo "$s@@libcufft.so.11"; done | sort)
[ "$got" = "$want" ] || { echo "astra-pack: forwarder exports differ: $got" >&2; exit 1; }

find "$site" -name '*.so*' -type f -print0 | xargs -0 strip --strip-debug
rm -rf "$out"
mkdir -p "$out"
tar -C "$work" -cJf "$out/astra-cp312.tar.xz" site
{
  echo "astra-toolbox $astra_version ($(basename "$astra_whl")), libcudart.so.12 from nvidia-cuda-runtime-cu12 $cudart_version"
  echo "libcufft.so.11: forwarder from $stub_src to the machine's libcufft.so.12 (dlvsym)"
  echo "libastra.so.0 NEEDED: $needed"
  echo "libastra.so.0 RUNPATH: $(readelf -d "$lib" | sed -n 's/.*RUNPATH.*\[\(.*\)\]/\1/p')"
  echo "cuFFT imports: $(echo "$imports" | tr '\n' ' ')"
  echo "files (bytes, after strip --strip-debug):"
  (cd "$work" && find site -type f -printf '%s %p\n' | sort -rn | head -n 20)
  echo "packed: $(stat -c %s "$out/astra-cp312.tar.xz") bytes"
} > "$out/MANIFEST.txt"
cat "$out/MANIFEST.txt"

if [ -n "${ASTRA_CHECK_PYTHON:-}" ]; then
  # Only the packed folder on PYTHONPATH, nothing of this machine's CUDA on the library path.
  env -i HOME="$HOME" PATH=/usr/bin:/bin PYTHONPATH="$site" "$ASTRA_CHECK_PYTHON" -c '
import astra, astra.experimental
print("import astra: ok, version", astra.__version__, "from", astra.__file__)
print("CUDA usable here:", astra.use_cuda(), "(no GPU on this machine: False is expected)")
print("direct_BP3D:", hasattr(astra.experimental, "direct_BP3D"))'
fi
