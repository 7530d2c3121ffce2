#!/usr/bin/env bash
# The peers' side-by-side run on the GPU machine, from a pack tools/peers-pack.sh makes. Every part
# is optional: a step runs when its part is in the pack (and PEERS_STEPS names it, default all):
#   tigre        tigre-cp312.tar.xz (built here) or tigre-src.tar.xz (built there, sm_90)
#   patminton    patminton-*.whl
#   optimistix   musr.tar.xz (the msr and its PSI-BIN file) or our CLI in gpu/; JAX and optimistix
#                are on the image; iminuit-*.whl adds MIGRAD on the JAX χ²
#   gapat        taichi-*-slim.tar.xz, gapat-*.whl, dill-*.whl
#   parallelproj parallelproj-backend-*.tar.gz (built there): its Joseph projector on our safir events
#   ppglpet      the same build on glpet's LORs (glpet.Projector.lor_endpoints)
#   ppjoseph     the same LORs against our Joseph projector (tomoraster.pet.LineProjector)
#   ppline, pplinecache   the same with ours at one line per detector, no attenuation (--like),
#                traced on every pass (system_cache off) and cached (on)
#   fdk, bp3d    astra-cp312.tar.xz: FDK_CUDA against fdk.fdk (CuPy and NumPy stacks), BP3D_CUDA
#                against fdk.Backprojector (B) on RabbitCT's geometry, 256³ and 512³ (our module only)
#   astra        the same and our build gpu/build.tar.xz (bench_fdk: FP3D/SIRT3D/CGLS3D rows)
#   iminuit      iminuit-*.whl and our CLI in gpu/
#   pptof        libparallelproj-*.tar.xz (its CUDA library, built here) and bench_pet in gpu/: its
#                TOF list-mode (and non-TOF) Joseph beside pet::LineProjector on strip's events and
#                glpet's LORs, forward, back and one ML-EM iteration (bench_pet --tof 1)
# Always: pygpu.tar.xz (our Python module with CUDA) and scripts.tar.xz (bench/peers, bench/python).
# Each step runs under its own time limit (PEERS_<STEP>_S); the table lands in $OUT/peers.json and
# $OUT/peers.md, each step's log beside it.
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
has() { compgen -G "$PACK/$1" > /dev/null; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
# The image's python3 holds PyTorch, CuPy and JAX; CPython 3.12 is what our module is built for.
py=${PEERS_PYTHON:-python3}
"$py" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null || py=$(command -v python3.12)
stamp "python: $py ($("$py" --version 2>&1))"
export TI_SKIP_VERSION_CHECK=ON MPLBACKEND=Agg PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
# One GPU for every peer and for us (the table is one GPU's): TIGRE splits its projections over
# every GPU it sees and leaves the last one current.
export CUDA_VISIBLE_DEVICES=${PEERS_GPUS:-0}

steps=" ${PEERS_STEPS:-tigre patminton optimistix gapat parallelproj ppglpet ppline pplinecache ppjoseph pptof fdk bp3d iminuit} "
want() { [[ "$steps" == *" $1 "* ]]; }
run() {  # name, limit in s, command...
  local name=$1 limit=$2; shift 2
  stamp "$name"
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  stamp "$name: exit $rc"
  tail -n 40 "$OUT/$name.log"
}

stamp "unpacking ours and the scripts"
tar -xJf "$PACK/pygpu.tar.xz" -C "$W"
tar -xJf "$PACK/scripts.tar.xz" -C "$W"
b=""
if has gpu/build.tar.xz; then tar -xJf "$PACK/gpu/build.tar.xz" -C "$W" && b=$(ls -d "$W"/build*/ | head -n 1); fi
mkdir -p "$W/site"
wheels=()
for w in iminuit patminton gapat dill; do has "$w-*.whl" && wheels+=("$PACK"/$w-*.whl); done
[ ${#wheels[@]} -gt 0 ] && "$py" -m pip install -q --no-deps --no-index --no-compile --target "$W/site" "${wheels[@]}" 2>&1 | tail -n 2
if has 'taichi-*-slim.tar.xz' && want gapat; then mkdir -p "$W/taichi" && tar -xJf "$PACK"/taichi-*-slim.tar.xz -C "$W/taichi"; fi
if has astra-cp312.tar.xz; then mkdir -p "$W/astra" && tar -xJf "$PACK/astra-cp312.tar.xz" -C "$W/astra"; fi
export LD_LIBRARY_PATH="${b:+$PACK/gpu/lib:}$W/.pygpu/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PYTHONPATH="$W/.pygpu:$W/tigre:$W/tigre/Python:$W/site:$W/taichi:$W/astra/site:$W/ppb/build:${PYTHONPATH:-}"
"$py" -c 'import tomoraster, cupy; print("tomoraster", tomoraster.__version__, "cuda:", "cuda" in tomoraster.info()["problems"]["fdk"]["backends"], "| cupy", cupy.__version__)'

# parallelproj-backend from its source, sm_90 only; with PEERS_PP_EARLY=1 it starts in the
# background right after the unpacking (niced, PEERS_PP_JOBS compilers) while the GPU steps before
# it run, and its step waits for it.
build_ppb() {
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
      -DPython_EXECUTABLE="$py" && timeout "${PEERS_PP_BUILD_S:-150}" cmake --build "$W/ppb/build" -j"${PEERS_PP_JOBS:-$(nproc)}" ) \
      > "$OUT/parallelproj-build.log" 2>&1 \
    && stamp "parallelproj-backend built: $(ls "$W"/ppb/build/parallelproj_backend*.so 2>/dev/null)" \
    || { stamp "parallelproj-backend build FAILED (tail of its log):"; tail -n 25 "$OUT/parallelproj-build.log"; }
}
ppb_pid=""
ppwant() { want parallelproj || want ppglpet || want ppline || want pplinecache || want ppjoseph; }
if [ "${PEERS_PP_EARLY:-0}" = 1 ] && ppwant && has 'parallelproj-backend-*.tar.gz'; then
  ( renice -n 19 "$BASHPID" > /dev/null; build_ppb ) &
  ppb_pid=$!
fi
if want tigre && { has tigre-cp312.tar.xz || has tigre-src.tar.xz; }; then
  rm -rf "$W/tigre" && mkdir -p "$W/tigre"
  if has tigre-cp312.tar.xz; then
    tar -xJf "$PACK/tigre-cp312.tar.xz" -C "$W/tigre"
    # The build from here imports, or (with the source in the pack too) is replaced by one made there.
    if ! "$py" -c 'import tigre' > "$OUT/tigre-import.log" 2>&1 && has tigre-src.tar.xz; then
      stamp "TIGRE built here does not import there (tail of the error below): building it there"
      tail -n 5 "$OUT/tigre-import.log"
      rm -rf "$W/tigre" && mkdir -p "$W/tigre"
    fi
  fi
  if [ ! -d "$W/tigre/Python" ]; then  # its eight extensions, sm_90 only, in parallel
    tar -xJf "$PACK/tigre-src.tar.xz" -C "$W/tigre"
    stamp "TIGRE: building its CUDA extensions here"
    (cd "$W/tigre" && TIGRE_CUDA_ARCHS=90 timeout "${PEERS_TIGRE_BUILD_S:-240}" "$py" setup.py build_ext --inplace \
      --parallel "$(nproc)") > "$OUT/tigre-build.log" 2>&1 || { stamp "TIGRE build FAILED:"; tail -n 25 "$OUT/tigre-build.log"; }
  fi
  run tigre "${PEERS_TIGRE_S:-180}" "$py" "$W/bench/peers/tigre_peer.py" --steps "${PEERS_TIGRE_STEPS:-ax,atb,fdk,sirt,cgls}" --out "$OUT/peers.json" --md "$OUT/peers.md"
fi
want patminton && has 'patminton-*.whl' && run patminton "${PEERS_PATMINTON_S:-150}" "$py" "$W/bench/peers/patminton_peer.py" \
  --out "$OUT/peers.json" --md "$OUT/peers.md"
if want optimistix; then
  msr_args=()
  if has musr.tar.xz; then
    mkdir -p "$W/musr-pack" && tar -xJf "$PACK/musr.tar.xz" -C "$W/musr-pack"
    msr_args=(--msr "$(ls "$W"/musr-pack/*.msr | grep -v _fit | head -n 1)")
  elif [ -n "$b" ]; then
    msr_args=(--cli "$b/apps/tomoraster" --folder "$W/musr")
  fi
  [ ${#msr_args[@]} -gt 0 ] && run optimistix "${PEERS_OPTIMISTIX_S:-100}" "$py" "$W/bench/peers/optimistix_peer.py" \
    "${msr_args[@]}" --out "$OUT/peers.json" --md "$OUT/peers.md"
fi
want gapat && [ -d "$W/taichi/taichi" ] && run gapat "${PEERS_GAPAT_S:-150}" "$py" "$W/bench/peers/gapat_peer.py" \
  --out "$OUT/peers.json" --md "$OUT/peers.md"

if has astra-cp312.tar.xz; then
  cufft12=$(ls /usr/local/cuda/lib64/libcufft.so.12 2>/dev/null || find / -name 'libcufft.so.12' -not -path '/proc/*' 2>/dev/null | head -n 1)
  stamp "cuFFT 12 for ASTRA's forwarder: ${cufft12:-not found}"
  export CUFFT_FORWARD_TARGET=${cufft12:-libcufft.so.12}
  want fdkcheck && run fdkcheck 60 "$py" "$W/bench/peers/astra_fdk_check.py" \
    --cufft "$W/astra/site/nvidia/cufft/lib/libcufft.so.11"
  # FDK and BP3D in two processes: a fault inside ASTRA's filtering cannot take the BP3D rows.
  # FDK with the stage breakdown of ours (fdk_stages.py) in $OUT/fdk-stages.json.
  want fdk && run fdk "${PEERS_FDK_S:-120}" "$py" "$W/bench/peers/astra_peer.py" --no-projector --bp-sizes "" \
    --fdk-sizes "${PEERS_FDK_SIZES:-256,512}" --reps "${PEERS_FDK_REPS:-5}" --stages "$OUT/fdk-stages.json" \
    --dump "$W/astra-dump" --out "$OUT/peers.json" --md "$OUT/peers.md"
  want bp3d && run bp3d "${PEERS_BP3D_S:-90}" "$py" "$W/bench/peers/astra_peer.py" --no-projector --fdk-sizes "" \
    --bp-sizes "${PEERS_BP_SIZES:-256,512}" --dump "$W/astra-dump" --out "$OUT/peers.json" --md "$OUT/peers.md"
  want astra && [ -n "$b" ] && run astra "${PEERS_ASTRA_S:-240}" "$py" "$W/bench/peers/astra_peer.py" --bench "$b/bench/bench_fdk" \
    --dump "$W/astra-dump" --out "$OUT/peers.json" --md "$OUT/peers.md"
fi
if ppwant && has 'parallelproj-backend-*.tar.gz'; then
  if [ -n "$ppb_pid" ]; then wait "$ppb_pid"; else build_ppb; fi
  want parallelproj && run parallelproj "${PEERS_PP_S:-75}" "$py" "$W/bench/peers/parallelproj_peer.py" \
    --out "$OUT/peers.json" --md "$OUT/peers.md"
  want ppglpet && run ppglpet "${PEERS_PPGLPET_S:-60}" "$py" "$W/bench/peers/parallelproj_glpet.py" \
    --out "$OUT/peers.json" --md "$OUT/peers.md"
  want ppline && run ppline "${PEERS_PPLINE_S:-60}" "$py" "$W/bench/peers/parallelproj_glpet.py" --like \
    --system-cache off --out "$OUT/peers.json" --md "$OUT/peers.md"
  want pplinecache && run pplinecache "${PEERS_PPLINE_S:-60}" "$py" "$W/bench/peers/parallelproj_glpet.py" --like \
    --system-cache on --out "$OUT/peers.json" --md "$OUT/peers.md"
  want ppjoseph && run ppjoseph "${PEERS_PPGLPET_S:-60}" "$py" "$W/bench/peers/parallelproj_glpet.py" --joseph \
    --out "$OUT/peers.json" --md "$OUT/peers.md"
fi
if want pptof && [ -n "$b" ] && [ -x "$b/bench/bench_pet" ] && has 'libparallelproj-*.tar.xz'; then
  mkdir -p "$W/libparallelproj" && tar -xJf "$PACK"/libparallelproj-*.tar.xz -C "$W/libparallelproj"
  lib=$(ls "$W"/libparallelproj/lib/libparallelproj.so.*.*.* | head -n 1)
  run pptof "${PEERS_PPTOF_S:-90}" "$b/bench/bench_pet" --problems none --prior-size 0 --joseph 0 --tof 1 \
    --tof-reps 5 --tof-peer "$lib" --json "$OUT/pptof.json"
fi
want iminuit && [ -n "$b" ] && has 'iminuit-*.whl' && run iminuit "${PEERS_MINUIT_S:-50}" "$py" "$W/bench/peers/iminuit_peer.py" \
  --cli "$b/apps/tomoraster" --folder "$W/musr" --out "$OUT/peers.json" --md "$OUT/peers.md"
stamp "done"
cat "$OUT/peers.md" 2>/dev/null
