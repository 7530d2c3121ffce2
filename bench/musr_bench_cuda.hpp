// bench_musr's shared pieces (bench/musr_bench.cpp) and its cuda call breakdown
// (musr_bench_cuda.cpp): at one size, one call of the shipped cuda kernels (float and double)
// split into its kernel and the rest, beside bench-only call probes.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/musr/fit_setup.hpp"
#include "compute/musr/msr.hpp"

namespace tomo::musr::musr_bench {

struct Args {
  std::vector<int> sizes{85320, 106650, 142200, 213300, 426601};
  std::vector<int> fit_sizes;      // empty: every size (GPU backends)
  std::vector<int> cpu_fit_sizes{85320};  // the cpu fit takes ~1000 gradient passes: one size
  int detectors = 16;
  int reps = 30;
  int breakdown_size = -1;  // -1: the largest size
  int launches = 200;
  std::vector<std::string> backends;  // empty: every available one
  std::string json;
  // "eq5": [Locans2017]'s simpleGss; "dynkt": the same fit with the relaxation replaced by
  // dynGssKTLF (0.5 MHz, width par1, hopping 0.3/µs), whose Volterra tables are rebuilt on the
  // host at every parameter change and uploaded.
  std::string theory = "eq5";
};

struct Problem {
  MsrFile msr;
  FitSetup setup;
};

// The eq. (5) msr and its simulated histograms, fitted bins per detector ≈ `bins`, 10 µs range
// (musr_bench.cpp).
Problem make_problem(int detectors, int bins, const std::string& theory = "eq5");

// The cuda breakdown at `bins` per detector into stdout and `report` (copy_gbps: the floor's
// bandwidth, measured by the caller); only in builds with CUDA, where the cuda backend is available.
void cuda_breakdown(const Args& args, int bins, double copy_gbps, nlohmann::json& report);

}  // namespace tomo::musr::musr_bench
