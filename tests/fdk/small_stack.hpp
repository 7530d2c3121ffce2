// The small analytic Shepp–Logan projection stack the backend tests share: RabbitCT
// distances and arc, 62 views of 156×120 at 2.56 mm, pre-processed (built once).
#pragma once
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

}  // namespace tomo::fdk::test
