// The cuda musr::Chi2Evaluator (label gpu; skips without a CUDA device) against the double
// reference: χ² and max-likelihood within 1e-9 (double) and 1e-5 (float), gradients, every op,
// uneven times, the seed's 16 × 85 320 bins, determinism over repeated calls, and the cpu and
// gl-compute backends where they are registered; every kernel design bench_musr compares (v1, v2
// with IEEE or fast float functions, waiting by stream synchronize or by polling, stepped
// exp/cos, resident grids) to the same tolerances, on runs whose lengths are not multiples of
// v2's groups of 4 bins. The resident grid's own cases are in resident_grid_gpu_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/musr/fit_problem.hpp"
#include "cuda/core/device.hpp"
#include "cuda/musr/cuda_chi2_evaluator.hpp"
#include "tests/musr/gpu_test_data.hpp"

namespace tomo::musr::test {
namespace {

class MusrCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  }
  static std::unique_ptr<Chi2Evaluator> make(const FitData& data, bool single) { return make_evaluator("cuda", data, single); }
};

TEST(MusrCudaRegistry, ReportsAvailabilityConsistently) {
  const auto a = BackendRegistry<Chi2Evaluator>::instance().available("cuda");
  EXPECT_EQ(a.ok, tomo::cuda::have_device()) << a.why;
}

TEST_F(MusrCuda, Chi2OfSixteenDetectorsMatchesReferenceInDoubleAndFloat) {
  const FitData data = eq5_data(16, 20000);
  const auto truth = eq5_truth(16);
  auto d = make(data, false);
  EXPECT_NE(d->describe().find("cuda"), std::string::npos) << d->describe();
  expect_matches_reference(*d, data, truth, 1e-9, 1e-8);
  expect_matches_reference(*d, data, perturbed(truth), 1e-9, 1e-8);
  auto f = make(data, true);
  expect_matches_reference(*f, data, truth, 1e-5, 2e-4);
  expect_matches_reference(*f, data, perturbed(truth), 1e-5, 2e-4);
}

TEST_F(MusrCuda, SeedSizeSixteenBy85320) {
  const FitData data = eq5_data(16, 85320, Statistic::chi2, 0.000195);
  auto d = make(data, false);
  expect_matches_reference(*d, data, perturbed(eq5_truth(16)), 1e-9, 1e-8);
}

TEST_F(MusrCuda, MaxLikelihoodMatchesReference) {
  FitData data = eq5_data(4, 5000, Statistic::max_likelihood);
  for (auto& r : data.runs) r.scale = 0.5;
  expect_matches_reference(*make(data, false), data, perturbed(eq5_truth(4)), 1e-9, 1e-8);
  expect_matches_reference(*make(data, true), data, perturbed(eq5_truth(4)), 1e-5, 2e-4);
}

TEST_F(MusrCuda, UnevenTimesAreReadFromTheTimeArray) {
  FitData data = eq5_data(3, 4000);
  for (std::size_t k = 0; k < data.runs[1].t.size(); ++k) data.runs[1].t[k] += 0.002 * std::sin(0.1 * static_cast<double>(k));
  expect_matches_reference(*make(data, false), data, perturbed(eq5_truth(3)), 1e-9, 1e-8);
}

TEST_F(MusrCuda, EveryOpMatchesTheCpuEvaluator) {
  const FitData data = every_op_data(4096);
  expect_matches_reference(*make(data, false), data, perturbed(every_op_params()), 1e-9, 1e-8);
  for (const auto& c : every_op_programs()) {
    SCOPED_TRACE(c.name);
    const FitData one = op_data(c.program, 2048);
    // Float gradients of a single op sum terms of both signs: 1e-3 of the largest entry.
    expect_matches_reference(*make(one, true), one, perturbed(every_op_params()), 1e-5, 1e-3);
  }
}

TEST_F(MusrCuda, RepeatedCallsAreBitwiseEqual) {
  const FitData data = eq5_data(16, 30000);
  auto d = make(data, false);
  const auto p = perturbed(eq5_truth(16));
  std::vector<double> g0(p.size()), g1(p.size());
  const double v0 = d->evaluate_with_gradient(p, g0);
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(d->evaluate(p), v0) << "call " << i;  // the ticket is rearmed by every launch
  }
  EXPECT_EQ(d->evaluate_with_gradient(p, g1), v0);
  EXPECT_EQ(g0, g1);
}

