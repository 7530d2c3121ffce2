// The resident designs of the cuda musr evaluator (label gpu; skips without a CUDA device): many
// consecutive calls with changing parameters, value and gradient interleaved, each equal to the
// double reference (1e-9 double, 1e-5 float); stop then a call relaunches; the grid ends by itself
// after its idle time and the next call relaunches it; two resident evaluators take turns on one
// device; the registry's cuda is the resident, stepped design.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <thread>

#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/musr/fit_problem.hpp"
#include "cuda/core/device.hpp"
#include "cuda/musr/cuda_chi2_evaluator.hpp"
#include "tests/musr/gpu_test_data.hpp"

namespace tomo::musr::test {
namespace {

class MusrResident : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  }
  static std::unique_ptr<Chi2Evaluator> make(const CudaEvaluatorVariant& v, const FitData& data, bool single) {
    return make_cuda_design(v, data, single);
  }
};

CudaEvaluatorVariant resident(CudaResident mode, bool step, double idle_s = 1.0) {
  CudaEvaluatorVariant v;
  v.step = step;
  v.resident = mode;
  v.idle_exit_s = idle_s;
  return v;
}

// Parameters of call i: every parameter moved a little, differently each call.
std::vector<double> params_of_call(const std::vector<double>& p0, int i) {
  std::vector<double> p = p0;
  for (std::size_t k = 0; k < p.size(); ++k) p[k] *= 1.0 + 0.01 * std::sin(0.7 * i + 1.3 * static_cast<double>(k));
  return p;
}

TEST_F(MusrResident, ManyCallsWithChangingParametersMatchTheReference) {
  FitData data = eq5_data(4, 20001);
  data.runs[1].t.resize(19998), data.runs[1].y.resize(19998), data.runs[1].sigma.resize(19998);
  const auto p0 = perturbed(eq5_truth(4));
  for (const CudaResident mode : {CudaResident::poll_one, CudaResident::poll_all}) {
    for (const bool single : {false, true}) {
      SCOPED_TRACE(str_cat(mode == CudaResident::poll_one ? "poll one" : "poll all", single ? ", float" : ", double"));
      auto ev = make(resident(mode, true), data, single);
      ASSERT_TRUE(cuda_resident_state(*ev).resident) << ev->describe();
      const double tol = single ? 1e-5 : 1e-9, gtol = single ? 2e-4 : 1e-8;
      for (int i = 0; i < 60; ++i) {
        const auto p = params_of_call(p0, i);
        std::vector<double> gref;
        const double ref = reference_statistic(data, p, &gref);
        if (i % 3 == 2) {
          std::vector<double> g(p.size());
          ASSERT_NEAR(ev->evaluate_with_gradient(p, g), ref, tol * ref) << "call " << i;
          for (std::size_t k = 0; k < g.size(); ++k) ASSERT_NEAR(g[k], gref[k], gtol * max_abs(gref)) << "call " << i << " d/dp" << k;
        } else {
          ASSERT_NEAR(ev->evaluate(p), ref, tol * ref) << "call " << i;
        }
      }
      EXPECT_EQ(cuda_resident_state(*ev).launches, 1) << "one launch for every call";
    }
  }
}

TEST_F(MusrResident, StopThenACallRelaunches) {
  const FitData data = eq5_data(16, 5000);
  const auto p = perturbed(eq5_truth(16));
  auto ev = make(resident(CudaResident::poll_one, true), data, true);
  const double v0 = ev->evaluate(p);
  EXPECT_TRUE(cuda_resident_state(*ev).running);
  cuda_resident_stop(*ev);
  EXPECT_FALSE(cuda_resident_state(*ev).running);
  EXPECT_EQ(ev->evaluate(p), v0) << "bitwise equal after a relaunch";
  EXPECT_EQ(cuda_resident_state(*ev).launches, 2);
  expect_matches_reference(*ev, data, p, 1e-5, 2e-4);
  ev->synchronize();  // returns at once with the grid resident
  EXPECT_TRUE(cuda_resident_state(*ev).running);
}

TEST_F(MusrResident, IdleGridEndsItselfAndTheNextCallRelaunches) {
  const FitData data = eq5_data(4, 3001);
  const auto p = perturbed(eq5_truth(4));
  auto ev = make(resident(CudaResident::poll_one, true, 0.05), data, false);
  const double v0 = ev->evaluate(p);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  EXPECT_FALSE(cuda_resident_state(*ev).running) << "ended after 0.05 s without a call";
  EXPECT_EQ(ev->evaluate(p), v0);
  EXPECT_EQ(cuda_resident_state(*ev).launches, 2);
  // Calls closer together than the idle time keep the same grid.
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(ev->evaluate(p), v0);
  }
  EXPECT_EQ(cuda_resident_state(*ev).launches, 2);
  expect_matches_reference(*ev, data, p, 1e-9, 1e-8);
}

TEST_F(MusrResident, TwoResidentEvaluatorsTakeTurns) {
  const FitData a_data = eq5_data(16, 4000), b_data = eq5_data(3, 7001);
  const auto pa = perturbed(eq5_truth(16)), pb = perturbed(eq5_truth(3));
  auto a = make(resident(CudaResident::poll_one, true), a_data, true);
  auto b = make(resident(CudaResident::poll_all, false), b_data, false);
  const double ra = reference_statistic(a_data, pa), rb = reference_statistic(b_data, pb);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i) {
    ASSERT_NEAR(a->evaluate(pa), ra, 1e-5 * ra) << i;
    ASSERT_NEAR(b->evaluate(pb), rb, 1e-9 * rb) << i;
  }
  // Each takes the device from the other at once, not after the other's idle time.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.5);
  EXPECT_GE(cuda_resident_state(*a).launches, 5);
}

// The registry's cuda: a launch per call with stepped exp/cos (the resident grid measured slower
// on the H200, docs/musr.md round three).
TEST_F(MusrResident, RegistryCudaIsThePolledSteppedDesign) {
  const FitData data = eq5_data(16, 20001);
  auto ev = make_evaluator("cuda", data, true);
  EXPECT_NE(ev->describe().find(kCudaDefaultVariant.label()), std::string::npos) << ev->describe();
  EXPECT_EQ(ev->describe().find("resident grid"), std::string::npos) << ev->describe();
  EXPECT_NE(ev->describe().find("stepped"), std::string::npos) << ev->describe();
  expect_matches_reference(*ev, data, perturbed(eq5_truth(16)), 1e-5, 2e-4);
}

}  // namespace
}  // namespace tomo::musr::test
