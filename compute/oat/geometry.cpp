// Transducer layouts, time axis and validation of the oat acquisition; the [oat] geometry keys.
#include "compute/oat/geometry.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/npy.hpp"

namespace tomo::oat {

Vec3d OatGeometry::grid_centre_mm() const {
  Vec3d c{};
  for (int a = 0; a < 3; ++a) c[a] = grid.origin_mm[a] + 0.5 * (grid.dims[a] - 1) * grid.voxel_mm[a];
  return c;
}

double OatGeometry::support_mm() const {
  if (support_radius_mm > 0) return support_radius_mm;
  double r = 1e300;
  for (int a = 0; a < 3; ++a) r = std::min(r, 0.5 * grid.dims[a] * grid.voxel_mm[a]);
  return r;
}

void OatGeometry::validate(const std::string& where) const {
  auto bad = [&](const std::string& what) { throw InputError(where + ": " + what); };
  if (transducers.empty()) bad("no transducers");
  if (surface_mm2.size() != transducers.size()) bad("one surface element per transducer expected");
  for (const Vec3d& p : transducers)
    for (double x : p)
      if (!std::isfinite(x)) bad("a transducer position is not finite");
  if (time.samples < 2) bad(str_cat("at least 2 time samples needed, got ", time.samples));
  if (!(time.fs_mhz > 0) || !std::isfinite(time.fs_mhz)) bad(str_cat("sampling rate must be > 0 MHz, got ", time.fs_mhz));
  if (!std::isfinite(time.t_min_us)) bad("t_min is not finite");
  if (!(c0_mm_per_us > 0) || !std::isfinite(c0_mm_per_us)) bad(str_cat("c0 must be > 0 mm/µs, got ", c0_mm_per_us));
  if (!(gruneisen > 0) || !std::isfinite(gruneisen)) bad(str_cat("Grüneisen Γ must be > 0, got ", gruneisen));
  if (!(radius_mm > 0)) bad(str_cat("measurement radius must be > 0 mm, got ", radius_mm));
  for (int a = 0; a < 3; ++a) {
    if (grid.dims[a] < 1 || grid.dims[a] > 4096) bad(str_cat("grid size must be in 1..4096, got ", grid.dims[a]));
    if (!(grid.voxel_mm[a] >= kMinVoxelMm && grid.voxel_mm[a] <= kMaxVoxelMm))
      bad(str_cat("voxel size must be in ", kMinVoxelMm, "..", kMaxVoxelMm, " mm, got ", grid.voxel_mm[a]));
  }
  if (grid.voxel_mm[0] != grid.voxel_mm[1] || grid.voxel_mm[0] != grid.voxel_mm[2]) bad("voxels must be cubic");
  if (eir.kind != EirKind::none && eir.taps.empty()) bad("the EIR has no taps");
  for (double h : eir.taps)
    if (!std::isfinite(h)) bad("an EIR tap is not finite");
  if (eir.kind != EirKind::none && std::all_of(eir.taps.begin(), eir.taps.end(), [](double h) { return h == 0; }))
    bad("every EIR tap is 0: the model would map every image to zero data");
  // Positions from a file get the bounds of the scene's (oat.radius_mm) and must lie outside the
  // voxel grid: a transducer among the voxels sees a distance of 0 (the model's 1/d).
  const Vec3d c = grid_centre_mm();
  for (std::size_t q = 0; q < transducers.size(); ++q) {
    const Vec3d& p = transducers[q];
    const double d = std::hypot(p[0] - c[0], p[1] - c[1], p[2] - c[2]);
    if (d > kMaxRadiusMm)
      bad(str_cat("transducer ", q, " at (", p[0], ", ", p[1], ", ", p[2], ") mm is ", d,
                  " mm from the grid centre, beyond the ", kMaxRadiusMm, " mm that oat.radius_mm allows"));
    bool inside = true;
    for (int a = 0; a < 3; ++a) inside = inside && std::fabs(p[a] - c[a]) < 0.5 * grid.dims[a] * grid.voxel_mm[a];
    if (inside)
      bad(str_cat("transducer ", q, " at (", p[0], ", ", p[1], ", ", p[2], ") mm lies inside the voxel grid (",
                  grid.dims[0] * grid.voxel_mm[0], " x ", grid.dims[1] * grid.voxel_mm[1], " x ",
                  grid.dims[2] * grid.voxel_mm[2], " mm about (", c[0], ", ", c[1], ", ", c[2],
                  ")): transducers must surround the image"));
  }
  if (radius_mm < kMinRadiusMm) bad(str_cat("measurement radius must be >= ", kMinRadiusMm, " mm, got ", radius_mm));
}

void set_rings_views(OatGeometry& g, int rings, int views, double radius_mm, const Vec3d& centre) {
  g.rings = rings;
  g.views = views;
  g.radius_mm = radius_mm;
  g.centre_mm = centre;
  g.transducers.clear();
  g.surface_mm2.clear();
  const double dth = std::numbers::pi / rings, dph = 2 * std::numbers::pi / views;
  for (int i = 0; i < rings; ++i) {
    const double th = (i + 0.5) * dth;
    for (int j = 0; j < views; ++j) {
      const double ph = j * dph;
      g.transducers.push_back({centre[0] + radius_mm * std::sin(th) * std::cos(ph),
                               centre[1] + radius_mm * std::sin(th) * std::sin(ph),
                               centre[2] + radius_mm * std::cos(th)});
      g.surface_mm2.push_back(radius_mm * radius_mm * std::sin(th) * dth * dph);
    }
  }
}

namespace {

// Spherical Voronoi areas of the transducers' directions, estimated by giving each of M
// Fibonacci-lattice points on the sphere to its nearest transducer: dS_q = 4πRs²·n_q/M. Brute
// force, so only up to kMaxVoronoi transducers; beyond, every transducer gets 4πRs²/Q.
constexpr std::size_t kMaxVoronoi = 4096;

std::vector<double> surface_elements(const std::vector<Vec3d>& pos, const Vec3d& c, double radius) {
  const std::size_t Q = pos.size();
  const double total = 4 * std::numbers::pi * radius * radius;
  if (Q == 0) return {};
  if (Q > kMaxVoronoi) return std::vector<double>(Q, total / Q);
  std::vector<Vec3d> dir(Q);
  for (std::size_t q = 0; q < Q; ++q) {
    const Vec3d d{pos[q][0] - c[0], pos[q][1] - c[1], pos[q][2] - c[2]};
    const double n = std::max(1e-300, std::hypot(d[0], d[1], d[2]));
    dir[q] = {d[0] / n, d[1] / n, d[2] / n};
  }
  const std::size_t M = 64 * Q;
  std::vector<std::size_t> count(Q, 0);
  const double golden = std::numbers::pi * (3 - std::sqrt(5.0));
  for (std::size_t m = 0; m < M; ++m) {
    const double z = 1 - (2 * m + 1.0) / M, r = std::sqrt(1 - z * z), ph = golden * m;
    const double x = r * std::cos(ph), y = r * std::sin(ph);
    std::size_t best = 0;
    double best_dot = -2;
    for (std::size_t q = 0; q < Q; ++q) {
      const double d = x * dir[q][0] + y * dir[q][1] + z * dir[q][2];
      if (d > best_dot) best_dot = d, best = q;
    }
    ++count[best];
  }
  std::vector<double> s(Q);
  for (std::size_t q = 0; q < Q; ++q) s[q] = total * count[q] / M;
  return s;
}

}  // namespace

void set_positions(OatGeometry& g, std::vector<Vec3d> positions, const Vec3d& centre) {
  g.rings = g.views = 0;
  g.centre_mm = centre;
  double r = 0;
  for (const Vec3d& p : positions)
    r += std::hypot(p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]);
  g.radius_mm = positions.empty() ? 0.0 : r / positions.size();
  g.surface_mm2 = surface_elements(positions, centre, g.radius_mm);
  g.transducers = std::move(positions);
}

