// The safir::ListModeOperator contract every backend passes (included by
// operator_contract_test.cpp for cpu/gl-compute and operator_contract_gpu_test.cpp for cuda):
// label counts equal, forward and back-projection within 1e-5 relative L2 of the cpu's double
// reference (float32 sums), the adjoint identity ⟨Af, v⟩ = ⟨f, Aᵀv⟩ within 1e-5, ML-EM
// iterations within 1e-4, sphere sums within 1e-5, and a window (frame / halving) equal to the
// same events set on their own; the sensitivity's pair lists of the configured scanner equal the
// same pairs set as events, and refused before configure(). Simulated events only (an
// independent Monte-Carlo).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "compute/core/metrics.hpp"
#include "compute/safir/simulator.hpp"
#include "compute/safir/projector.hpp"
#include "tests/safir/pair_list.hpp"
#include "tests/support/input_errors.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::safir::test {

// The one place where backend options are set: the variants a backend is checked in.
inline std::vector<std::pair<std::string, ProjectorOptions>> variants_of(const std::string& backend) {
  ProjectorOptions portable;
  portable.portable = true;
  ProjectorOptions one_thread;
  one_thread.threads = 1;
  if (backend == "gl-compute") {
    ProjectorOptions tiled, tiled_portable, fused, fused_portable;
    tiled.pass = tiled_portable.pass = Pass::tiled;
    fused.pass = fused_portable.pass = Pass::fused;
    tiled_portable.portable = fused_portable.portable = true;
    return {{"tiled, float atomics", tiled}, {"tiled, portable", tiled_portable}, {"fused, float atomics", fused}, {"fused, portable", fused_portable}};
  }
  if (backend == "cpu") return {{"1 thread", one_thread}};
  if (backend == "cuda") {
    // The tiled pass (default), with deeper tiles, with tiles so small that planes are cut (a
    // 1/32 share of an SM's shared memory: under 1600 floats, the 40 × 40 z planes here), and the fused pass.
    ProjectorOptions deep, cut, fused;
    deep.tile_blocks_per_sm = 1;
    cut.tile_blocks_per_sm = 32;
    fused.pass = Pass::fused;
    return {{"tiled", {}}, {"tiled, 1 block/SM", deep}, {"tiled, planes cut", cut}, {"fused", fused}};
  }
  return {{"default", {}}};
}

struct ContractData {
  Scanner scanner;
  ImageBox box;
  ListMode lm;
  std::vector<double> image, sensitivity;
};

// The seed's ring with 12 rings, a 40 × 40 × 20 box of 0.7 mm, Derenzo events; a smooth
// positive image and sensitivity.
inline ContractData make_setup(std::uint64_t events) {
  ContractData s;
  s.scanner.rings = 12;
  s.box.n = {40, 40, 20};
  Phantom ph;
  ph.spheres = Phantom::derenzo(12.0);
  SimulationOptions o;
  o.events = events;
  o.seed = 3;
  o.randoms_fraction = 0.1;
  s.lm = simulate(s.scanner, ph, o);
  const Grid3 g = s.box.grid();
  s.image.resize(g.count());
  s.sensitivity.resize(g.count());
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) {
        s.image[g.index(i, j, k)] = 1.0 + 0.5 * std::sin(0.3 * i + 0.2 * j + 0.1 * k);
        s.sensitivity[g.index(i, j, k)] = 2.0 + std::cos(0.1 * i - 0.2 * k);
      }
  return s;
}

class SafirOperatorContract : public tomo::test::BackendContract<ListModeOperator> {
 protected:
  std::unique_ptr<ListModeOperator> make(const ContractData& s, const ProjectorOptions& o) const {
    auto op = BackendRegistry<ListModeOperator>::instance().create(backend());
    op->configure(s.scanner, s.box, o);
    op->set_sensitivity(s.sensitivity);
    op->set_randoms_per_lor(1e-3);
    op->set_events(s.lm.events);
    op->set_image(s.image);
    return op;
  }
  std::unique_ptr<ListModeOperator> cpu(const ContractData& s) const {
    auto op = BackendRegistry<ListModeOperator>::instance().create("cpu");
    op->configure(s.scanner, s.box, {});
    op->set_sensitivity(s.sensitivity);
    op->set_randoms_per_lor(1e-3);
    op->set_events(s.lm.events);
    op->set_image(s.image);
    return op;
  }
};

