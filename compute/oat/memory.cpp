// oat's host-memory estimate (see memory.hpp).
#include "compute/oat/memory.hpp"

#include "compute/core/log.hpp"

namespace tomo::oat {

MemoryEstimate estimate_memory(const OatConfig& c) {
  MemoryEstimate e;
  const Grid3& g = c.geometry.grid;
  e.key("oat.grid", str_cat(g.dims[0], "x", g.dims[1], "x", g.dims[2]));
  e.add(8 + 16, 8.0 * double(g.count()), "double volumes", "oat.grid");
  if (c.source == DataSource::simulate) {
    const double data = double(c.geometry.transducers.size()) * (c.geometry.time.samples + 2);
    e.key("oat.rings/views/samples", str_cat(c.geometry.rings, "/", c.geometry.views, "/", c.geometry.time.samples));
    // FISTA (TV or the bound) carries H of three iterates beside CG's two data vectors.
    const bool fista = c.pls.regulariser == Regulariser::tv || c.pls.nonnegative;
    e.add(fista ? 8 : 6, 8.0 * data, "double data vectors", "oat.rings/views/samples");
  }
  return e;
}

}  // namespace tomo::oat
