// Aᵀ's z-slab sum (see scatter_slabs.hpp).
#include "renderer/fdk/scatter_slabs.hpp"

#include <algorithm>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "renderer/fdk/bindings.hpp"

namespace tomo::fdk {

int scatter_slab_depth(const Grid3& grid, long long max_block) {
  std::size_t bytes = 512ull << 20;
  if (max_block > 0) bytes = std::min<std::size_t>(bytes, static_cast<std::size_t>(max_block));
  const std::size_t slice = static_cast<std::size_t>(grid.dims[0]) * grid.dims[1] * sizeof(float);
  if (slice > bytes)
    throw UnavailableError(str_cat("fdk projector: one ", grid.dims[0], "x", grid.dims[1], " slice (", slice,
                                   " bytes) exceeds what one SSBO binding holds here (", bytes, " bytes)"));
  return static_cast<int>(std::clamp<std::size_t>(bytes / slice, 1, static_cast<std::size_t>(std::max(grid.dims[2], 1))));
}

void ScatterSlabs::allocate(const Grid3& grid, int depth) {
  grid_ = grid;
  depth_ = std::max(1, depth);
  slabs_.clear();
  const std::size_t slice = static_cast<std::size_t>(grid.dims[0]) * grid.dims[1] * sizeof(float);
  for (int k0 = 0; k0 < grid.dims[2]; k0 += depth_)
    slabs_.emplace_back(slice * static_cast<std::size_t>(std::min(depth_, grid.dims[2] - k0)));
}

int ScatterSlabs::depth(int s) const { return std::min(depth_, grid_.dims[2] - first(s)); }

void ScatterSlabs::clear() {
  for (gl::Buffer& b : slabs_) b.clear_zero();
}

void ScatterSlabs::bind(int s) const { slabs_[s].bind_base(GL_SHADER_STORAGE_BUFFER, binding::kRayVolume); }

void ScatterSlabs::download(std::span<float> volume) const {
  const std::size_t slice = static_cast<std::size_t>(grid_.dims[0]) * grid_.dims[1];
  for (int s = 0; s < count(); ++s)
    slabs_[s].download(volume.data() + static_cast<std::size_t>(first(s)) * slice, slabs_[s].bytes());
}

}  // namespace tomo::fdk
