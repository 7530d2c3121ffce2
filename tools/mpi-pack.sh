#!/usr/bin/env bash
# Packs a relocatable Open MPI runtime (mpirun + libmpi and the libraries they load) from
# Debian's packages, for machines without Open MPI (the GPU machines): tomoraster loads libmpi
# at run time, so carrying this folder is all that `mpirun -np N tomoraster run …` needs there.
#
#   tools/mpi-pack.sh [OUT.tar.gz]          # default: build/tomo-openmpi.tar.gz (≈ 6 MiB)
#   tools/mpi-pack.sh --check OUT.tar.gz BUILD
#       unpacks OUT into a fresh /tmp folder and runs BUILD's MPI tests with that mpirun, the
#       system's Open MPI hidden (PATH without /usr/bin's mpirun, LD_LIBRARY_PATH first).
#
# On the target:  tar xzf tomo-openmpi.tar.gz && source tomo-openmpi/env.sh && mpirun -np 2 …
# Open MPI 4.1 finds its components and help files from OPAL_PREFIX (env.sh sets it to the
# unpacked folder); PMIx its plugins from PMIX_PREFIX. Only the shared-memory and TCP transports are
# kept (GPU data go through NCCL; MPI carries host data and the NCCL id): the InfiniBand, UCX,
# OFI and PSM components are dropped with their libraries, which keeps the pack small.
set -euo pipefail

packages=(openmpi-bin libopenmpi3 openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7
  libevent-pthreads-2.1-7 libmunge2 libnuma1 libudev1)
# Components whose libraries are not packed (UCX, libfabric, verbs, PSM, CUDA-aware parts).
drop_components='(openib|ofi|ucx|uct|psm|psm2|verbs|portals4|cuda|smcuda|java|mxm|fca|hcoll|knem|xpmem|usnic)'

check_pack() {
  local tarball=$1 build=$2
  local dir
  dir=$(mktemp -d /tmp/tomo-mpi-check.XXXXXX)
  trap 'rm -rf "$dir"' RETURN
  tar xzf "$tarball" -C "$dir"
  # A clean environment: no system Open MPI on PATH (a private bin with only what the tests
  # need), the packed libraries first on the loader path.
  mkdir -p "$dir/sysbin"
  for tool in sh bash env cat sed grep rm mkdir ls tail head awk dirname uname hostname false sort wc; do
    [ -x "/usr/bin/$tool" ] && ln -s "/usr/bin/$tool" "$dir/sysbin/$tool"
    [ -x "/bin/$tool" ] && [ ! -e "$dir/sysbin/$tool" ] && ln -s "/bin/$tool" "$dir/sysbin/$tool"
  done
  (
    export PATH="$dir/sysbin"
    unset LD_LIBRARY_PATH OPAL_PREFIX
    # shellcheck disable=SC1091
    source "$dir/tomo-openmpi/env.sh"
    echo "mpi-pack: checking with $(command -v mpirun) (OPAL_PREFIX=$OPAL_PREFIX)"
    [ "$(command -v mpirun)" = "$dir/tomo-openmpi/usr/bin/mpirun" ] || { echo "mpi-pack: wrong mpirun"; exit 1; }
    export TOMO_MPIEXEC="$dir/tomo-openmpi/usr/bin/mpirun"
    # Which MPI libraries the processes really load: every one must come from the pack.
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LD_DEBUG=libs LD_DEBUG_OUTPUT="$dir/ld" \
      mpirun -np 2 --oversubscribe "$build/tests/test_glpet" --gtest_filter='MpiChild.Broadcast*' >/dev/null
    loaded=$(cat "$dir"/ld.* | sed -n 's/.*calling init: //p' | sort -u)
    outside=$(echo "$loaded" | grep -E 'libmpi|libopen-(pal|rte)|libpmix|libhwloc|libevent|mca_|libmunge' | grep -v "^$dir/" || true)
    echo "mpi-pack: $(echo "$loaded" | grep -c "^$dir/") libraries loaded from the pack"
    [ -z "$outside" ] || { echo "mpi-pack: loaded from outside the pack:"; echo "$outside"; exit 1; }
    "$build/tests/test_glpet" --gtest_filter='MpiTeam.*' --gtest_color=no
    "$build/tests/test_apps" --gtest_filter='MpiRun.*' --gtest_color=no
  )
}

