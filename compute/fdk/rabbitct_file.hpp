// The RabbitCT data file: header (uint32 S_x, S_y, N; float HUScale[2]), per projection a
// column-major 3×4 double matrix and S_x·S_y float32 pixels, optional trailing uint16 reference
// volumes. Read and written exactly; sizes that do not add up are an InputError naming the file.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "compute/fdk/matrix.hpp"

namespace tomo::fdk {

// Projections as the back-projector consumes them: already weighted and filtered.
struct ProjectionStack {
  int sx = 0, sy = 0;             // detector columns (u), rows (v)
  std::vector<Mat34> matrices;    // one per projection
  std::vector<float> pixels;      // projection n at n*sx*sy, pixel (i, j) at j*sx + i

  int count() const { return static_cast<int>(matrices.size()); }
  std::size_t image_size() const { return static_cast<std::size_t>(sx) * sy; }
  const float* image(int n) const { return pixels.data() + n * image_size(); }
  float* image(int n) { return pixels.data() + n * image_size(); }
};

// A RabbitCT reference volume: L³ uint16 HU values, index k*L*L + j*L + i.
struct ReferenceVolume {
  int L = 0;
  std::vector<std::uint16_t> hu;
};

struct RabbitData {
  ProjectionStack projections;
  std::array<float, 2> hu_scale{1.0f, 0.0f};  // HU = HUScale[0]·f + HUScale[1]
  std::vector<ReferenceVolume> references;
};

struct RabbitHeader {
  std::uint32_t sx = 0, sy = 0, count = 0;
  std::array<float, 2> hu_scale{1.0f, 0.0f};
};
inline constexpr std::size_t kRabbitHeaderBytes = 3 * 4 + 2 * 4;

// Trailing reference volumes are accepted as one cube of any side L, or the RabbitCT
// sequence 128³, 256³, 512³, 1024³ (any leading part of it).
RabbitHeader read_rabbitct_header(const std::filesystem::path& path);
RabbitData read_rabbitct(const std::filesystem::path& path, bool with_references = true);
// Atomic write (temp file + rename).
void write_rabbitct(const std::filesystem::path& path, const RabbitData& data);

}  // namespace tomo::fdk
