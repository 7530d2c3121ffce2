#!/usr/bin/env bash
# Configures and builds tomoraster (Release) into ${BUILD_DIR:-build}. Extra
# arguments are cmake --build targets (default: everything).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release ${TOMO_CMAKE_ARGS:-} >/dev/null
jobs=$(nproc 2>/dev/null || echo 2)
if (($#)); then
  for t in "$@"; do cmake --build "$build" --target "$t" -j"$jobs"; done
else
  cmake --build "$build" -j"$jobs"
fi
