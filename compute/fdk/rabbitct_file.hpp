// The RabbitCT data file, as the runner reads it: version 1 header (uint32 S_x, S_y, N; float
// HUScale[2]) or version 2 (a leading uint32 rct_version = 2, 24 bytes), per projection a
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
  int version = 1;  // file layout: 1 (20-byte header) or 2 (24-byte header with rct_version)
};

struct RabbitHeader {
  int version = 1;
  std::uint32_t sx = 0, sy = 0, count = 0;
  std::array<float, 2> hu_scale{1.0f, 0.0f};
  std::size_t bytes() const { return version == 2 ? 24 : 20; }
};
inline constexpr std::size_t kRabbitHeaderBytes = 3 * 4 + 2 * 4;  // version 1
inline constexpr std::uint32_t kRabbitVersion2 = 2;

// A first word of 2 is version 2 (the runner's rct_version; its 1240/1248 in that word are v1's
// S_x); should a file read both ways, the one whose sizes add up to the file size wins, v2 first.
// Trailing reference volumes are accepted as one cube of any side L, or the RabbitCT
// sequence 128³, 256³, 512³, 1024³ (any leading part of it).
RabbitHeader read_rabbitct_header(const std::filesystem::path& path);
RabbitData read_rabbitct(const std::filesystem::path& path, bool with_references = true);
// Atomic write (temp file + rename) in data.version's layout.
void write_rabbitct(const std::filesystem::path& path, const RabbitData& data);

// A reference volume in its own file (the runner's Reference{L}.vol): exactly L³ uint16, index
// k·L² + j·L + i; any other size is an InputError naming the file and both sizes.
ReferenceVolume read_reference_volume(const std::filesystem::path& path, int L);

}  // namespace tomo::fdk
