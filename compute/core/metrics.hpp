// Image and data comparison measures shared by every problem (relative L2, RMSE, scaled NRMSE,
// Pearson correlation); sums are accumulated in double whatever the element type.
#pragma once
#include <span>

namespace tomo {

// ‖a − ref‖ / ‖ref‖ (‖a − ref‖ when ‖ref‖ = 0): the cross-check and image-error measure.
// Throws tomo::Error naming both sizes when they differ.
double relative_l2(std::span<const float> a, std::span<const float> ref);
double relative_l2(std::span<const double> a, std::span<const double> ref);

// √(Σ (a − ref)² / n), in the images' own units (0 for empty ones); sizes checked as above.
double rmse(std::span<const double> a, std::span<const double> ref);

// ‖k·a − ref‖ / ‖ref‖ with the least-squares scale k = ⟨a,ref⟩/⟨a,a⟩ (0 when ‖ref‖ = 0): for
// images in other units than the reference (ML-EM counts against a relative density).
double nrmse(std::span<const float> a, std::span<const float> ref);
double nrmse(std::span<const double> a, std::span<const double> ref);

// Pearson correlation (0 when either is constant or empty).
double correlation(std::span<const float> a, std::span<const float> b);
double correlation(std::span<const double> a, std::span<const double> b);

}  // namespace tomo
