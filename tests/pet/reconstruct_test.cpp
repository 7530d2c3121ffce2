// The algorithms of the reconstruction layer on a small dense system (tests/pet/toy_system.hpp).
#include <gtest/gtest.h>

#include <cmath>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/pet/reconstruct.hpp"
#include "tests/pet/toy_system.hpp"

namespace tomo::pet::test {

namespace {
std::unique_ptr<PriorOperator> cpu_prior(int nx, int ny, const RdpParams& p) {
  auto op = BackendRegistry<PriorOperator>::instance().create("cpu");
  op->configure(PriorGrid{{nx, ny, 1}, {1, 1, 1}}, p, {});
  return op;
}
}  // namespace

// OSEM visits the subsets in the asked order, each an EM step over its LORs alone.
TEST(Reconstruct, OsemIsTheSubsetEmStepsInOrder) {
  ToySystem a(6, 6, 120, 4), b(6, 6, 120, 4);
  ReconOptions o{.algorithm = Algorithm::osem, .iterations = 2, .subsets = 4, .subset_order = SubsetOrder::bit_reversed};
  std::vector<int> visited;
  EXPECT_EQ(reconstruct(a, o, nullptr, {.after_subset = [&](const Step& s) { visited.push_back(s.subset); }}), 2);
  EXPECT_EQ(visited, (std::vector<int>{0, 2, 1, 3, 0, 2, 1, 3}));
  for (int it = 0; it < 2; ++it)
    for (int k : {0, 2, 1, 3}) b.em_step(k);
  EXPECT_EQ(a.image(), b.image());
}

// With β = 0 and λ = 1, BSREM and one-step-late EM over one subset are ML-EM.
TEST(Reconstruct, MapWithoutPriorIsMlem) {
  ToySystem ref(6, 6, 120, 1);
  for (int t = 0; t < 5; ++t) ref.em_step(0);
  for (Algorithm alg : {Algorithm::map_rdp, Algorithm::osl_rdp}) {
    ToySystem a(6, 6, 120, 1);
    auto prior = cpu_prior(6, 6, {});
    ReconOptions o{.algorithm = alg, .iterations = 5, .relaxation = 1.0, .relaxation_decay = 0.0};
    reconstruct(a, o, prior.get());
    EXPECT_LT(relative_l2(a.image(), ref.image()), 1e-12) << enum_name(kAlgorithmNames, alg);
  }
}

// BSREM with subsets and the decaying relaxation reaches the MAP point: there the gradient of
// L − βR vanishes at every voxel above the floor ([Ahn2003] Theorem 1's limit).
TEST(Reconstruct, BsremConvergesToTheMapPoint) {
  const RdpParams p{.beta = 0.5, .gamma = 2.0, .epsilon = 1e-3};
  ToySystem a(6, 6, 200, 4);
  auto prior = cpu_prior(6, 6, p);
  ReconOptions o{.algorithm = Algorithm::map_rdp, .iterations = 400, .subsets = 4, .prior = p, .relaxation_decay = 0.1};
  reconstruct(a, o, prior.get());
  const std::vector<double> x = a.image();
  ToySystem full(6, 6, 200, 1);
  full.set_image(x);
  const std::vector<double> b = full.back_ratio(0), s = full.sensitivity(0), g = prior->gradient(x);
  double worst = 0, scale = 0;
  const double beta = prior_weight(p.beta, s);
  for (std::size_t j = 0; j < x.size(); ++j) {
    const double grad = b[j] - s[j] - beta * g[j];
    scale = std::max(scale, s[j]);
    if (x[j] > 1e-3) worst = std::max(worst, std::abs(grad));
  }
  EXPECT_LT(worst / scale, 5e-3);  // measured 3.6e-3 after 400 iterations
  // The prior smooths: MAP's image varies less between neighbours than ML-EM's.
  ToySystem m(6, 6, 200, 1);
  for (int t = 0; t < 400; ++t) m.em_step(0);
  EXPECT_LT(prior->value(x), 0.8 * prior->value(m.image()));
}

// β is relative to the mean sensitivity inside the field of view.
TEST(Reconstruct, PriorWeightFollowsTheSensitivity) {
  const std::vector<double> s{0.0, 2.0, 4.0, 0.0};
  EXPECT_DOUBLE_EQ(prior_weight(0.5, s), 1.5);
  EXPECT_DOUBLE_EQ(prior_weight(0.5, std::vector<double>(3, 0.0)), 0.0);
}

// The relaxation sequence: λ_1 = λ_0, decaying as 1/n.
TEST(Reconstruct, RelaxationSequence) {
  ReconOptions o{.relaxation = 1.0, .relaxation_decay = 0.1};
  EXPECT_DOUBLE_EQ(relaxation(o, 1), 1.0);
  EXPECT_DOUBLE_EQ(relaxation(o, 11), 0.5);
  EXPECT_DOUBLE_EQ(relaxation(o, 101), 1.0 / 11.0);
}

TEST(Reconstruct, SubsetCountMustMatchTheData) {
  ToySystem a(4, 4, 40, 2);
  ReconOptions o{.algorithm = Algorithm::osem, .iterations = 1, .subsets = 4};
  EXPECT_THROW(reconstruct(a, o, nullptr), Error);
}

// BSREM's step asks the prior for gradient and curvature in one pass (one upload of x and one
// stencil walk on a GPU), once per subset; with the plain EM preconditioner for the gradient alone.
TEST(Reconstruct, BsremTakesGradientAndHessianFromOnePass) {
  struct Counting final : PriorOperator {
    std::unique_ptr<PriorOperator> inner;
    int gradients = 0, hessians = 0, both = 0;
    std::string describe() const override { return inner->describe(); }
    void synchronize() override {}
    void configure(const PriorGrid& g, const RdpParams& p, std::span<const double> k) override { inner->configure(g, p, k); }
    double value(std::span<const double> x) override { return inner->value(x); }
    std::vector<double> gradient(std::span<const double> x) override { return ++gradients, inner->gradient(x); }
    std::vector<double> hessian_diagonal(std::span<const double> x) override {
      return ++hessians, inner->hessian_diagonal(x);
    }
    PriorDerivatives gradient_and_hessian(std::span<const double> x) override {
      return ++both, inner->gradient_and_hessian(x);
    }
  };
  const RdpParams p{.beta = 0.5, .gamma = 2.0, .epsilon = 1e-3};
  for (Preconditioner pre : {Preconditioner::em_prior, Preconditioner::em}) {
    ToySystem a(6, 6, 200, 4), b(6, 6, 200, 4);
    Counting counting;
    counting.inner = cpu_prior(6, 6, p);
    auto plain = cpu_prior(6, 6, p);
    ReconOptions o{.algorithm = Algorithm::map_rdp, .iterations = 3, .subsets = 4, .prior = p, .preconditioner = pre};
    reconstruct(a, o, &counting);
    reconstruct(b, o, plain.get());
    const bool em_prior = pre == Preconditioner::em_prior;
    EXPECT_EQ(counting.both, em_prior ? 12 : 0);
    EXPECT_EQ(counting.gradients, em_prior ? 0 : 12);
    EXPECT_EQ(counting.hessians, 0);
    EXPECT_EQ(a.image(), b.image());
  }
}

}  // namespace tomo::pet::test