std::vector<double> gaussian_eir_taps(const Eir& e, double dt_us) {
  const int J = std::max(1, static_cast<int>(std::ceil((e.delay_us + 6 * e.sigma_us) / dt_us)) + 1);
  std::vector<double> h(J);
  for (int j = 0; j < J; ++j) {
    const double x = (j * dt_us - e.delay_us) / e.sigma_us;
    h[j] = dt_us * std::exp(-0.5 * x * x) / (std::sqrt(2 * std::numbers::pi) * e.sigma_us);
  }
  return h;
}

TimeAxis covering_time_axis(const OatGeometry& g, double fs_mhz, double margin_us) {
  const Vec3d c = g.grid_centre_mm();
  const double rho = g.support_mm() + std::sqrt(3.0) * g.voxel_mm();
  double lo = 1e300, hi = 0;
  for (const Vec3d& s : g.transducers) {
    const double D = std::hypot(s[0] - c[0], s[1] - c[1], s[2] - c[2]);
    lo = std::min(lo, std::max(0.0, D - rho));
    hi = std::max(hi, D + rho);
  }
  TimeAxis t;
  t.fs_mhz = fs_mhz;
  const double dt = 1.0 / fs_mhz;
  t.t_min_us = std::max(0.0, std::floor((lo / g.c0_mm_per_us - margin_us) / dt) * dt);
  double eir_us = 0;
  if (g.eir.active()) eir_us = g.eir.taps.size() * dt;
  t.samples = static_cast<int>(std::ceil((hi / g.c0_mm_per_us + margin_us + eir_us - t.t_min_us) / dt)) + 1;
  return t;
}

