#!/usr/bin/env bash
# README command 2: set up, build, and run every test. GL tests run on whatever
# OpenGL 4.5+ the machine has (Mesa llvmpipe headless without a GPU); CUDA tests
# (label gpu) skip with "no CUDA device" where none is present.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/tools/setup-deps.sh"
"$root/tools/build.sh"
cd "$build"
ctest --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" "$@"
