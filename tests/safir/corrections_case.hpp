// Monte-Carlo data of a uniform cylinder for safir's correction terms (docs/pet.md), shared by
// the cpu/gl-compute test and the cuda one: attenuation (an attenuating cylinder), randoms and
// scatter put into the data by the simulator, reconstructed with and without the terms.
#pragma once
#include <cmath>
#include <memory>
#include <vector>

#include "compute/core/registry.hpp"
#include "compute/safir/corrections.hpp"
#include "compute/safir/sensitivity.hpp"
#include "compute/safir/simulator.hpp"
#include "compute/safir/subsets.hpp"

namespace tomo::safir::test {

inline constexpr double kCylinderMm = 9.0;

struct CorrectionCase {
  Scanner scanner;
  ImageBox box;
  Phantom phantom;
  ListMode lm;
  std::vector<std::uint8_t> centre, edge, outside;  // regions of the image
  CorrectionCase(double mu_per_mm, double randoms, double scatter, std::uint64_t seed) {
    scanner.rings = 8;
    scanner.crystals = 96;
    box.n = {32, 32, 8};
    phantom.mu_per_mm = mu_per_mm;
    phantom.cylinder_radius_mm = kCylinderMm;
    phantom.background = 1.0;
    SimulationOptions o;
    o.events = 150000;
    o.seed = seed;
    o.randoms_fraction = randoms;
    o.scatter_fraction = scatter;
    lm = simulate(scanner, phantom, o);
    const Grid3 g = box.grid();
    centre.assign(g.count(), 0);
    edge.assign(g.count(), 0);
    outside.assign(g.count(), 0);
    for (int k = 0; k < g.dims[2]; ++k)
      for (int j = 0; j < g.dims[1]; ++j)
        for (int i = 0; i < g.dims[0]; ++i) {
          const auto p = g.centre(i, j, k);
          const double r = std::hypot(p[0], p[1]);
          const std::size_t v = g.index(i, j, k);
          if (std::abs(p[2]) > 2.0) continue;
          centre[v] = r < 3.0;
          edge[v] = r > kCylinderMm - 4.0 && r < kCylinderMm - 1.5;
          outside[v] = r > kCylinderMm + 1.5 && r < kCylinderMm + 4.0;
        }
  }
  // The cylinder's μ-map in cm⁻¹ on a grid twice as fine as the image's, covering the scanner.
  pet::AttenuationMap mu_map() const {
    const double v = 0.5 * box.voxel_mm;
    const int nz = int(std::ceil(scanner.axial_extent() / v)) + 2;
    VolumeF m(Grid3::centred({2 * box.n[0], 2 * box.n[1], nz}, {v, v, v}), 0.0f);
    for (int k = 0; k < m.grid.dims[2]; ++k)
      for (int j = 0; j < m.grid.dims[1]; ++j)
        for (int i = 0; i < m.grid.dims[0]; ++i) {
          const auto p = m.grid.centre(i, j, k);
          if (std::hypot(p[0], p[1]) < kCylinderMm) m.data[m.grid.index(i, j, k)] = float(10.0 * phantom.mu_per_mm);
        }
    return pet::AttenuationMap(m, "test mu-map");
  }
};

inline double mean_in(const std::vector<double>& x, const std::vector<std::uint8_t>& m) {
  double s = 0;
  int n = 0;
  for (std::size_t v = 0; v < x.size(); ++v)
    if (m[v]) s += x[v], ++n;
  return s / n;
}

// ML-EM (or OSEM) on `backend` with the LOR factors `factor` (ε·exp(−∫μ); none: 1) and the
// per-event additive counts of a uniform `additive_fraction` plus the delayed-window randoms.
template <class Factor>
std::vector<double> reconstruct_with(const CorrectionCase& c, const std::string& backend, Factor&& factor,
                                     bool multiplicative, double additive_fraction, bool randoms, int iterations,
                                     int subsets = 1) {
  auto op = BackendRegistry<ListModeOperator>::instance().create(backend);
  op->configure(c.scanner, c.box, {});
  std::vector<double> s = multiplicative ? compute_weighted_sensitivity(*op, c.scanner, c.box, factor)
                                         : compute_sensitivity(*op, c.scanner, c.box);
  zero_outside<double>(s, outside_field_of_view(c.box.grid(), field_of_view(c.scanner)));
  const std::vector<Frame> frames{{0, c.lm.events.size(), 0, 1}};
  const auto ordered = order_for_subsets(c.lm.events, frames, subsets);
  pet::ForwardTerms terms;
  const double n = c.scanner.crystal_count(), lors = 0.5 * n * (n - 1);
  const double add = (additive_fraction * double(c.lm.events.size()) + (randoms ? double(c.lm.delayed) : 0.0)) / lors;
  if (multiplicative)
    for (const Event& e : ordered) terms.multiplicative.push_back(factor(e.a, e.b));
  if (add > 0 || multiplicative) terms.additive.assign(ordered.size(), add);
  op->set_events(ordered);
  op->set_randoms_per_lor(0.0);
  FrameSubsets data(*op, s, 0, ordered.size(), subsets, &terms);
  data.set_image(std::vector<double>(s.size(), 1.0));
  pet::ReconOptions o;
  o.algorithm = subsets > 1 ? pet::Algorithm::osem : pet::Algorithm::mlem;
  o.iterations = iterations;
  o.subsets = subsets;
  pet::reconstruct(data, o, nullptr);
  return data.image();
}

}  // namespace tomo::safir::test
