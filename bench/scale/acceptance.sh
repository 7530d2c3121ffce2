#!/usr/bin/env bash
# The scale acceptance table on a four-GPU host, in one call: each problem on 1, 2, 4 GPUs
# (`--gpus N`, one process), glpet under `mpirun -np 4 … --gpus 1` (cuda and gl-compute) against
# one process on one GPU, glpet 256³ on four GPUs, and safir's MAP-RDP 1 vs 2 vs 4 GPUs per
# iteration. Run from the build folder (apps/tomoraster) with bench/scale.py and this folder's
# scripts copied to scale-scripts/; every step has its own time limit inside a total budget, and
# rows print as they come, so a run cut short keeps the rows before the cut.
#
#   OUT=out BUDGET_S=520 scale-scripts/acceptance.sh
#   ONLY="safir-map-cpu" CLI=build/apps/tomoraster SAFIR_EVENTS=20000 bench/scale/acceptance.sh
set -uo pipefail
OUT=${OUT:-scale-acceptance}
BUDGET_S=${BUDGET_S:-520}
CLI=${CLI:-$PWD/apps/tomoraster}
HERE=$(cd "$(dirname "$0")" && pwd)
SAFIR_EVENTS=${SAFIR_EVENTS:-1000000}
CPU_EVENTS=${CPU_EVENTS:-300000}  # the cpu ranks' comparison: fewer events (host time)
ONLY=${ONLY:-}  # e.g. "safir-map-gpus safir-map-cpu": run only these steps
if [ -z "${WORK:-}" ]; then
  WORK=$(mktemp -d /tmp/scale-acceptance.XXXXXX)  # outputs (a 1024³ volume is 4 GiB) stay out of $OUT
  trap 'rm -rf "$WORK"' EXIT
  export WORK
fi
mkdir -p "$OUT"

# safir MAP-RDP on the GPU test's scene, 10 iterations, every one saved.
safir_map() {  # BACKEND RANKS("" = the one-device path) DIR [MORE ARGUMENTS]
  "$CLI" --no-progress -q run safir_default.toml --backend "$1" \
    --set safir.events="$SAFIR_EVENTS" --set safir.iterations=10 --set 'safir.save_iterations=[1,2,3,4,5,6,7,8,9,10]' \
    --set 'safir.algorithm="map-rdp"' --set safir.subsets=2 --set safir.prior.beta=0.5 \
    ${2:+--gpus $2} -o "$WORK/map/$3" --force "${@:4}"
}
# 1 GPU twice (the float atomics' own spread: the baseline), 2 and 4 GPUs.
map_gpus() {
  mkdir -p "$WORK/map"
  safir_map cuda "" gpu1 && safir_map cuda "" gpu1-again && safir_map cuda 2 gpu2 && safir_map cuda 4 gpu4 &&
    python3 "$HERE/compare_iterations.py" "$WORK/map/gpu1" "$WORK/map/gpu1-again" "$WORK/map/gpu2" "$WORK/map/gpu4"
  echo "# the same at BSREM relaxation 0.1"
  local r=(--set safir.relaxation=0.1)
  safir_map cuda "" gpu1-r "${r[@]}" && safir_map cuda "" gpu1-r-again "${r[@]}" && safir_map cuda 2 gpu2-r "${r[@]}" &&
    safir_map cuda 4 gpu4-r "${r[@]}" &&
    python3 "$HERE/compare_iterations.py" "$WORK/map/gpu1-r" "$WORK/map/gpu1-r-again" "$WORK/map/gpu2-r" "$WORK/map/gpu4-r"
}
# cpu ranks (host sums in rank order; OpenMP inside a rank).
map_cpu() {
  mkdir -p "$WORK/map"
  SAFIR_EVENTS=$CPU_EVENTS
  safir_map cpu "" cpu1 && safir_map cpu "" cpu1-again && safir_map cpu 2 cpu2 && safir_map cpu 4 cpu4 &&
    python3 "$HERE/compare_iterations.py" "$WORK/map/cpu1" "$WORK/map/cpu1-again" "$WORK/map/cpu2" "$WORK/map/cpu4"
}
case "${1:-}" in map_gpus) map_gpus; exit ;; map_cpu) map_cpu; exit ;; esac  # a step's own process

