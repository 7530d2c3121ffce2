// The acquisition of the oat problem ([Wang2013]): point transducers (rings × views on a
// measurement sphere, or read from a file), the time axis, c₀, Γ, the voxel grid and the EIR.
// Units: mm, µs, MHz (so c₀ in mm/µs); index order of data u[q·K + k], voxels x fastest.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "compute/core/enum_name.hpp"
#include "compute/core/volume.hpp"

namespace tomo {
class Scene;
}

namespace tomo::oat {

using Vec3d = std::array<double, 3>;

// Bounds of the scene keys oat.radius_mm and oat.voxel_mm; positions and spacings read from a
// file are held to the same (OatGeometry::validate).
inline constexpr double kMinRadiusMm = 1e-3, kMaxRadiusMm = 1e5;
inline constexpr double kMinVoxelMm = 1e-4, kMaxVoxelMm = 1e3;

// Electro-acoustic impulse response h_e: none (identity), a Gaussian, or samples from a file.
enum class EirKind { none, gaussian, file };
inline constexpr std::array<EnumName<EirKind>, 3> kEirKindNames{
    {{"none", EirKind::none}, {"gaussian", EirKind::gaussian}, {"file", EirKind::file}}};

struct Eir {
  EirKind kind = EirKind::none;
  double sigma_us = 0.05;  // gaussian: standard deviation
  double delay_us = 0.2;   // gaussian: centre (causal taps j ≥ 0 need delay ≳ 4σ)
  // Taps h_j = Δt·h_e(jΔt), j = 0..J−1 (h_j = 0 for j < 0): filled by make_taps() for
  // gaussian, read (already multiplied by Δt) for file, empty for none.
  std::vector<double> taps;
  bool active() const { return kind != EirKind::none && !taps.empty(); }
};

struct TimeAxis {
  int samples = 0;       // K
  double t_min_us = 0;   // time of sample 0 (µs after the excitation)
  double fs_mhz = 10;    // sampling rate
  double dt_us() const { return 1.0 / fs_mhz; }
  double t_us(int k) const { return t_min_us + k * dt_us(); }
};

struct OatGeometry {
  std::vector<Vec3d> transducers;   // positions (mm), q = ring·views + view for rings × views
  // Surface element dSˢ (mm²) of each transducer in the FBP quadrature: Rˢ² sinθ ΔθΔφ for
  // rings × views; for positions read from a file, the spherical Voronoi area of its direction
  // (estimated on a Fibonacci lattice, up to 4096 transducers; 4πRˢ²/Q beyond).
  std::vector<double> surface_mm2;
  double radius_mm = 65.0;          // Rˢ (mean |rˢ_q − centre| for positions from a file)
  Vec3d centre_mm{0, 0, 0};         // centre of the measurement sphere
  int rings = 0, views = 0;         // 0 when positions came from a file
  TimeAxis time;
  double c0_mm_per_us = 1.5;        // speed of sound
  double gruneisen = 1.0;           // Γ = βc₀²/C_p (dimensionless)
  Grid3 grid;                       // voxel centres; Δs = grid.voxel_mm[0] (cubic voxels)
  double support_radius_mm = 0;     // object support: ball about grid centre (0: inscribed ball)
  Eir eir;

  int transducer_count() const { return static_cast<int>(transducers.size()); }
  std::size_t data_size() const { return transducers.size() * static_cast<std::size_t>(time.samples); }
  double voxel_mm() const { return grid.voxel_mm[0]; }
  Vec3d grid_centre_mm() const;
  double support_mm() const;        // support_radius_mm, or the inscribed ball's radius
  // InputError (prefixed with `where`) for non-physical values or sizes that do not match.
  void validate(const std::string& where) const;
};

// N_r rings at polar angles θ_i = (i + ½)π/N_r (ring midpoints), N_v views at φ_j = 2πj/N_v,
// on the sphere of radius `radius_mm` about `centre`; fills transducers and surface_mm2.
void set_rings_views(OatGeometry& g, int rings, int views, double radius_mm, const Vec3d& centre = {0, 0, 0});
// Positions from elsewhere (a file): Voronoi surfaces (see surface_mm2), Rˢ the mean distance to `centre`.
void set_positions(OatGeometry& g, std::vector<Vec3d> positions, const Vec3d& centre = {0, 0, 0});
// The gaussian EIR's taps for the geometry's Δt (Σ h_j ≈ 1), out to delay + 6σ.
std::vector<double> gaussian_eir_taps(const Eir& e, double dt_us);
// Time window covering every voxel of the support seen from every transducer, with `margin_us`.
TimeAxis covering_time_axis(const OatGeometry& g, double fs_mhz, double margin_us);

// The [oat] keys of the geometry (rings, views, radius_mm, fs_mhz, t_min_us, samples, c0,
// gruneisen, grid, eir.*); transducers/timing from a file are set by the readers afterwards.
OatGeometry geometry_from_scene(const Scene& s);

}  // namespace tomo::oat
