// musr's host-memory estimate (see memory.hpp).
#include "compute/musr/memory.hpp"

#include "compute/core/log.hpp"

namespace tomo::musr {

MemoryEstimate estimate_memory(const MusrConfig& c) {
  MemoryEstimate e;
  if (!c.simulate()) return e;
  const double bins = static_cast<double>(c.eq5.detectors) * static_cast<double>(c.eq5.bins);
  e.key("musr.detectors/bins", str_cat(c.eq5.detectors, "/", c.eq5.bins));
  e.add(2, 4.0 * bins, "histogram sets of int32 counts", "musr.bins");
  e.add(5, 8.0 * bins, "arrays of double bins (t, y, σ, the backend's y and 1/σ²)", "musr.bins");
  return e;
}

}  // namespace tomo::musr