# The system's Open MPI made invisible (a private mount namespace; root only): bind an empty
# folder over its directories and /dev/null over its libraries, so only the pack can be used.
hide_system_mpi() {
  local empty
  empty=$(mktemp -d /tmp/tomo-mpi-empty.XXXXXX)
  for d in /usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/pmix2 /usr/share/openmpi /etc/openmpi; do
    [ -d "$d" ] && mount --bind "$empty" "$d"
  done
  for f in /usr/lib/x86_64-linux-gnu/lib{mpi,open-pal,open-rte,pmix,hwloc,event_core,event_pthreads,munge,mca_common_}*.so*; do
    [ -f "$f" ] && [ ! -L "$f" ] && mount --bind /dev/null "$f"
  done
  for f in /usr/bin/orterun /usr/bin/orted /usr/bin/ompi_info; do [ -f "$f" ] && mount --bind /dev/null "$f"; done
  echo "mpi-pack: the system's Open MPI is hidden in this namespace"
}

if [ "${1:-}" = "--check" ]; then
  if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
    exec unshare -m bash "$0" --check-hidden "$(realpath "$2")" "$(realpath "$3")"
  fi
  check_pack "$(realpath "$2")" "$(realpath "$3")"
  exit
fi
if [ "${1:-}" = "--check-hidden" ]; then
  hide_system_mpi
  check_pack "$2" "$3"
  exit
fi

out=$(realpath -m "${1:-build/tomo-openmpi.tar.gz}")
work=$(mktemp -d /tmp/tomo-mpi-pack.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
# The .debs: apt's cache where the packages were just installed (tools/setup-deps.sh), else
# `apt-get download` (the ordinary client, no root needed).
for p in "${packages[@]}"; do
  v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || true)
  deb=$(ls /var/cache/apt/archives/"${p}"_"${v//:/%3a}"_*.deb 2>/dev/null | head -1 || true)
  if [ -n "$v" ] && [ -n "$deb" ]; then cp "$deb" .; else apt-get download -qq "$p" 2>&1 | grep -v "unsandboxed" || true; fi
done
root=$work/tomo-openmpi
for deb in ./*.deb; do dpkg -x "$deb" "$root"; done
rm -rf "$root/usr/share/doc" "$root/usr/share/man" "$root/usr/share/lintian" "$root/usr/lib/udev" \
  "$root/usr/lib/systemd" "$root/lib/systemd" "$root/usr/include" "$root/etc/munge" "$root/usr/sbin"
# Debian's merged /usr: libraries of some packages unpack under /lib.
if [ -d "$root/lib" ]; then cp -a "$root/lib/." "$root/usr/lib/" && rm -rf "$root/lib"; fi
arch=usr/lib/x86_64-linux-gnu
find "$root/$arch" -regextype posix-extended \( -name 'mca_*.so' -o -name 'libmca_common_*' \) \
  -regex ".*_${drop_components}[._].*" -delete
# OpenSHMEM's frameworks (liboshmem is not packed) and netlink reachability (libnl; the
# "weighted" component stays).
find "$root/$arch" -regextype posix-extended -regex '.*/mca_(atomic|memheap|scoll|spml|sshmem)_[^/]*\.so' -delete
rm -f "$root/$arch/openmpi/lib/openmpi3/mca_reachable_netlink.so"
rm -f "$root/$arch"/libmpi_java* "$root/$arch"/libmpi_mpifh* "$root/$arch"/libmpi_usempi* "$root/$arch"/liboshmem* \
  "$root/$arch"/openmpi/lib/libmpi_java* "$root/$arch"/openmpi/lib/liboshmem* "$root/$arch"/openmpi/lib/libmpi_mpifh* \
  "$root/$arch"/openmpi/lib/libmpi_usempi* "$root/usr/bin/"mpijava* "$root/usr/bin/"shmem* "$root/usr/bin/"oshmem* \
  "$root/usr/bin/"*fort* "$root/usr/bin/"mpif* "$root/usr/bin/"mpic* "$root/usr/bin/"oshc* "$root/usr/bin/"opal_wrapper
