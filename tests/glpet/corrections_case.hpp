// Monte-Carlo data of a uniform cylinder on a small glpet ring for the forward model's terms
// (docs/pet.md), shared by the cpu/GL test and the cuda one.
#pragma once
#include <cmath>
#include <memory>
#include <vector>

#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/glpet/mc_effects.hpp"
#include "compute/glpet/mlem.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "tests/glpet/small_system.hpp"

namespace tomo::glpet::test {

inline constexpr double kCyl = 12.0;

struct Case {
  SystemModel sys;  // no attenuation
  VolumeF activity;
  std::vector<double> truth;  // emitted pairs per voxel
  std::vector<float> clean;
  std::vector<std::uint8_t> centre, edge;
  Case() {
    sys = test::small_ring_system(12, 30.0, Grid3::centred({14, 14, 4}, {2.5, 2.5, 2.5}), {kCyl, kCyl, 20.0});
    for (float& v : sys.sigma_t.data) v = 0;
    Phantom act;
    Shape cyl;
    cyl.kind = Shape::Kind::Cylinder;
    cyl.semi_axes = {kCyl, kCyl, 20.0};
    cyl.value = 1.0;
    act.shapes = {cyl};
    activity = act.voxelize(sys.grid, 2);
    clean = counts(sys.sigma_t, 21);
    double total = 0;
    for (float a : activity.data) total += a;
    for (float a : activity.data) truth.push_back(a / total * kHistories);
    const Grid3& g = sys.grid;
    centre.assign(g.count(), 0);
    edge.assign(g.count(), 0);
    for (int k = 0; k < g.dims[2]; ++k)
      for (int j = 0; j < g.dims[1]; ++j)
        for (int i = 0; i < g.dims[0]; ++i) {
          const auto p = g.centre(i, j, k);
          const double r = std::hypot(p[0], p[1]);
          centre[g.index(i, j, k)] = r < 4.0;
          edge[g.index(i, j, k)] = r > kCyl - 5.5 && r < kCyl - 2.0;
        }
  }
  static constexpr std::int64_t kHistories = 3'000'000;
  std::vector<float> counts(const VolumeF& sigma_t, std::uint64_t seed) const {
    McOptions mc;
    mc.histories = kHistories;
    mc.seed = seed;
    return simulate(sys.scanner, sigma_t, VoxelSource(activity), mc).counts;
  }
};

inline const Case& the_case() {
  static const Case c;
  return c;
}

inline std::vector<double> recon(const std::string& backend, const SystemModel& sys, std::span<const float> y,
                          const pet::ForwardTerms* terms, int iterations = 6) {
  auto op = BackendRegistry<Projector>::instance().create(backend);
  op->configure(sys);
  MlemOptions opt;
  opt.iterations = iterations;
  opt.system = &sys;
  opt.terms = terms;
  const auto x = run_mlem(*op, y, {}, opt).x;
  return {x.begin(), x.end()};
}

inline double mean_in(const std::vector<double>& x, const std::vector<std::uint8_t>& m) {
  double s = 0;
  int n = 0;
  for (std::size_t v = 0; v < x.size(); ++v)
    if (m[v]) s += x[v], ++n;
  return s / n;
}

// A fixed efficiency pattern in [0.5, 1] over the LORs.
inline std::vector<double> efficiency_pattern(std::size_t lors) {
  std::vector<double> e;
  for (std::size_t l = 0; l < lors; ++l) e.push_back(0.5 + 0.5 * std::fmod(0.618034 * double(l * 7 % 101), 1.0));
  return e;
}

}  // namespace tomo::glpet::test
