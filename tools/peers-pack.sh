#!/usr/bin/env bash
# Packs what the peers' side-by-side run (bench/peers/request.sh) needs on the GPU machine, which
# has no package registry, into .peers/ (ignored; carry it; a device call carries 64 MiB with the
# source tree, so pick the parts of one call with PEERS_ONLY):
#   gpu/          our CUDA build (bench_fdk, the CLI) by tools/gpu-pack.sh, everything else excluded
#   pygpu.tar.xz  the Python module with CUDA for CPython 3.12 (tools/py-gpu-pack.sh's .pygpu)
#   astra-cp312.tar.xz   ASTRA 2.5's wheel, libcudart 12 and the cuFFT forwarder (tools/astra-pack.sh)
#   parallelproj-backend-<version>.tar.gz   its source (built there: CMake, nanobind, sm_90)
#   libparallelproj-<version>.tar.xz   KUL-recon-lab/libparallelproj's CUDA library (its TOF list-mode
#                projector joseph3d_tof_lm_fwd/back) built here for sm_90: lib/libparallelproj.so*
#                and its C header (bench_pet --tof-peer dlopens it)
#   iminuit-*.whl        the cp312 wheel
#   tigre-cp312.tar.xz   TIGRE built here for sm_90 (or tigre-src.tar.xz: built there; tools/tigre-pack.sh)
#   patminton-*.whl      patminton's CUDA 13 wheel
#   musr.tar.xz          the musr scene's eq. (5) msr and PSI-BIN file, made here by our CLI (optimistix)
#   taichi-*-slim.tar.xz, gapat-*.whl, dill-*.whl   GAPAT and Taichi (tools/gapat-pack.sh; ~40 MB)
#   scripts.tar.xz       bench/peers and bench/python of this checkout
#   request.sh           bench/peers/request.sh
# Env: PEERS_ONLY ("pygpu tigre patminton musr iminuit": only these parts; default all but gapat),
# PEERS_SKIP ("pygpu astra gpu ...": keep those parts as they are in the folder), PEERS_OUT (.peers),
# BUILD_DIR (build: a CUDA build with bench_fdk and tomoraster), PARALLELPROJ_BACKEND_GIT (a git
# directory or URL of KUL-recon-lab/parallelproj-backend; default its GitHub URL),
# PARALLELPROJ_BACKEND_REF (HEAD), LIBPARALLELPROJ_GIT and LIBPARALLELPROJ_REF (the same for
# KUL-recon-lab/libparallelproj; part "libparallelproj", not in the default set), IMINUIT_VERSION (2.33.0), PATMINTON_VERSION (0.1.0); TIGRE_* as
# tools/tigre-pack.sh. The size of each part and the total are printed.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
out=${PEERS_OUT:-.peers}
build=${BUILD_DIR:-build}
skip=" ${PEERS_SKIP:-} "
only=" ${PEERS_ONLY:-gpu pygpu astra parallelproj iminuit tigre patminton musr} "
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")" "$out"
grep -qx "/$out/" "$exclude" 2>/dev/null || echo "/$out/" >> "$exclude"
wanted() { [[ "$skip" != *" $1 "* && "$only" == *" $1 "* ]]; }

if wanted gpu; then
  for t in bench/bench_fdk apps/tomoraster; do
    [ -x "$build/$t" ] || { echo "peers-pack: no $build/$t (cmake --build $build --target bench_fdk tomoraster)" >&2; exit 1; }
  done
  # Everything but bench_fdk and the CLI stays here (and bench_pet, which runs libparallelproj's
  # TOF rows, when that part is packed too).
  keep_pet=bench_fdk
  wanted libparallelproj && keep_pet=bench_pet
  drop=$(find "$build" -type f -perm -u+x \( -name 'bench_*' -o -name 'test_*' -o -name 'tomoraster-*' -o -name 'fuzz_*' \) \
    ! -name bench_fdk ! -name "$keep_pet" -printf '%f\n' | sort -u | tr '\n' ' ')
  GPU_PACK_ALL=0 GPU_PACK_EXCLUDE="$drop Testing tests examples" XZ_OPT=${XZ_OPT:--9} tools/gpu-pack.sh "$build" >/dev/null || true
  # (its closing du fails without a .gl folder; the pack itself is checked here)
  [ -s .gpu/build.tar.xz ] || { echo "peers-pack: tools/gpu-pack.sh made no .gpu/build.tar.xz" >&2; exit 1; }
  rm -rf "$out/gpu" && mv .gpu "$out/gpu"
