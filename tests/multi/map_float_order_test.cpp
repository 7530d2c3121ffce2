// How a float-sized difference in the back-projected ratios grows through the iterations on cpu
// (double precision, deterministic): the same run once with B_k exact and once with B_k rounded to
// float at every subset — the size of the difference between float sums taken in another order,
// as on several GPUs or in a GPU's atomics. ML-EM and OSEM carry it along unchanged, and so does
// MAP-RDP by BSREM with its default preconditioner (the prior's curvature in D). With the EM
// preconditioner alone at λ = 1 BSREM amplifies it by orders of magnitude: several GPUs could
// not hold such a MAP to ML-EM's agreement with one.
#include <gtest/gtest.h>

#include <cstdio>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/pet/prior.hpp"
#include "compute/safir/sensitivity.hpp"
#include "compute/safir/simulator.hpp"
#include "compute/safir/subsets.hpp"

namespace tomo::safir {
namespace {

// B_k (and the fused step's image) rounded to float on the way out: a perturbation of at most
// 2⁻²⁴ relative per voxel, the rounding of one float sum.
class RoundedToFloat final : public pet::SubsetPrimitives {
 public:
  explicit RoundedToFloat(pet::SubsetPrimitives& p) : p_(p) {}
  int subset_count() const override { return p_.subset_count(); }
  std::size_t voxel_count() const override { return p_.voxel_count(); }
  void set_image(std::span<const double> x) override { p_.set_image(x); }
  std::vector<double> image() override { return p_.image(); }
  std::vector<double> sensitivity(int k) override { return p_.sensitivity(k); }
  void em_step(int k) override {
    p_.em_step(k);
    p_.set_image(rounded(p_.image()));
  }
  std::vector<double> back_ratio(int k) override { return rounded(p_.back_ratio(k)); }

 private:
  static std::vector<double> rounded(std::vector<double> v) {
    for (double& x : v) x = double(float(x));
    return v;
  }
  pet::SubsetPrimitives& p_;
};

struct Case {
  Scanner scanner;
  ImageBox box;
  ListMode lm;
  std::vector<double> s;
  Case() {
    scanner.rings = 16;
    box.n = {32, 32, 12};
    Phantom phantom;
    phantom.mu_per_mm = 0;
    phantom.cylinder_radius_mm = 9.0;
    phantom.background = 1.0;
    phantom.spheres = {{{3.5, -2.1, 0.0}, 2.8, 3.0}};
    SimulationOptions o;
    o.events = 40000;  // about 3 per voxel, as sparse as the GPU test's scene
    o.seed = 3;
    lm = simulate(scanner, phantom, o);
    auto cpu = BackendRegistry<ListModeOperator>::instance().create("cpu");
    cpu->configure(scanner, box, {});
    s = compute_sensitivity(*cpu, scanner, box);
  }
};

const Case& the_case() {
  static const Case c;
  return c;
}

// The image after every iteration.
std::vector<std::vector<double>> run(const pet::ReconOptions& o, bool round) {
  const Case& c = the_case();
  auto op = BackendRegistry<ListModeOperator>::instance().create("cpu");
  op->configure(c.scanner, c.box, {});
  const std::vector<Frame> frames{{0, c.lm.events.size(), 0, 1}};
  op->set_events(order_for_subsets(c.lm.events, frames, o.subsets));
  FrameSubsets data(*op, c.s, 0, c.lm.events.size(), o.subsets);
  RoundedToFloat rounded(data);
  pet::SubsetPrimitives& p = round ? static_cast<pet::SubsetPrimitives&>(rounded) : data;
  // A flat start at the data's scale (events / Σ s), so that every step size starts where the
  // likelihood's ratios are near 1.
  p.set_image(flat_start_image(c.s, std::vector<double>(c.lm.events.size(), 0.0)));
  std::unique_ptr<pet::PriorOperator> prior;
  if (pet::uses_prior(o.algorithm))
    prior = pet::make_prior("cpu", {c.box.grid().dims, c.box.grid().voxel_mm}, o.prior, c.s);
  std::vector<std::vector<double>> after;
  pet::reconstruct(p, o, prior.get(), {.after_subset = {}, .after_iteration = [&](int) {
                                         after.push_back(p.image());
                                         return true;
                                       }});
  return after;
}

// Relative L2 between the exact and the rounded run, per iteration.
std::vector<double> growth(const char* name, const pet::ReconOptions& o) {
  const auto exact = run(o, false), rounded = run(o, true);
  std::vector<double> d;
  std::printf("%-22s", name);
  for (std::size_t i = 0; i < exact.size(); ++i) {
    d.push_back(relative_l2(rounded[i], exact[i]));
    std::printf(" %9.2e", d.back());
  }
  std::printf("\n");
  return d;
}

pet::ReconOptions options(pet::Algorithm a, int subsets, double relaxation = 1.0,
                          pet::Preconditioner d = pet::Preconditioner::em_prior) {
  pet::ReconOptions o;
  o.preconditioner = d;
  o.algorithm = a;
  o.iterations = 10;
  o.subsets = subsets;
  o.prior.beta = 0.5;
  o.relaxation = relaxation;
  return o;
}

TEST(MapFloatOrder, BsremCarriesAFloatRoundingAlongAsEmDoes) {
  std::printf("rel. L2, B_k rounded to float vs exact, iterations 1..10\n");
  const auto mlem = growth("ML-EM", options(pet::Algorithm::mlem, 1));
  const auto osem = growth("OSEM 2 subsets", options(pet::Algorithm::osem, 2));
  const auto map = growth("MAP-RDP (defaults)", options(pet::Algorithm::map_rdp, 2));
  const auto map_em = growth("MAP-RDP, D = x/s", options(pet::Algorithm::map_rdp, 2, 1.0, pet::Preconditioner::em));
  const auto map_em_small =
      growth("MAP-RDP, D = x/s, l 0.1", options(pet::Algorithm::map_rdp, 2, 0.1, pet::Preconditioner::em));
  // EM carries one rounding along: of its size after ten iterations.
  EXPECT_LT(mlem.back(), 3e-7);
  EXPECT_LT(osem.back(), 3e-7);
  // So does BSREM with the prior's curvature in its preconditioner (measured 1.9e-8 at 10).
  EXPECT_LT(map.back(), 3e-7);
  // The EM preconditioner alone at λ = 1 multiplies it by several per iteration (measured: 1e-7 →
  // 2e-4 by iteration 5, 6e-2 by 10); only a much smaller step keeps it small.
  EXPECT_GT(map_em[4], 100 * map_em[0]);
  EXPECT_GT(map_em[4], 1e-5);
  EXPECT_LT(map_em_small.back(), 1e-6);
}

}  // namespace
}  // namespace tomo::safir
