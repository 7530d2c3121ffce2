// The Chi2Evaluator contract over the CPU/GL backends (cpu, gl-compute); cuda in
// chi2_contract_gpu_test.cpp.
#include "tests/musr/chi2_contract.hpp"

namespace tomo::musr::test {

TOMO_CONTRACT_INSTANTIATE(MusrChi2Contract, Chi2Evaluator);

// The all-functions theory is itself checked: finite χ² and gradient at its parameters.
TEST(MusrChi2Cases, AllFunctionsTheoryIsFinite) {
  const Chi2Case c = make_case("all_functions");
  auto ev = BackendRegistry<Chi2Evaluator>::instance().create("cpu");
  ev->configure({});
  ev->upload(c.data);
  std::vector<double> g(c.params.size());
  const double f = ev->evaluate_with_gradient(c.params, g);
  EXPECT_TRUE(std::isfinite(f));
  int nonzero = 0;
  for (double v : g) {
    EXPECT_TRUE(std::isfinite(v));
    nonzero += v != 0.0;
  }
  EXPECT_EQ(nonzero, static_cast<int>(c.params.size()));  // every parameter reaches the model
}

}  // namespace tomo::musr::test