fi
if wanted pygpu; then
  [ -d .pygpu/tomoraster ] || JOBS=${JOBS:-1} tools/py-gpu-pack.sh
  # pytest is not needed by the peers' scripts, nor the libraries gpu/lib carries already.
  dup=()
  for f in .pygpu/lib/*; do [ -e "$out/gpu/lib/$(basename "$f")" ] && dup+=("--exclude=$f"); done
  XZ_OPT=-6 tar -cJf "$out/pygpu.tar.xz" --exclude='.pygpu/_pytest' --exclude='.pygpu/pytest*' \
    --exclude='.pygpu/pluggy*' --exclude='.pygpu/iniconfig*' --exclude='.pygpu/packaging*' --exclude='.pygpu/py.py' \
    --exclude='.pygpu/pygments*' --exclude='.pygpu/bin' --exclude='__pycache__' "${dup[@]}" .pygpu
fi
if wanted astra; then
  XZ_OPT=-6 tools/astra-pack.sh >/dev/null
  cp .astra/astra-cp312.tar.xz "$out/"
fi
if wanted parallelproj; then
  src=${PARALLELPROJ_BACKEND_GIT:-https://github.com/KUL-recon-lab/parallelproj-backend.git}
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  if [ -d "$src" ]; then git_dir=$src; else git clone -q --bare "$src" "$tmp/repo.git"; git_dir=$tmp/repo.git; fi
  ref=${PARALLELPROJ_BACKEND_REF:-HEAD}
  ver=$(git --git-dir="$git_dir" describe --tags "$ref" 2>/dev/null | sed 's/^v//' || git --git-dir="$git_dir" rev-parse --short "$ref")
  rm -f "$out"/parallelproj-backend-*.tar.gz
  # Its CMake derives the version from the folder's name outside a git checkout.
  git --git-dir="$git_dir" archive --format=tar.gz --prefix="parallelproj-backend-$ver/" -o "$out/parallelproj-backend-$ver.tar.gz" "$ref"
fi
if wanted libparallelproj; then
  src=${LIBPARALLELPROJ_GIT:-https://github.com/KUL-recon-lab/libparallelproj.git}
  tmpl=$(mktemp -d)
  if [ -d "$src" ]; then git_dir=$src; else git clone -q --bare "$src" "$tmpl/repo.git"; git_dir=$tmpl/repo.git; fi
  ref=${LIBPARALLELPROJ_REF:-HEAD}
  ver=$(git --git-dir="$git_dir" describe --tags "$ref" 2>/dev/null | sed 's/^v//' || git --git-dir="$git_dir" rev-parse --short "$ref")
  git --git-dir="$git_dir" archive --format=tar --prefix=src/ "$ref" | tar -xf - -C "$tmpl"
  # Its CMakeLists asks for CMake 3.31 for nothing the library's build uses; an older CMake
  # (Debian 12's 3.25) builds it with the minimum lowered to its own version.
  have=$(cmake --version | sed -n 's/^cmake version \([0-9]*\.[0-9]*\).*/\1/p')
  sed -i "s/cmake_minimum_required(VERSION 3\.31)/cmake_minimum_required(VERSION $have)/" "$tmpl/src/CMakeLists.txt"
  PATH=/usr/local/cuda/bin:$PATH cmake -S "$tmpl/src" -B "$tmpl/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DUSE_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_PYTHON=OFF -DBUILD_TESTS=OFF -DINSTALL_DEVEL=OFF > "$tmpl/configure.log" 2>&1 \
    || { tail -n 20 "$tmpl/configure.log" >&2; exit 1; }
  PATH=/usr/local/cuda/bin:$PATH nice cmake --build "$tmpl/build" -j"${JOBS:-2}" > "$tmpl/build.log" 2>&1 \
    || { tail -n 20 "$tmpl/build.log" >&2; exit 1; }
  mkdir -p "$tmpl/pack/lib" "$tmpl/pack/include"
  cp -a "$tmpl"/build/libparallelproj.so* "$tmpl/pack/lib/"
  strip --strip-unneeded "$tmpl"/pack/lib/libparallelproj.so.*.*.*
  cp "$tmpl"/src/include/parallelproj.h "$tmpl"/src/include/parallelproj_export.h "$tmpl/pack/include/" 2>/dev/null || true
  echo "$ver" > "$tmpl/pack/VERSION"
  rm -f "$out"/libparallelproj-*.tar.xz
  XZ_OPT=-9 tar -cJf "$out/libparallelproj-$ver.tar.xz" -C "$tmpl/pack" .
  rm -rf "$tmpl"
fi
if wanted iminuit; then
  rm -f "$out"/iminuit-*.whl
  "${PIP_PYTHON:-python3}" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d "$out" "iminuit==${IMINUIT_VERSION:-2.33.0}"
fi
if wanted tigre; then
  XZ_OPT=-6 tools/tigre-pack.sh >/dev/null
  rm -f "$out"/tigre-*.tar.xz
  cp .tigre/tigre-*.tar.xz "$out/"
fi
if wanted patminton; then
  rm -f "$out"/patminton-*.whl
  "${PIP_PYTHON:-python3}" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 -d "$out" "patminton==${PATMINTON_VERSION:-0.1.0}"
fi
if wanted musr; then
  [ -x "$build/apps/tomoraster" ] || { echo "peers-pack: no $build/apps/tomoraster for the musr histograms" >&2; exit 1; }
  tmpm=$(mktemp -d)
  printf 'problem = "musr"\nbackend = "cpu"\n[musr]\ndetectors = 16\nbins = 8192\nplots = false\n' > "$tmpm/musr_peer.toml"
  "$build/apps/tomoraster" -q run "$tmpm/musr_peer.toml" -o "$tmpm/out" --force > /dev/null
  XZ_OPT=-6 tar -cJf "$out/musr.tar.xz" -C "$tmpm/out" musr_eq5.msr musr_eq5.bin
  rm -rf "$tmpm"
fi
if wanted gapat; then
  XZ_OPT=-6 tools/gapat-pack.sh >/dev/null
  rm -f "$out"/taichi-*.tar.xz "$out"/gapat-*.whl "$out"/dill-*.whl
  cp .gapat/taichi-*.tar.xz .gapat/gapat-*.whl .gapat/dill-*.whl "$out/"
fi
XZ_OPT=-6 tar -cJf "$out/scripts.tar.xz" --exclude='__pycache__' bench/peers bench/python
cp bench/peers/request.sh "$out/request.sh"
du -ab "$out" | sort -rn | awk '{printf "%8.1f MB  %s\n", $1 / 1e6, $2}' | head -n 12
total=$(du -sb "$out" | cut -f1)
echo "peers-pack: $out is $((total / 1000000)) MB (a device call carries 64 MiB with the source tree)"
[ "$total" -le 55000000 ] || { echo "peers-pack: too large for one call beside the source tree: pick fewer parts (PEERS_ONLY)" >&2; exit 1; }
