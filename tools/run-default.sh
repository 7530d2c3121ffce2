#!/usr/bin/env bash
# README command 1: set up, build, and run the embedded default scene headless.
# Outputs go to out/default (out/default-N when that exists). Extra arguments go to `tomoraster run`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/setup-deps.sh"
"$root/tools/build.sh" tomoraster
"${BUILD_DIR:-$root/build}/apps/tomoraster" info
"${BUILD_DIR:-$root/build}/apps/tomoraster" run "$@"
