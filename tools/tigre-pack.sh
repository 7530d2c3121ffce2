#!/usr/bin/env bash
# Packs TIGRE (not on PyPI: a source snapshot) for the GPU machine, which has CPython 3.12, CUDA 13
# and no package registry, into .tigre/ (ignored):
#   tigre-cp312.tar.xz   its Python package and its eight CUDA extensions (_Ax, _Atb, ...) built
#                        here for sm_90 against CPython 3.12 (pyenv's; numpy and Cython in a venv)
#   tigre-src.tar.xz     the same source, patched as below: bench/peers/request.sh builds it there
#                        (setup.py build_ext --parallel) when nothing was built here or it does not import
#   MANIFEST.txt         the commit, the patches and the files
# What is patched in its setup.py: the architectures (it asks nvcc for every one it knows; here
# TIGRE_CUDA_ARCHS, default 90), ptxas's verbose output, and the data file head.mat (a large
# sample the benches do not use, not in the snapshot). On the GPU machine (carry .tigre):
#   mkdir -p /tmp/tigre && tar -xJf .tigre/tigre-cp312.tar.xz -C /tmp/tigre
#   PYTHONPATH=/tmp/tigre/Python python3 -c 'import tigre'
# Env: TIGRE_GIT (a git directory or URL of CERN/TIGRE; default its GitHub URL), TIGRE_REF (HEAD),
# TIGRE_CUDA_ARCHS (90), PY312 (the CPython 3.12 to build with), TIGRE_BUILD=0 (source only),
# TIGRE_BUILT (a folder where this script's build already ran: reused).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
out=.tigre
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qx '/.tigre/' "$exclude" 2>/dev/null || echo '/.tigre/' >> "$exclude"
src=${TIGRE_GIT:-https://github.com/CERN/TIGRE.git}
ref=${TIGRE_REF:-HEAD}
py=${PY312:-/root/.pyenv/versions/3.12.1/bin/python3.12}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -d "$src" ]; then git_dir=$src; else git clone -q --bare "$src" "$tmp/repo.git"; git_dir=$tmp/repo.git; fi
commit=$(git --git-dir="$git_dir" rev-parse "$ref")
described=$(git --git-dir="$git_dir" describe --tags "$ref" 2>/dev/null || echo "$commit")
work=${TIGRE_BUILT:-$tmp/tigre}
if [ -z "${TIGRE_BUILT:-}" ]; then
  mkdir -p "$work"
  git --git-dir="$git_dir" archive --format=tar "$ref" setup.py pyproject.toml LICENSE.txt Common/CUDA Python/tigre \
    ':!Python/tigre/data' | tar -x -C "$work"
  "${PIP_PYTHON:-python3}" - "$work/setup.py" <<'EOF'
import sys
path = sys.argv[1]
s = open(path).read()
subs = [('return re.findall(r"\\d+", str(cc))', 'return os.environ.get("TIGRE_CUDA_ARCHS", "90").split(";")'),
        ('"--ptxas-options=-v",\n', ''),
        ('data_files=[("data", ["Common/data/head.mat"])],', '')]
for old, new in subs:
    if old not in s:
        sys.exit(f"tigre-pack: setup.py no longer has {old!r}: revisit this script")
    s = s.replace(old, new)
open(path, "w").write(s)
EOF
  if [ "${TIGRE_BUILD:-1}" = 1 ] && [ -x "$py" ] && command -v "${NVCC:-/usr/local/cuda/bin/nvcc}" >/dev/null; then
    "$py" -m venv "$tmp/venv"
    "$tmp/venv/bin/pip" install -q numpy Cython setuptools wheel
    (cd "$work" && PATH=$(dirname "${NVCC:-/usr/local/cuda/bin/nvcc}"):$PATH "$tmp/venv/bin/python" setup.py build_ext --inplace) \
      > "$tmp/build.log" 2>&1 || { tail -n 30 "$tmp/build.log" >&2; echo "tigre-pack: the build here failed; packing the source" >&2; }
  fi
fi
rm -rf "$out"
mkdir -p "$out"
# setup.py's packages live under Python/, so build_ext --inplace puts the extensions there.
n_ext=$(find "$work/Python" -maxdepth 1 -name '_*.cpython-312-*.so' | wc -l)
if [ "$n_ext" -ge 8 ]; then
  find "$work/Python" -maxdepth 1 -name '_*.so' -print0 | xargs -0 strip --strip-debug
  (cd "$work" && XZ_OPT=${XZ_OPT:--6} tar -cJf "$root/$out/tigre-cp312.tar.xz" --exclude='__pycache__' --exclude='*.cpp' \
    --exclude='*.c' LICENSE.txt Python/_*.so Python/tigre)
  kind="built here: $n_ext extensions for CUDA archs ${TIGRE_CUDA_ARCHS:-90}; the source too (built there if these do not import)"
fi
# The .pyx files' generated .cpp stay out (Cython makes them there); Common/CUDA's own .cpp are kept.
(cd "$work" && XZ_OPT=${XZ_OPT:--6} tar -cJf "$root/$out/tigre-src.tar.xz" --exclude='__pycache__' --exclude='build' \
  --exclude='*.so' --exclude='Python/tigre/utilities/cuda_interface/*.cpp' setup.py pyproject.toml LICENSE.txt \
  Common/CUDA Python/tigre)
[ "$n_ext" -ge 8 ] || kind="source only ($n_ext extensions built here): request.sh builds it on the GPU machine"
{
  echo "TIGRE $described ($commit), $kind"
  echo "setup.py patched: CUDA archs from TIGRE_CUDA_ARCHS, no ptxas -v, no data_files (head.mat)"
  ls -l "$out"
} > "$out/MANIFEST.txt"
cat "$out/MANIFEST.txt"
