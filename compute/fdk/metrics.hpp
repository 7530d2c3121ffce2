// The RabbitCT metric (HU conversion, MSE, RMSE, max |error|, PSNR, |error| histogram) and the
// error of a reconstruction against an analytic phantom inside the field of view.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "compute/core/metrics.hpp"  // relative_l2, for fdk and its tests
#include "compute/core/phantom.hpp"
#include "compute/core/volume.hpp"
#include "compute/fdk/matrix.hpp"

namespace tomo::fdk {

// Code that says `using namespace tomo::fdk` (benches, tests) finds the shared measure here.
using tomo::relative_l2;

// HU exactly as RabbitCT's runner computes them, in float: f > 0 ? floorf(HUScale[0]·f + HUScale[1]
// + 0.5f) : 0, then clamped to 4095 from above only (a negative HUScale[1] gives negative HU).
float to_hu(float f, const std::array<float, 2>& hu_scale);
std::vector<float> to_hu(const VolumeF& v, const std::array<float, 2>& hu_scale);

inline constexpr int kRabbitHistogramBins = 11;
struct RabbitMetric {
  double mse = 0;       // HU² (Σ (float e)² in double / voxels, as the runner sums)
  double rmse = 0;      // HU
  double max_abs = 0;   // HU
  double psnr_db = 0;   // 10·log10(4095²/MSE); +inf when MSE = 0 (the runner prints "Inf" below 1e-8)
  // The runner's histogram of |e|: bin floor(|e|), the last bin (10) holds every |e| >= 10 HU.
  std::array<std::uint32_t, kRabbitHistogramBins> histogram{};
};
// The runner's metric of HU values `test` against `reference` (uint16 as RabbitCT stores it, or
// another HU volume). Throws tomo::Error when the sizes differ.
RabbitMetric rabbit_metric(const std::vector<float>& test, const std::vector<std::uint16_t>& reference);
RabbitMetric rabbit_metric(const std::vector<float>& test, const std::vector<float>& reference);

// Voxels whose centre projects inside [0, sx−1]×[0, sy−1] in every projection (1 = inside).
std::vector<std::uint8_t> fov_mask(const Grid3& grid, const std::vector<Mat34>& matrices, int sx, int sy);

struct PhantomError {
  double rmse = 0;          // mm⁻¹, over FOV voxels
  double nrmse = 0;         // rmse / max |phantom|
  std::size_t voxels = 0;   // FOV voxels counted
};
// Reconstruction vs the phantom sampled at voxel centres (supersampling 1) inside `mask`.
PhantomError phantom_error(const VolumeF& recon, const VolumeF& truth, const std::vector<std::uint8_t>& mask);

}  // namespace tomo::fdk
