#!/usr/bin/env bash
# Refreshes the preview screenshots in docs/ (docs/formats.md, README.md) from the default runs
# of glpet (the embedded default scene), fdk and strip: tools/docs-screenshots.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build}/apps/tomoraster
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" -q --no-progress run -o "$tmp/default"
"$bin" -q --no-progress run fdk_default.toml -o "$tmp/fdk"
"$bin" -q --no-progress run strip_default.toml -o "$tmp/strip"
cp "$tmp/default/activity_mip.png" "$root/docs/preview-glpet-activity-mip.png"
cp "$tmp/default/phantom_activity_mip.png" "$root/docs/preview-glpet-phantom-mip.png"
cp "$tmp/default/atlas_measured.png" "$root/docs/preview-glpet-atlas-measured.png"
cp "$tmp/fdk/fdk_slice_xy.png" "$root/docs/preview-fdk-slice-xy.png"
cp "$tmp/strip/rho.png" "$root/docs/preview-strip-rho.png"
echo "docs/preview-*.png refreshed"
