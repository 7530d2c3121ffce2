#!/usr/bin/env bash
# README command 2: set up, build, and run every test. GL tests run on whatever
# OpenGL 4.5+ the machine has (Mesa llvmpipe headless without a GPU); CUDA tests
# (label gpu) skip with "no CUDA device" where none is present.
#   tools/test.sh [ctest args]            # Release build in ${BUILD_DIR:-build}
#   tools/test.sh --sanitize [ctest args] # ASan + UBSan build (no CUDA) in build-asan
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = "--sanitize" ]; then
  shift
  export BUILD_DIR=${BUILD_DIR:-$root/build-asan}
  export TOMO_CMAKE_ARGS="${TOMO_CMAKE_ARGS:-} -DTOMO_SANITIZE=ON -DTOMO_WITH_CUDA=OFF -DTOMO_BUILD_BENCH=OFF"
  # Mesa's llvmpipe keeps its shader caches until exit: leaks inside the GL driver are not ours.
  export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tools/lsan.supp:print_suppressions=0}
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fi
build=${BUILD_DIR:-$root/build}
"$root/tools/setup-deps.sh"
"$root/tools/build.sh"
cd "$build"
jobs=-j"$(nproc 2>/dev/null || echo 2)"
if [[ "${TOMO_CMAKE_ARGS:-}" == *TOMO_SANITIZE=ON* ]]; then
  # The viewer runs GLFW + GLX under Xvfb, whose driver modules are unloaded before exit:
  # LeakSanitizer cannot name (or suppress) their allocations, so leaks are not checked there.
  ctest --output-on-failure "$jobs" -LE viewer "$@"
  ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" ctest --output-on-failure "$jobs" -L viewer "$@"
else
  ctest --output-on-failure "$jobs" "$@"
  # The Python package as a user installs it (docs/python.md): `pip install .` into a venv, then
  # its pytest suite, which also checks it against this build's CLI. CUDA is left out of this
  # second build to keep the test run short; the GPU machine tests the CUDA wheel.
  venv=$build/venv
  [ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q numpy pytest
  launcher=()
  command -v ccache >/dev/null && launcher=(--config-settings=cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # The examples extra (matplotlib, tqdm): tests/python/test_docs.py runs examples/*.py and the docs' snippets.
  "$venv/bin/pip" install -q "$root[examples]" --config-settings=cmake.define.TOMO_WITH_CUDA=OFF --config-settings=build-dir="$build/python-wheel" "${launcher[@]}"
  (cd "$build" && TOMORASTER_CLI="$build/apps/tomoraster" "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/tests/python")
fi
