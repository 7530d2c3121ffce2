#!/usr/bin/env bash
# The peers' side-by-side run on the GPU machine, from the pack tools/peers-pack.sh makes:
# builds parallelproj-backend (CUDA, sm_90) from its carried source first, unpacks ours (the
# Python module with CUDA, bench_fdk and the CLI), ASTRA's wheel with its cuFFT forwarder and
# iminuit, then runs bench/peers/{astra,parallelproj,iminuit}_peer.py, each under its own time
# limit; the table lands in $OUT/peers.json and $OUT/peers.md, the logs beside it.
#   PACK=<the pack folder> OUT=<outputs> bash request.sh      (PACK defaults to ./pack beside this file)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -z "${PACK:-}" ]; then  # beside this file, or the current folder, or this file's own folder
  for d in "$here/pack" "$PWD/pack" "$PWD/.peers" "$here"; do [ -f "$d/scripts.tar.xz" ] && { PACK=$d; break; }; done
fi
[ -f "${PACK:-}/scripts.tar.xz" ] || { echo "request.sh: no pack (scripts.tar.xz) found; set PACK" >&2; exit 2; }
PACK=$(cd "$PACK" && pwd)
OUT=${OUT:-$PWD/peers-out}
W=${PEERS_WORK:-/tmp/tomoraster-peers}
mkdir -p "$OUT" "$W"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
py=${PEERS_PYTHON:-$(command -v python3.12 || command -v python3)}

stamp "parallelproj-backend: configure and build (sm_90)"
rm -rf "$W/ppb" && mkdir -p "$W/ppb"
tar -xzf "$PACK"/parallelproj-backend-*.tar.gz -C "$W/ppb"
src=$(ls -d "$W"/ppb/parallelproj-backend-*)
# Its CMakeLists forces every architecture; one is enough here (minutes less).
sed -i 's/set(CMAKE_CUDA_ARCHITECTURES all)/set(CMAKE_CUDA_ARCHITECTURES 90)/' "$src/CMakeLists.txt"
# CUDA 13 takes a cudaMemLocation (and flags) where CUDA 12 took a device number in
# cudaMemPrefetchAsync/cudaMemAdvise (its managed-memory path): a shim included after its header.
cat > "$src/src/cuda13_compat.h" <<'SHIM'
#pragma once
#include <cuda_runtime.h>
#if CUDART_VERSION >= 13000
static inline cudaMemLocation pp_device_location(int device) {
  cudaMemLocation l{};
  l.type = cudaMemLocationTypeDevice;
  l.id = device;
  return l;
}
#define cudaMemPrefetchAsync(p, n, d) cudaMemPrefetchAsync((p), (n), pp_device_location(d), 0)
#define cudaMemAdvise(p, n, h, d) cudaMemAdvise((p), (n), (h), pp_device_location(d))
#endif
SHIM
sed -i '1a #include "cuda13_compat.h"' "$src/src/cuda_utils.cu"
# RelWithDebInfo at -O3: nanobind turns on LTO for Release builds, and the machine's g++ cannot run its
# lto-wrapper at the module's link.
( cmake -S "$src" -B "$W/ppb/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O3 -DNDEBUG" \
    -DCMAKE_CUDA_FLAGS_RELWITHDEBINFO="-O3 -DNDEBUG" -DBUILD_PYTHON=ON -DBUILD_TESTS=OFF \
    -DPython_EXECUTABLE="$py" && cmake --build "$W/ppb/build" -j"$(nproc)" ) > "$OUT/parallelproj-build.log" 2>&1 \
  && stamp "parallelproj-backend built: $(ls "$W"/ppb/build/parallelproj_backend*.so 2>/dev/null)" \
  || { stamp "parallelproj-backend build FAILED (tail of its log):"; tail -n 25 "$OUT/parallelproj-build.log"; }

stamp "unpacking ours, ASTRA, iminuit"
tar -xJf "$PACK/gpu/build.tar.xz" -C "$W"
tar -xJf "$PACK/pygpu.tar.xz" -C "$W"
mkdir -p "$W/astra" && tar -xJf "$PACK/astra-cp312.tar.xz" -C "$W/astra"
tar -xJf "$PACK/scripts.tar.xz" -C "$W"
"$py" -m pip install -q --no-deps --no-index --target "$W/site" "$PACK"/iminuit-*.whl 2>&1 | tail -n 2
cufft12=$(ls /usr/local/cuda/lib64/libcufft.so.12 2>/dev/null || find / -name 'libcufft.so.12' -not -path '/proc/*' 2>/dev/null | head -n 1)
stamp "cuFFT 12 for ASTRA's forwarder: ${cufft12:-not found}"
export CUFFT_FORWARD_TARGET=${cufft12:-libcufft.so.12}
export LD_LIBRARY_PATH="$PACK/gpu/lib:$W/.pygpu/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PYTHONPATH="$W/.pygpu:$W/astra/site:$W/ppb/build:$W/site:${PYTHONPATH:-}"
b=$(ls -d "$W"/build*/ | head -n 1)
"$py" -c 'import tomoraster, cupy; print("tomoraster", tomoraster.__version__, tomoraster.info()["problems"]["fdk"]["backends"]); print("cupy", cupy.__version__)'

run() {  # name, limit in s, command...
  local name=$1 limit=$2; shift 2
  stamp "$name"
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  stamp "$name: exit $rc"
  tail -n 40 "$OUT/$name.log"
}
# PEERS_STEPS picks the steps (default all but fdkcheck): parallelproj, astra (all of ASTRA's rows),
# fdk (ASTRA's FDK rows only), fdkcheck (the cuFFT forwarder and FDK_CUDA's variants at 64³), iminuit.
steps=" ${PEERS_STEPS:-parallelproj astra iminuit} "
want() { [[ "$steps" == *" $1 "* ]]; }
want fdkcheck && run fdkcheck 60 "$py" "$W/bench/peers/astra_fdk_check.py" \
  --cufft "$W/astra/site/nvidia/cufft/lib/libcufft.so.11"
want parallelproj && run parallelproj "${PEERS_PP_S:-75}" "$py" "$W/bench/peers/parallelproj_peer.py" --out "$OUT/peers.json" --md "$OUT/peers.md"
want fdk && run fdk "${PEERS_FDK_S:-90}" "$py" "$W/bench/peers/astra_peer.py" --no-projector --bp-sizes "" --no-host \
  --dump "$W/astra-dump" --out "$OUT/peers.json" --md "$OUT/peers.md"
want astra && run astra "${PEERS_ASTRA_S:-240}" "$py" "$W/bench/peers/astra_peer.py" --bench "$b/bench/bench_fdk" \
  --dump "$W/astra-dump" --out "$OUT/peers.json" --md "$OUT/peers.md"
want iminuit && run iminuit "${PEERS_MINUIT_S:-50}" "$py" "$W/bench/peers/iminuit_peer.py" --cli "$b/apps/tomoraster" \
  --folder "$W/musr" --out "$OUT/peers.json" --md "$OUT/peers.md"
stamp "done"
cat "$OUT/peers.md" 2>/dev/null