TEST_F(MusrCuda, AgreesWithCpuAndGlComputeWhereRegistered) {
  auto& reg = BackendRegistry<Chi2Evaluator>::instance();
  const FitData data = eq5_data(4, 6000);
  const auto p = perturbed(eq5_truth(4));
  std::vector<double> gc(p.size());
  const double vc = make(data, false)->evaluate_with_gradient(p, gc);
  for (const std::string other : {"cpu", "gl-compute"}) {
    if (!reg.available(other).ok) continue;
    SCOPED_TRACE(other);
    auto ev = reg.create(other);
    ev->configure({});
    ev->upload(data);
    std::vector<double> go(p.size());
    const double vo = ev->evaluate_with_gradient(p, go);
    const double tol = 1e-9;  // cpu and gl-compute (GLSL fp64) in double
    EXPECT_NEAR(vo, vc, tol * vc);
    for (std::size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(go[i], gc[i], 1e-8 * max_abs(gc)) << i;
  }
}

std::unique_ptr<Chi2Evaluator> make_design(const CudaEvaluatorVariant& v, const FitData& data, bool single) {
  return make_cuda_design(v, data, single);
}
const CudaEvaluatorVariant kDesigns[] = {{CudaKernelVersion::v1, false, false}, {CudaKernelVersion::v2, false, false},
                                         {CudaKernelVersion::v2, false, true}, {CudaKernelVersion::v2, true, false},
                                         {CudaKernelVersion::v2, true, true},
                                         {CudaKernelVersion::v2, true, true, true},
                                         {CudaKernelVersion::v2, false, false, true},
                                         // stepped exp/cos (launch per call), then the resident grids
                                         {CudaKernelVersion::v2, true, true, false, true},
                                         {CudaKernelVersion::v2, false, true, false, true},
                                         {CudaKernelVersion::v2, true, true, false, false, CudaResident::poll_one},
                                         {CudaKernelVersion::v2, true, true, false, true, CudaResident::poll_one},
                                         {CudaKernelVersion::v2, true, true, false, true, CudaResident::poll_all},
                                         {CudaKernelVersion::v2, true, true, true, true, CudaResident::poll_one},
                                         // round four's levers (CudaLean), alone and together, also resident
                                         {CudaKernelVersion::v2, true, true, false, true, CudaResident::none, 1.0, {true, false, false}},
                                         {CudaKernelVersion::v2, true, true, false, true, CudaResident::none, 1.0, {false, true, false}},
                                         {CudaKernelVersion::v2, true, true, false, true, CudaResident::none, 1.0, {false, false, true}},
                                         {CudaKernelVersion::v2, true, true, false, true, CudaResident::none, 1.0, {true, true, true}},
                                         {CudaKernelVersion::v2, false, true, false, false, CudaResident::none, 1.0, {true, true, true}},
                                         {CudaKernelVersion::v2, true, true, false, true, CudaResident::poll_one, 1.0, {true, true, true}},
                                         // value calls waited for by their value (vflag), alone and with the levers
                                         {CudaKernelVersion::v2, true, true, false, true, CudaResident::none, 1.0, {}, true},
                                         {CudaKernelVersion::v2, true, true, false, true, CudaResident::none, 1.0, {true, true, true}, true},
                                         // Packs of 8 bins (CudaLean::wide), with the levers, in double, resident
                                         {CudaKernelVersion::v2, true, true, false, true, CudaResident::none, 1.0, {true, true, true, true}, true},
                                         {CudaKernelVersion::v2, false, true, false, true, CudaResident::none, 1.0, {false, false, false, true}},
                                         {CudaKernelVersion::v2, true, true, true, true, CudaResident::poll_one, 1.0, {true, true, true, true}}};
// The designs whose code differs by data shape (tiny, uneven, likelihood, (y, 1/σ²) runs): every
// kernel family once (fewer NVRTC compiles than kDesigns × 8 shapes).
const CudaEvaluatorVariant kShapeDesigns[] = {kDesigns[0], kDesigns[1], kDesigns[2], kDesigns[3], kDesigns[4], kDesigns[5], kDesigns[6],
                                              kDesigns[7], kDesigns[10], kDesigns[11], kDesigns[12], kDesigns[16], kDesigns[17],
                                              kDesigns[18], kDesigns[20], kDesigns[21], kDesigns[22], kDesigns[23]};

TEST_F(MusrCuda, EveryKernelDesignMatchesReference) {
  FitData data = eq5_data(16, 20001);
  data.runs[3].t.resize(19998), data.runs[3].y.resize(19998), data.runs[3].sigma.resize(19998);  // 4·n + 2 bins
  const auto p = perturbed(eq5_truth(16));
  for (const auto& v : kDesigns) {
    SCOPED_TRACE(v.label());
    auto d = make_design(v, data, false);
    EXPECT_NE(d->describe().find(v.label()), std::string::npos) << d->describe();
    expect_matches_reference(*d, data, p, 1e-9, 1e-8);
    expect_matches_reference(*make_design(v, data, true), data, p, 1e-5, 2e-4);
  }
}

TEST_F(MusrCuda, KernelDesignsHandleTinyUnevenAndLikelihoodRuns) {
  FitData tiny = eq5_data(3, 3);  // fewer bins than a group
  FitData uneven = eq5_data(3, 4001);
  for (std::size_t k = 0; k < uneven.runs[1].t.size(); ++k) uneven.runs[1].t[k] += 0.002 * std::sin(0.1 * static_cast<double>(k));
  FitData ml = eq5_data(4, 5003, Statistic::max_likelihood);
  for (auto& r : ml.runs) r.scale = 0.5;
  FitData sigma = eq5_data(2, 3001);  // σ not the Poisson rule: (y, 1/σ²) pairs
  for (auto& r : sigma.runs)
    for (auto& s : r.sigma) s *= 1.1;
  for (const auto& v : kShapeDesigns) {
    SCOPED_TRACE(v.label());
    for (const FitData* data : {&tiny, &uneven, &ml, &sigma}) {
      const auto p = perturbed(eq5_truth(static_cast<int>(data->runs.size())));
      expect_matches_reference(*make_design(v, *data, false), *data, p, 1e-9, 1e-8);
      expect_matches_reference(*make_design(v, *data, true), *data, p, 1e-5, 2e-4);
    }
  }
}

TEST_F(MusrCuda, BackToBackLaunchesThenCallsStayCorrect) {
  const FitData data = eq5_data(16, 30000);
  const auto p = perturbed(eq5_truth(16));
  for (const auto& v : kDesigns) {
    SCOPED_TRACE(v.label());
    auto d = make_design(v, data, true);
    std::vector<double> g0(p.size()), g1(p.size());
    const double f0 = d->evaluate(p);
    const double v0 = d->evaluate_with_gradient(p, g0);
    EXPECT_GT(cuda_kernel_us(*d, p, false, 20), 0.0);
    EXPECT_GT(cuda_kernel_us(*d, p, true, 20), 0.0);
    EXPECT_EQ(d->evaluate(p), f0);  // the ticket and the sequence number survived 40 unwaited launches
    EXPECT_EQ(d->evaluate_with_gradient(p, g1), v0);
    EXPECT_EQ(g0, g1);
    EXPECT_NEAR(f0, v0, 1e-6 * v0);
  }
  auto cpu = BackendRegistry<Chi2Evaluator>::instance().create("cpu");
  EXPECT_THROW(cuda_kernel_us(*cpu, p, false, 1), Error);
}

// 16-bit counts: used on Poisson counts (describe says so), exact against the reference, and a
// count over 65535 falls back to float bins with the same result.
TEST_F(MusrCuda, Counts16DesignUsesCountsOnlyWhereExact) {
  FitData data = eq5_data(16, 20001);
  const auto p = perturbed(eq5_truth(16));
  const CudaEvaluatorVariant u16{CudaKernelVersion::v2, true, true, true};
  auto d = make_design(u16, data, true);
  EXPECT_NE(d->describe().find("16-bit counts"), std::string::npos) << d->describe();
  expect_matches_reference(*d, data, p, 1e-5, 2e-4);
  FitData big = data;
  big.runs[2].y[11] = 70000.0;
  big.runs[2].sigma[11] = std::sqrt(70000.0 / big.runs[2].scale);
  auto f = make_design(u16, big, true);
  EXPECT_EQ(f->describe().find("16-bit counts"), std::string::npos) << f->describe();
  expect_matches_reference(*f, big, p, 1e-5, 2e-4);
  std::vector<double> g0(p.size()), g1(p.size());
  EXPECT_EQ(d->evaluate_with_gradient(p, g0), d->evaluate_with_gradient(p, g1));  // repeated calls bitwise equal
  EXPECT_EQ(g0, g1);
}

}  // namespace
}  // namespace tomo::musr::test
