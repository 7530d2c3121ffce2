// bench_oat's shared pieces (bench/oat_bench.cpp) and its cuda rows (oat_bench_cuda.cpp): every
// cuda FBP kernel with its error against the cpu, the deferred kernel's list lines, and H_int /
// H_intᵀ against their bench-only probes.
#pragma once
#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/oat/geometry.hpp"

namespace tomo::oat::oat_bench {

constexpr double kGapatUpdatesPerS = 2.5e11;  // GAPAT, RTX 3090 Ti ([Wang2013]'s comparison)

struct Args {
  bool small = false;
  int reps = 2;
  std::vector<std::string> backends;
  std::vector<std::string> fbp_kernels;  // cuda FBP kernels to time (empty: all)
  std::string json;
  std::array<int, 3> dims{128, 128, 160};
  double voxel = 0.2, radius = 65.0, fs = 20.0;
  int fbp_rings = 128, fbp_views = 256, model_rings = 64, model_views = 128;
  int cpu_rings = 2, cpu_views = 4;  // the cpu reference's transducer subset
  bool fbp = true, model = true;     // --only fbp|model|pls: which rows to time
  bool pls_only = false;             // --only pls: the PLS-int iteration and its breakdown alone
  int pls_iterations = 2;            // PLS iterations timed through the cuda Model (0: none)
  std::vector<std::string> adjoints;  // H_intᵀ variants to time by name (empty: all)
  bool symmetric = true;              // the quarter-turn symmetric H_srt / H_srtᵀ rows (cuda)
  bool symmetric_only = false;        // --only symmetric: those rows alone
};

struct Row {
  std::string what{}, backend{}, mode{};
  double ms = 0, rate = 0;        // rate: updates/s (FBP) or patches/s (H_int, H_intT)
  double ceiling_ms = 0;          // the probe's time on the same workload (0: none)
  std::string ceiling{};          // which probe
  double cpu1 = 0, cpu_all = 0;   // speed-ups over the extrapolated cpu reference
  double error = -1;              // FBP: rel. L2 vs the cpu on the middle z-slice (-1: not measured)
};

// Timing data whose cost does not depend on the values (oat_bench.cpp).
std::vector<double> pattern(std::size_t n, double f);

// The cuda rows (FBP kernels, H_int, H_intᵀ) into `rows` and their extra lines into `out`;
// throws UnavailableError without CUDA.
void cuda_rows(const Args& a, const OatGeometry& gf, const OatGeometry& gm, double updates, double patches,
               std::vector<Row>& rows, nlohmann::json& out);
// Where one cuda PLS-int iteration's time goes on gm (bench/cuda/oat/pls_breakdown.hpp): printed
// and under out["pls_int_iteration"]["cuda_breakdown"]; throws UnavailableError without CUDA.
void cuda_pls_breakdown(const Args& a, const OatGeometry& gm, nlohmann::json& out);

}  // namespace tomo::oat::oat_bench