find "$root" -xtype l -delete  # links to what was dropped
# Open MPI's and PMIx's alternatives (mpirun → orterun) are made by update-alternatives on an
# installed system: make the links here.
ln -sf orterun "$root/usr/bin/mpirun"
ln -sf orterun "$root/usr/bin/mpiexec"
cat >"$root/env.sh" <<'EOF'
# Source this: the packed Open MPI runtime (tools/mpi-pack.sh) for this shell.
_tomo_mpi=${BASH_SOURCE[0]:-$0}
case $_tomo_mpi in */*) ;; *) _tomo_mpi=./$_tomo_mpi ;; esac
_tomo_mpi=$(cd "${_tomo_mpi%/*}" && pwd)
export OPAL_PREFIX="$_tomo_mpi/usr"
export PMIX_PREFIX="$_tomo_mpi/usr/lib/x86_64-linux-gnu/pmix2"
export PMIX_MCA_mca_base_component_path="$_tomo_mpi/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix"
export PATH="$_tomo_mpi/usr/bin:$PATH"
export LD_LIBRARY_PATH="$_tomo_mpi/usr/lib/x86_64-linux-gnu:$_tomo_mpi/usr/lib/x86_64-linux-gnu/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TOMO_MPI_LIBRARY="$_tomo_mpi/usr/lib/x86_64-linux-gnu/libmpi.so.40"
# No site configuration is carried (/etc/openmpi is not relocated): quiet component errors.
export OMPI_MCA_mca_base_component_show_load_errors=0
# mpirun wants an rsh agent even to start processes on this host only: without ssh, a
# stand-in that is never called (jobs over several hosts need ssh, or the site's launcher).
command -v ssh >/dev/null 2>&1 || export OMPI_MCA_plm_rsh_agent=false
unset _tomo_mpi
EOF
# Every packed program and library must find its libraries in the pack, or be one that every
# Linux has (the C library, libgcc_s, libstdc++, zlib). ldd here would also find this machine's
# copies, so what resolves outside the pack is listed.
base='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libutil|libresolv|libgcc_s|libstdc\+\+|libz)\.so'
missing=$(find "$root" -type f \( -name '*.so*' -o -path '*/bin/*' \) -exec sh -c 'file -b "$1" | grep -q ELF' _ {} \; -print |
  while read -r f; do
    LD_LIBRARY_PATH="$root/$arch:$root/$arch/openmpi/lib:$root/$arch/pmix2/lib" ldd "$f" 2>/dev/null |
      awk -v f="$f" -v root="$root" -v base="$base" '
        /=>/ { if (index($3, root) != 1 && $1 !~ base) print f ": " $1 " (" $3 ")" }
        /not found/ { print f ": " $1 " not found" }'
  done | sort -u)
if [ -n "$missing" ]; then
  echo "mpi-pack: libraries not in the pack:"
  echo "$missing"
  exit 1
fi
mkdir -p "$(dirname "$out")"
tar czf "$out.tmp" -C "$work" tomo-openmpi
mv "$out.tmp" "$out"
echo "mpi-pack: $out ($(du -h "$out" | cut -f1)): Open MPI $(dpkg-query -W -f='${Version}' libopenmpi3)"
