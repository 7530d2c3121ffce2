// Image analysis of [Locans2017] §5.2 (eqs. 13–14): excess E = (S − B)/B and ΔE = (S/B)·√(1/S + 1/B)
// of an inner sphere over a concentric shell, at every voxel or at given positions, and the
// spots above a significance threshold. S and B are defined in docs/safir.md (point 5).
#pragma once
#include <array>
#include <span>
#include <vector>

#include "compute/core/volume.hpp"
#include "compute/safir/projector.hpp"

namespace tomo::safir {

// Voxel offsets whose centres lie within r_out of a voxel centre; `shell` = beyond r_in.
struct SphereOffset {
  int di, dj, dk;
  int shell;  // 0 inner, 1 shell
};
std::vector<SphereOffset> sphere_offsets(double voxel_mm, double r_in_mm, double r_out_mm);

// Host reference of ListModeOperator::sphere_sums (OpenMP over voxels).
SphereSums sphere_sums_cpu(std::span<const double> image, const std::array<int, 3>& n, double voxel_mm,
                           double r_in_mm, double r_out_mm, int threads = 0);

struct Excess {
  double S = 0, B = 0, E = 0, dE = 0;
  double significance() const { return dE > 0 ? E / dE : 0.0; }
};
// S = κ Σ_inner f, B = κ Σ_shell f · n_inner/n_shell (the shell's activity scaled to the inner
// volume), κ = counts per image unit; eqs. (13)–(14).
Excess excess_from_sums(double inner, double shell, double n_inner, double n_shell, double kappa);

struct ExcessMaps {
  std::vector<double> E, dE, significance;  // per voxel; 0 where B or S is 0
};
ExcessMaps excess_maps(const SphereSums& sums, double kappa);

// Counts per image unit κ = events / Σ_j f_j: the image's activity shared out as the detected
// counts, so S and B are counts for the Poisson errors of eq. (14).
double counts_per_unit(std::span<const double> image, double events);

struct Spot {
  std::array<int, 3> voxel{};
  std::array<double, 3> mm{};
  Excess excess;
};
// Local maxima of E/ΔE above `threshold` (26-neighbourhood), strongest first, at most `max_spots`.
std::vector<Spot> find_spots(const ExcessMaps& maps, const SphereSums& sums, const Grid3& grid, double kappa,
                             double threshold, std::size_t max_spots = 50);
// E ± ΔE with the spheres centred at a position (mm), on the host.
Excess excess_at(std::span<const double> image, const Grid3& grid, const std::array<double, 3>& mm, double r_in_mm,
                 double r_out_mm, double kappa);

}  // namespace tomo::safir
