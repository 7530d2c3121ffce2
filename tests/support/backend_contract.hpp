// Test support for the backend contract suites: which backend names a suite is instantiated
// over (from the operator's BackendRegistry), the fixture that makes each backend usable or
// fails/skips it by the house policy, and the adjoint identity ⟨Ax, y⟩ = ⟨x, Aᵀy⟩.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "compute/core/registry.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::test {

// The CPU/GL executable's instances: every registered name except cuda. GL names are listed
// whether or not GL works here, so a broken GL FAILS in CI instead of vanishing.
template <class Op>
std::vector<std::string> contract_backends() {
  std::vector<std::string> out = BackendRegistry<Op>::instance().names();
  std::erase(out, std::string("cuda"));
  return out;
}

// The `_gpu_test` executable's instances: cuda, skipped where no device is present.
inline std::vector<std::string> gpu_contract_backends() { return {"cuda"}; }

// Test names: gl-compute → gl_compute (GoogleTest accepts only [A-Za-z0-9_]).
inline std::string backend_param_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

// Base of every contract suite: the parameter is the backend name. GL backends get the shared
// context with validation on (no context is a failure); cuda skips without a device; any other
// unavailable backend fails with the registry's reason.
template <class Op>
class BackendContract : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string& name = GetParam();
    if (name.rfind("gl", 0) == 0) (void)gl_context();
    const Availability a = BackendRegistry<Op>::instance().available(name);
    if (!a.ok && name == "cuda") GTEST_SKIP() << "no CUDA device";
    ASSERT_TRUE(a.ok) << "backend '" << name << "' is not available here: " << a.why;
  }
  const std::string& backend() const { return GetParam(); }
  bool is_cpu() const { return GetParam() == "cpu"; }
};

// Σ a_i b_i in double.
template <class A, class B>
double inner(std::span<const A> a, std::span<const B> b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += double(a[i]) * double(b[i]);
  return s;
}

// The adjoint identity's relative mismatch |⟨Ax, y⟩ / ⟨x, Aᵀy⟩ − 1| (both sides positive for
// the positive x, y the suites use).
inline double adjoint_mismatch(double ax_y, double x_aty) { return std::abs(ax_y / x_aty - 1.0); }

}  // namespace tomo::test

// Instantiates `suite` over the CPU/GL names (in *_contract_test.cpp) or over cuda (in
// *_contract_gpu_test.cpp) of operator interface `Op`.
#define TOMO_CONTRACT_INSTANTIATE(suite, Op)                                                              \
  INSTANTIATE_TEST_SUITE_P(Backends, suite, ::testing::ValuesIn(::tomo::test::contract_backends<Op>()), \
                           ::tomo::test::backend_param_name)
#define TOMO_CONTRACT_INSTANTIATE_GPU(suite)                                                        \
  INSTANTIATE_TEST_SUITE_P(Backends, suite, ::testing::ValuesIn(::tomo::test::gpu_contract_backends()), \
                           ::tomo::test::backend_param_name)
