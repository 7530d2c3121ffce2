// Windows visited again (OSEM's subsets, each iteration): a backend that keeps a made window
// (cuda: sorted events, order and tile plan on the device) must project it as when first made,
// after other windows came between, and as the cpu's double reference does.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compute/core/metrics.hpp"
#include "compute/safir/projector.hpp"
#include "compute/safir/simulator.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::safir::test {

struct RevisitData {
  Scanner scanner;
  ImageBox box;
  ListMode lm;
  std::vector<double> image, sensitivity;
};

// 12 rings, a 40 × 40 × 20 box, Derenzo events with randoms; a smooth positive image.
inline RevisitData revisit_setup(std::uint64_t events) {
  RevisitData s;
  s.scanner.rings = 12;
  s.box.n = {40, 40, 20};
  Phantom ph;
  ph.spheres = Phantom::derenzo(12.0);
  SimulationOptions o;
  o.events = events;
  o.seed = 5;
  o.randoms_fraction = 0.1;
  s.lm = simulate(s.scanner, ph, o);
  const std::size_t n = s.box.count();
  s.image.resize(n);
  s.sensitivity.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    s.image[j] = 1.0 + 0.5 * std::sin(0.01 * double(j));
    s.sensitivity[j] = 2.0 + std::cos(0.003 * double(j));
  }
  return s;
}

class SafirWindowRevisit : public tomo::test::BackendContract<ListModeOperator> {
 protected:
  std::unique_ptr<ListModeOperator> make(const std::string& name, const RevisitData& s, const ProjectorOptions& o) const {
    auto op = BackendRegistry<ListModeOperator>::instance().create(name);
    op->configure(s.scanner, s.box, o);
    op->set_sensitivity(s.sensitivity);
    op->set_randoms_per_lor(1e-3);
    op->set_events(s.lm.events);
    op->set_image(s.image);
    return op;
  }
  std::vector<std::pair<std::string, ProjectorOptions>> variants() const {
    ProjectorOptions tiled, fused;
    tiled.pass = Pass::tiled;
    fused.pass = Pass::fused;
    if (backend() == "cpu") return {{"default", {}}};
    return {{"tiled", tiled}, {"fused", fused}};
  }
};

TEST_P(SafirWindowRevisit, KeptWindowsProjectAsWhenMade) {
  const RevisitData s = revisit_setup(24000);
  const std::size_t q = s.lm.events.size() / 4;
  auto ref = make("cpu", s, {});
  ref->set_window(q, q);
  const auto y_ref = ref->forward();
  std::vector<double> v(q);
  for (std::size_t i = 0; i < q; ++i) v[i] = 0.5 + double(i % 5) * 0.3;
  const auto b_ref = ref->back(v);
  ref->iterate();
  const auto f_ref = ref->image();
  for (const auto& [name, o] : variants()) {
    auto op = make(backend(), s, o);
    for (int pass = 0; pass < 3; ++pass) {
      // Every subset window in turn, then the whole list, then window 1 again.
      for (std::size_t k = 0; k < 4; ++k) op->set_window(k * q, q);
      op->set_window(0, s.lm.events.size());
      op->set_window(q, q);
      EXPECT_EQ(op->label_counts(), ref->label_counts()) << name << " visit " << pass;
      op->set_image(s.image);
      EXPECT_LT(relative_l2(op->forward(), y_ref), 1e-5) << name << " visit " << pass;
      EXPECT_LT(relative_l2(op->back(v), b_ref), 1e-5) << name << " visit " << pass;
      op->iterate();
      EXPECT_LT(relative_l2(op->image(), f_ref), 1e-4) << name << " visit " << pass;
    }
  }
}

}  // namespace tomo::safir::test