start=$(date +%s)
if [ -z "${TOMO_NCCL_LIBRARY:-}" ]; then  # NCCL from the Python environment where the loader has none
  nccl=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)
  [ -n "$nccl" ] && [ -f "$nccl" ] && export TOMO_NCCL_LIBRARY=$nccl
fi
if [ -f tomo-openmpi.tar.gz ] && ! command -v mpirun >/dev/null; then
  tar xzf tomo-openmpi.tar.gz -C "$WORK" && source "$WORK/tomo-openmpi/env.sh"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/# /'
echo "# nproc $(nproc); NCCL ${TOMO_NCCL_LIBRARY:-from the loader path}; mpirun $(command -v mpirun || echo none)"

# step NAME LIMIT_S COMMAND…: runs COMMAND under min(LIMIT_S, the budget left), logs to $OUT/NAME.log
step() {
  local name=$1 limit=$2; shift 2
  if [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]]; then return; fi
  local left=$((BUDGET_S - ($(date +%s) - start) - 3))
  if [ "$left" -lt 10 ]; then echo "## $name: skipped (budget spent)"; return; fi
  [ "$limit" -gt "$left" ] && limit=$left
  echo "## $name (limit ${limit} s, at $(( $(date +%s) - start )) s)"
  local t0 rc
  t0=$(date +%s%N)
  timeout -k 5 "$limit" "$@" > "$OUT/$name.log" 2> "$OUT/$name.err"
  rc=$?
  cat "$OUT/$name.log"
  echo "## $name: exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  [ "$rc" -ne 0 ] && tail -n 5 "$OUT/$name.err"
  return 0
}
scale() {  # scale NAME LIMIT_S scale.py arguments…
  local name=$1 limit=$2; shift 2
  step "$name" "$limit" python3 "$HERE/scale.py" --cli "$CLI" --out "$WORK/$name" --json "$OUT/$name.json" "$@"
}

# 1. safir MAP-RDP: differences per iteration, GPUs and cpu ranks; the GPU test itself.
step safir-map-gpus 100 "$0" map_gpus
step safir-map-cpu 40 "$0" map_cpu
step safir-ranks-test 50 env TOMORASTER_CLI="$CLI" tests/test_multi_gpu --gtest_filter='SafirRanksGpu.*'
# 2. The table: --gpus 1,2,4 in one process.
scale glpet-ring 50 --backend cuda --gpus 1,2,4 --only glpet-ring
scale glpet-2plane 50 --backend cuda --gpus 1,2,4 --only glpet-2plane
scale safir 45 --backend cuda --gpus 1,2,4 --only safir
scale strip 75 --backend cuda --gpus 1,2,4 --only strip --strip-events 100000000
# 3. mpirun -np 4 × 1 GPU against one process on one GPU (the cuda 1-GPU row is glpet-ring's above).
scale glpet-ring-mpi-cuda 30 --backend cuda --gpus 4 --only glpet-ring --mpirun mpirun --label mpi-
scale glpet-ring-gl 40 --backend gl-compute --gpus 1 --only glpet-ring --set "--set glpet.iterations=3"
scale glpet-ring-mpi-gl 40 --backend gl-compute --gpus 4 --only glpet-ring --mpirun mpirun --label mpi- \
  --set "--set glpet.iterations=3"
# 4. glpet 256³ two-plane on four GPUs (cached where the voxel split's shares fit).
scale glpet-256 75 --backend cuda --gpus 4 --only glpet-2plane-256
# 5. oat FBP (one device) and fdk 1024³ (RabbitCT's geometry, simulated projections).
scale oat-fbp 40 --backend cuda --gpus 1 --only oat-fbp
scale fdk-1024 150 --backend cuda --gpus 4,1,2 --only fdk-1024

echo "## done in $(( $(date +%s) - start )) s; the table (per-iteration ms, whole run s, stages s):"
for f in glpet-ring glpet-2plane safir strip glpet-ring-mpi-cuda glpet-ring-gl glpet-ring-mpi-gl glpet-256 oat-fbp fdk-1024; do
  [ -f "$OUT/$f.log" ] && grep -v '^(stages' "$OUT/$f.log" | sed -n '2,$p'
done
ls "$OUT"/*.json >/dev/null 2>&1 && python3 "$HERE/table_md.py" "$OUT"/*.json
exit 0
