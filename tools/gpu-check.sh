#!/usr/bin/env bash
# Runs on the GPU machine, in the repository root, with .gl and .gpu carried
# (tools/gpu-pack.sh): tomoraster info, the demo on every backend, ctest -L gpu, and
# the benchmarks (BENCH_ARGS are passed to each). Writes everything under $OUT
# (default gpu-out/) and prints a summary last.
set -uo pipefail
root=$(pwd)
out=${OUT:-$root/gpu-out}
build=${BUILD_DIR:-build-gpu}
mkdir -p "$out"
if [ -d .gl ]; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$nv" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv
[ -f .gpu/build.tar.xz ] && tar -xJf .gpu/build.tar.xz
export LD_LIBRARY_PATH="$root/.gpu/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
# ctest scripts hold the absolute paths of the machine that configured the build.
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
if [ -n "$src" ] && [ "$src" != "$root" ] && [ ! -e "$src" ]; then
  mkdir -p "$(dirname "$src")" && ln -s "$root" "$src"
fi
tomo="$build/apps/tomoraster"

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | tee "$out/nvidia-smi.txt"
"$tomo" info 2>&1 | tee "$out/info.txt"
"$tomo" --no-progress crosscheck --report "$out/crosscheck-demo.json" 2>&1 | tee "$out/crosscheck.txt"
for b in cuda gl-compute; do
  "$tomo" --no-progress run --backend "$b" -o "$out/demo-$b" --force 2>&1 | tail -n 2
done
(cd "$build" && ctest -L gpu --output-on-failure 2>&1) | tee "$out/ctest-gpu.txt"
for b in "$build"/bench/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" --json "$out/$(basename "$b").json" ${BENCH_ARGS:-} 2>&1
done | tee "$out/bench.txt"

echo "===== summary"
grep -m1 -E "renderer:" "$out/info.txt"
grep -m1 -E "version:" "$out/info.txt"
grep -E "^  (CUDA|no CUDA)" "$out/info.txt" | head -3
grep -E "tests passed|tests failed" "$out/ctest-gpu.txt"
