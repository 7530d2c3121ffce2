// fdk's host-memory estimate . The GPU side splits the volume into z-slabs
// (fdk.device_memory_mb); the host holds the whole stack and volume.
#include "compute/fdk/memory.hpp"

#include <algorithm>

#include "compute/core/log.hpp"

namespace tomo::fdk {

MemoryEstimate estimate_memory(int L, const CArmGeometry& g, bool simulated, int volumes, const std::string& l_key,
                               const std::string& geometry_prefix) {
  MemoryEstimate e;
  e.key(l_key, str_cat(L));
  const double voxels = double(L) * L * L;
  e.add(volumes, 4 * voxels, "float volumes", l_key);
  if (simulated) {
    e.key(geometry_prefix + "projections", str_cat(g.projections));
    e.key(geometry_prefix + "detector_columns/rows", str_cat(g.sx, "/", g.sy));
    e.add(1, 4.0 * g.projections * g.sx * g.sy, str_cat("projection stack (", g.sx, "x", g.sy, " floats each)"),
          geometry_prefix + "projections");
  }
  return e;
}

void add_raw_stack(MemoryEstimate& e, const std::filesystem::path& stack, const std::string& key) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(stack, ec);
  if (ec) return;  // the reader says what is wrong with the file
  e.key(key, stack.string());
  e.add(3, static_cast<double>(bytes), "raw projection stack (file payload + floats)", key);
}

void add_iterative(MemoryEstimate& e, const Grid3& grid, const CArmGeometry& g, const IterativeOptions& o) {
  const double voxels = static_cast<double>(grid.count());
  const double pixels = static_cast<double>(g.projections) * g.sx * g.sy;
  const std::string key = "fdk.algorithm";
  e.key(key, to_string(o.algorithm));
  double volumes = 5;
  if (o.algorithm == Algorithm::tv) volumes += 5;
  if (o.algorithm == Algorithm::os_sart) volumes += std::min(o.subsets, g.projections);
  e.add(volumes, 4 * voxels, "iterative float volumes", o.algorithm == Algorithm::os_sart ? "fdk.subsets" : key);
  e.add(3, 4 * pixels, "iterative float projection stacks", "fdk.geometry.projections");
  e.add(1, 8 * (voxels + pixels), "projector's double copies", key);
  e.add(1, std::min(512.0 * (1 << 20), 8 * voxels * 2), "projector's per-thread back-projection volumes", key);
}

}  // namespace tomo::fdk
