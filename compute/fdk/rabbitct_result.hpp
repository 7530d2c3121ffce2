// The outputs of RabbitCT's runner, so a run can be set beside the public ranking: the HU volume
// (`<result>.vol`, L³ float32) and the result file (`<result>`, ".rctd": magic, L, N, per-projection
// times, the HU slice k = L/2 − 1, MSE, max |e|, the 11-bin histogram, end magic). Layouts in docs/fdk.md.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "compute/fdk/metrics.hpp"

namespace tomo::fdk {

struct RabbitResult {
  int version = 2;                       // 2: the RabbitCT 2.x runner's layout; 1: the 1.x one
  int L = 0;
  std::vector<std::uint64_t> runtime_us;  // one per projection (µs)
  std::vector<float> hu;                  // L³ HU values (to_hu), index k·L² + j·L + i
  RabbitMetric metric;
};

inline constexpr std::int32_t kRctdMagicV1 = 591984, kRctdEndV1 = 489195;
inline constexpr std::int32_t kRctdMagicV2 = 531982, kRctdEndV2 = 289135;

// Writes the .rctd result file and the HU volume (the runner names it result + ".vol"), atomically.
void write_rabbitct_result(const std::filesystem::path& result, const std::filesystem::path& volume,
                           const RabbitResult& r);

// Per-projection times from a total: the total spread evenly in whole µs, the remainder on the
// first projections (their sum is the total, as the runner's own check expects).
std::vector<std::uint64_t> even_runtimes_us(double total_ms, int projections);

}  // namespace tomo::fdk
