// The cuda musr::Chi2Evaluator (label gpu; skips without a CUDA device) against the double
// reference: χ² and max-likelihood within 1e-9 (double) and 1e-5 (float), gradients, every op,
// uneven times, [Locans2017]'s 16 × 85 320 bins, determinism over repeated calls, and the cpu and
// gl-compute backends where they are registered; runs whose lengths are not multiples of a Pack.
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

// Runs whose lengths are not multiples of a Pack of 8 bins, fewer bins than a Pack, uneven
// times, max-likelihood with a scale and σ off the Poisson rule ((y, 1/σ²) pairs), in double and
// float.
TEST_F(MusrCuda, ShapesMatchReference) {
  FitData odd = eq5_data(16, 20001);
  odd.runs[3].t.resize(19998), odd.runs[3].y.resize(19998), odd.runs[3].sigma.resize(19998);  // 8·n + 6 bins
  FitData tiny = eq5_data(3, 3);
  FitData uneven = eq5_data(3, 4001);
  for (std::size_t k = 0; k < uneven.runs[1].t.size(); ++k) uneven.runs[1].t[k] += 0.002 * std::sin(0.1 * static_cast<double>(k));
  FitData ml = eq5_data(4, 5003, Statistic::max_likelihood);
  for (auto& r : ml.runs) r.scale = 0.5;
  FitData sigma = eq5_data(2, 3001);
  for (auto& r : sigma.runs)
    for (auto& s : r.sigma) s *= 1.1;
  for (const FitData* data : {&odd, &tiny, &uneven, &ml, &sigma}) {
    const auto p = perturbed(eq5_truth(static_cast<int>(data->runs.size())));
    expect_matches_reference(*make(*data, false), *data, p, 1e-9, 1e-8);
    expect_matches_reference(*make(*data, true), *data, p, 1e-5, 2e-4);
  }
}

// Launches queued without their waits (as bench_musr times kernels) leave the last-block ticket
// and the sequence number of the calls after them intact.
TEST_F(MusrCuda, BackToBackLaunchesThenCallsStayCorrect) {
  const FitData data = eq5_data(16, 30000);
  const auto p = perturbed(eq5_truth(16));
  for (const bool single : {true, false}) {
    auto d = make_cuda_chi2_evaluator();
    EvaluatorOptions o;
    o.single_precision = single;
    d->configure(o);
    d->upload(data);
    std::vector<double> g0(p.size()), g1(p.size());
    const double f0 = d->evaluate(p);
    const double v0 = d->evaluate_with_gradient(p, g0);
    for (int i = 0; i < 20; ++i) d->enqueue(p, false), d->enqueue(p, true);
    d->synchronize();
    EXPECT_EQ(d->evaluate(p), f0);
    EXPECT_EQ(d->evaluate_with_gradient(p, g1), v0);
    EXPECT_EQ(g0, g1);
    EXPECT_NEAR(f0, v0, 1e-6 * v0);
  }
}

}  // namespace
}  // namespace tomo::musr::test