OatGeometry geometry_from_scene(const Scene& s) {
  OatGeometry g;
  g.c0_mm_per_us = s.get_in_range("oat.c0_mm_per_us", 1.5, 1e-3, 100.0);
  g.gruneisen = s.get_in_range("oat.gruneisen", 1.0, 1e-6, 1e6);
  const auto dims = s.get<std::array<int, 3>>("oat.grid", {40, 40, 40});
  for (int a = 0; a < 3; ++a)
    if (dims[a] < 1 || dims[a] > 4096)
      throw InputError(str_cat(s.where("oat.grid"), ": each size must be in 1..4096, got ", dims[a]));
  const double voxel = s.get_in_range("oat.voxel_mm", 0.6, kMinVoxelMm, kMaxVoxelMm);
  g.grid = Grid3::centred(dims, {voxel, voxel, voxel});
  g.support_radius_mm = s.get_in_range("oat.support_radius_mm", 0.0, 0.0, 1e5);
  const int rings = s.get_int_in_range("oat.rings", 16, 1, 4096);
  const int views = s.get_int_in_range("oat.views", 32, 1, 4096);
  set_rings_views(g, rings, views, s.get_in_range("oat.radius_mm", 65.0, kMinRadiusMm, kMaxRadiusMm));
  const double fs = s.get_in_range("oat.fs_mhz", 10.0, 1e-3, 1e5);
  g.eir.kind = s.get_enum("oat.eir.kind", EirKind::none, kEirKindNames);
  g.eir.sigma_us = s.get_in_range("oat.eir.sigma_us", 0.05, 1e-6, 1e3);
  g.eir.delay_us = s.get_in_range("oat.eir.delay_us", 4 * g.eir.sigma_us, 0.0, 1e3);
  if (g.eir.kind == EirKind::gaussian) g.eir.taps = gaussian_eir_taps(g.eir, 1.0 / fs);
  if (g.eir.kind == EirKind::file) {
    const auto path = s.get_input_path("oat.eir.file");
    if (path.empty()) throw InputError(s.where("oat.eir.kind") + " = \"file\" needs oat.eir.file (a 1-D .npy of taps)");
    const NpyArray a = read_npy(path);
    if (a.shape.size() != 1 || a.shape[0] < 1 || a.shape[0] > 100000)
      throw InputError(str_cat(path.string(), " (oat.eir.file): expected a 1-D array of 1..100000 taps"));
    g.eir.taps = a.to_double(path.string() + " (oat.eir.file)");
  }
  const TimeAxis cover = covering_time_axis(g, fs, s.get_in_range("oat.time_margin_us", 1.0, 0.0, 1e4));
  g.time.fs_mhz = fs;
  g.time.t_min_us = s.get_in_range("oat.t_min_us", cover.t_min_us, -1e6, 1e6);
  g.time.samples = s.get_int_in_range("oat.samples", cover.samples, 2, 1 << 20);
  g.validate(s.where("oat"));
  return g;
}

}  // namespace tomo::oat
