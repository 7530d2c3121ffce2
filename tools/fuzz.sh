#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan) into ${FUZZ_BUILD_DIR:-build-fuzz}
# and runs each from its seed corpus, for --seconds S each (default 15) or --runs N inputs each.
# A crash, leak, UB report, hang (> 10 s per input) or an allocation beyond the memory limits
# (one malloc over FUZZ_MALLOC_MB, default 512; resident memory over FUZZ_RSS_MB, default 1024:
# a small input that declares gigabytes) fails the script; the input is kept under
# build-fuzz/findings/<target>/ (copy it to tests/fuzz/regressions/<target>/ once fixed).
#   tools/fuzz.sh                      # CI: 15 s per target
#   tools/fuzz.sh --runs 1000000 scene # the long run of one target
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
limit=(-max_total_time=15)
targets=()
while (($#)); do
  case $1 in
    --seconds) limit=(-max_total_time="$2"); shift 2 ;;
    --runs) limit=(-runs="$2"); shift 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
((${#targets[@]})) || targets=($(cd "$root/tests/fuzz" && ls *_fuzz.cpp | sed 's/_fuzz\.cpp$//'))
command -v clang++ >/dev/null || { echo "tools/fuzz.sh: clang++ not found (apt-get install clang libclang-rt-14-dev)"; exit 2; }
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DTOMO_FUZZ=ON -DTOMO_WITH_CUDA=OFF -DTOMO_BUILD_BENCH=OFF -DTOMO_WITH_WINDOW=OFF >/dev/null
jobs=$(nproc 2>/dev/null || echo 2)
cmake --build "$build" -j"$jobs" --target fuzz_seeds $(printf 'fuzz_%s ' "${targets[@]}") >/dev/null
rm -rf "$build/corpus-seeds" && "$build/tests/fuzz_seeds" "$build/corpus-seeds"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tools/fuzz-lsan.supp:print_suppressions=0}
status=0
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t" findings="$build/findings/$t"
  mkdir -p "$corpus" "$findings"
  cp -n "$build/corpus-seeds/$t"/* "$corpus"/ 2>/dev/null || true
  cp -n "$root/tests/fuzz/regressions/$t"/* "$corpus"/ 2>/dev/null || true  # former findings, under the memory limits too
  log="$build/fuzz-$t.log"
  if "$build/tests/fuzz_$t" "${limit[@]}" -timeout=10 -rss_limit_mb="${FUZZ_RSS_MB:-1024}" \
       -malloc_limit_mb="${FUZZ_MALLOC_MB:-512}" -print_final_stats=1 \
       -artifact_prefix="$findings/" "$corpus" >"$log" 2>&1; then
    result=ok
  else
    result="FAILED (see $log and $findings/)"
    status=1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  echo "fuzz $t: ${runs:-?} inputs, corpus $(ls "$corpus" | wc -l) files, $result"
done
exit $status
