// glpet's host-memory estimate : counted from the keys read_glpet_scene reads.
#include "compute/glpet/memory.hpp"

#include <omp.h>

#include <algorithm>
#include <array>

#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"
#include "compute/glpet/config.hpp"

namespace tomo::glpet {

MemoryEstimate estimate_memory(const Scene& s, bool crosscheck, int threads) {
  if (threads <= 0) threads = omp_get_max_threads();
  const Scanner sc = read_scanner(s);
  // read_glpet_scene reads and validates these keys again (same default) before it voxelises.
  const auto dims = s.get<std::array<int, 3>>("glpet.voxels", {128, 128, 128});
  const double voxels = double(dims[0]) * dims[1] * dims[2], lors = double(sc.lor_count());
  const bool ring = s.has("glpet.ring");  // one detectors key for all the ring's modules
  const std::string kv = "glpet.voxels", kd = ring ? "glpet.ring.detectors" : "glpet.modules[].detectors";
  MemoryEstimate e;
  e.key(kv, str_cat("[", dims[0], ", ", dims[1], ", ", dims[2], "]"));
  std::string det;
  for (const ModulePair& p : sc.pairs) det += str_cat(det.empty() ? "" : ", ", p.n_a(), "x", p.n_t());
  if (ring && !sc.pairs.empty()) det = str_cat(sc.pairs[0].n_a(), "x", sc.pairs[0].n_t(), " in ", sc.pairs.size(), " pairs");
  e.key(kd, det);
  if (!crosscheck) {
    e.add(5, 4 * voxels, "float volumes", kv);          // activity, σ_t, truth, image, sensitivity
    e.add(3, 8 * voxels, "double ML-EM volumes", kv);   // x, b, sensitivity (cpu backend)
    e.add(threads, 4 * lors, "uint32 LOR histograms (one per thread)", kd);
    e.add(1, 8 * lors, "double LOR histogram", kd);
    e.add(3, 4 * lors, "float LOR vectors", kd);        // counts, estimate, ratio
  } else {
    // The full grid is voxelised (activity, σ_t) before the cross-check resamples it.
    e.add(2, 4 * voxels, "float volumes", kv);
    e.add(5, 4 * lors, "float LOR vectors", kd);        // y, ỹ, forward of cpu and of the other backend
  }
  return e;
}

}  // namespace tomo::glpet
