// The small analytic Shepp–Logan projection stack the backend tests share: RabbitCT
// distances and arc, 62 views of 156×120 at 2.56 mm, pre-processed (built once), and its
// back-projection by a named backend.
#pragma once
#include <string>

#include "compute/core/registry.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/simulate.hpp"

namespace tomo::fdk::test {

inline const ProjectionStack& small_stack() {
  static const ProjectionStack p = [] {
    CArmGeometry g;
    g.projections = 62;
    g.sx = 156;
    g.sy = 120;
    g.pixel_mm = 2.56;
    return simulate_preprocessed(shepp_logan_3d(), g, {});
  }();
  return p;
}

// The stack back-projected onto `grid` by `backend` in batches of 16 (per_launch 0: the
// backend's default launch size).
inline VolumeF backproject_small_stack(const std::string& backend, const Grid3& grid, Interpolation interpolation,
                                       int per_launch = 0) {
  auto op = BackendRegistry<ConeBeamBackprojector>::instance().create(backend);
  BackprojectorOptions o;
  o.interpolation = interpolation;
  o.projections_per_launch = per_launch;
  op->configure(o);
  return reconstruct(*op, grid, small_stack(), 16);
}

}  // namespace tomo::fdk::test