TEST_P(SafirOperatorContract, ForwardBackAndAdjoint) {
  const ContractData s = make_setup(20000);
  auto ref = cpu(s);
  const auto y_ref = ref->forward();
  std::vector<double> v(s.lm.events.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.5 + (i % 7) * 0.25;
  const auto b_ref = ref->back(v);
  for (const auto& [name, o] : variants_of(backend())) {
    auto op = make(s, o);
    EXPECT_EQ(op->label_counts(), ref->label_counts()) << name;
    const auto y = op->forward();
    const auto b = op->back(v);
    const double ey = relative_l2(y, y_ref), eb = relative_l2(b, b_ref);
    // ⟨A f, v⟩ = ⟨f, Aᵀ v⟩ with the randoms term taken out of the forward projection.
    double lhs = 0;
    for (std::size_t i = 0; i < y.size(); ++i) lhs += (y[i] > 0 ? y[i] - 1e-3 : 0.0) * v[i];
    const double rhs = tomo::test::inner<double, double>(s.image, b);
    const double adj = tomo::test::adjoint_mismatch(lhs, rhs);
    std::printf("%s %s: forward %.3g, back %.3g vs cpu, adjoint %.3g\n", backend().c_str(), name.c_str(), ey, eb, adj);
    EXPECT_LT(ey, 1e-5) << name;
    EXPECT_LT(eb, 1e-5) << name;
    EXPECT_LT(adj, 1e-5) << name;
  }
}

TEST_P(SafirOperatorContract, MlemIterationsAndWindows) {
  const ContractData s = make_setup(30000);
  auto ref = cpu(s);
  ref->set_window(1000, 20000);
  for (int t = 0; t < 3; ++t) ref->iterate();
  const auto f_ref = ref->image();
  for (const auto& [name, o] : variants_of(backend())) {
    auto op = make(s, o);
    op->set_window(1000, 20000);
    for (int t = 0; t < 3; ++t) op->iterate();
    const double e = relative_l2(op->image(), f_ref);
    std::printf("%s %s: 3 ML-EM iterations over a window, %.3g vs cpu\n", backend().c_str(), name.c_str(), e);
    EXPECT_LT(e, 1e-4) << name;
  }
  // The window is the same as the events on their own.
  ContractData part = s;
  part.lm.events.assign(s.lm.events.begin() + 1000, s.lm.events.begin() + 21000);
  auto alone = make(part, variants_of(backend()).front().second);
  for (int t = 0; t < 3; ++t) alone->iterate();
  EXPECT_LT(relative_l2(alone->image(), f_ref), 1e-4);
}

TEST_P(SafirOperatorContract, SphereSums) {
  const ContractData s = make_setup(100);
  auto ref = cpu(s);
  const SphereSums r = ref->sphere_sums(1.0, 2.0);
  for (const auto& [name, o] : variants_of(backend())) {
    auto op = make(s, o);
    const SphereSums x = op->sphere_sums(1.0, 2.0);
    EXPECT_EQ(x.n_inner, r.n_inner) << name;
    EXPECT_EQ(x.n_shell, r.n_shell) << name;
    const double e = relative_l2(x.inner, r.inner) + relative_l2(x.shell, r.shell);
    std::printf("%s %s: sphere sums %.3g vs cpu\n", backend().c_str(), name.c_str(), e);
    EXPECT_LT(e, 1e-5) << name;
  }
}

TEST_P(SafirOperatorContract, PairEventsOfTheConfiguredScanner) {
  // Before configure() the operator knows no scanner: its crystal count and pair lists are refused
  // with a message that says so (an Error, not an InputError: the caller's mistake, not the data's).
  auto fresh = BackendRegistry<ListModeOperator>::instance().create(backend());
  const std::vector<std::uint32_t> one = {0};
  EXPECT_NE(tomo::test::message_of([&] { (void)fresh->crystal_count(); }).find("configure()"), std::string::npos);
  EXPECT_NE(tomo::test::message_of([&] { fresh->set_pair_events(one); }).find("configure()"), std::string::npos);
  // Configured: the scanner's count, and the pairs of `first` back-project as the same list made
  // here and set as events on the cpu; an id beyond the scanner is an InputError.
  const PairCase c = pair_case();
  const Scanner& sc = c.scanner;
  const ImageBox& box = c.box;
  const std::vector<std::uint32_t>& firsts = c.first;
  const std::uint32_t n = sc.crystal_count();
  const std::vector<Event> pairs = pair_list(firsts, n);
  auto ref = BackendRegistry<ListModeOperator>::instance().create("cpu");
  ref->configure(sc, box, {});
  ref->set_events(pairs);
  const auto b_ref = ref->back({});
  for (const auto& [name, o] : variants_of(backend())) {
    auto op = BackendRegistry<ListModeOperator>::instance().create(backend());
    op->configure(sc, box, o);
    EXPECT_EQ(op->crystal_count(), n) << name;
    op->set_pair_events(firsts);
    EXPECT_EQ(op->label_counts(), ref->label_counts()) << name;
    const double e = relative_l2(op->back({}), b_ref);
    std::printf("%s %s: back-projection of %zu pairs %.3g vs cpu\n", backend().c_str(), name.c_str(), pairs.size(), e);
    EXPECT_LT(e, 1e-5) << name;
    const std::vector<std::uint32_t> bad = {3, n};
    EXPECT_THROW(op->set_pair_events(bad), InputError) << name;
  }
}

}  // namespace tomo::safir::test
