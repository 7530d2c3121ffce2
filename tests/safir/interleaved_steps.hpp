// Iterations, forward and back-projections and window changes interleaved on one operator give
// what the cpu gives for the same sequence: what a pass leaves behind for the next (the update
// clearing the accumulator and ȳ, the window cache) is never seen. Used by
// interleaved_steps_test.cpp (gl-compute) and interleaved_steps_gpu_test.cpp (cuda).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/safir/projector.hpp"
#include "compute/safir/simulator.hpp"

namespace tomo::safir::test {

inline void check_interleaved_steps(const std::string& backend, Pass pass) {
  Scanner scanner;
  scanner.rings = 8;
  ImageBox box;
  box.n = {32, 32, 12};
  Phantom ph;
  ph.spheres = Phantom::derenzo(10.0);
  SimulationOptions so;
  so.events = 8000;
  so.seed = 9;
  const ListMode lm = simulate(scanner, ph, so);
  std::vector<double> s(box.count()), f(box.count(), 1.0);
  for (std::size_t j = 0; j < s.size(); ++j) s[j] = 1.5 + 0.5 * std::cos(0.01 * double(j));
  auto make = [&](const std::string& name, Pass p) {
    ProjectorOptions o;
    o.pass = p;
    auto op = BackendRegistry<ListModeOperator>::instance().create(name);
    op->configure(scanner, box, o);
    op->set_sensitivity(s);
    op->set_randoms_per_lor(1e-3);
    op->set_events(lm.events);
    op->set_image(f);
    return op;
  };
  auto cpu = make("cpu", Pass::automatic);
  auto op = make(backend, pass);
  const std::size_t n = lm.events.size();
  // i: iterate, b: back-projection, f: forward projection, w/W/A: a window of a quarter (two
  // neighbouring ones, one event shorter) and the whole list again.
  const std::string steps = "ibiifwiWiiwbiAfi";
  std::size_t count = n;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const char c = steps[k];
    if (c == 'i') {
      op->iterate();
      cpu->iterate();
    } else if (c == 'w' || c == 'W' || c == 'A') {
      const std::size_t first = c == 'A' ? 0 : (c == 'w' ? n / 4 : n / 2), len = c == 'A' ? n : (c == 'w' ? n / 4 : n / 4 - 1);
      op->set_window(first, len);
      cpu->set_window(first, len);
      count = len;
    } else if (c == 'b') {
      std::vector<double> v(count);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.5 + double(i % 3);
      EXPECT_LT(relative_l2(op->back(v), cpu->back(v)), 1e-5) << backend << " step " << k;
    } else {
      EXPECT_LT(relative_l2(op->forward(), cpu->forward()), 1e-5) << backend << " step " << k;
    }
    EXPECT_LT(relative_l2(op->image(), cpu->image()), 1e-4) << backend << " step " << k << " (" << c << ")";
  }
}

}  // namespace tomo::safir::test
