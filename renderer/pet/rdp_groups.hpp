// The work-group tiling of the prior's shader (shaders/pet/rdp.comp.glsl): a group of 32 × 4
// invocations writes 30 columns along x, 4 × 8 rows along y and 16 planes along z. Returns the
// invocation counts to pass to gl::Program::dispatch.
#pragma once
#include <array>

namespace tomo::pet {

inline std::array<int, 3> rdp_dispatch_size(const std::array<int, 3>& dims) {
  constexpr int kLx = 32, kLy = 4, kCols = kLx - 2, kSpan = kLy * 8, kChunk = 16;
  return {(dims[0] + kCols - 1) / kCols * kLx, (dims[1] + kSpan - 1) / kSpan * kLy, (dims[2] + kChunk - 1) / kChunk};
}

}  // namespace tomo::pet
