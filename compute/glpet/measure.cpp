// glpet measured data: scene reading plus the Monte-Carlo acquisition.
#include "compute/glpet/measure.hpp"

#include <chrono>

namespace tomo::glpet {

Measurement measure(const Scene& scene) {
  Measurement m;
  m.scene = read_glpet_scene(scene);
  const GlpetScene& g = m.scene;
  const auto t0 = std::chrono::steady_clock::now();
  m.mc = simulate(g.system.scanner, g.system.sigma_t, VoxelSource(g.activity_volume), g.mc);
  m.simulate_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

}  // namespace tomo::glpet
