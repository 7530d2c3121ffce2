// The quarter-turn symmetry of H_srt's geometry (srt_symmetry.hpp): orbits of transducers under
// the turn about the grid's vertical axis, and for each orbit the frames its members' patches are
// laid out by, turned back into its first member's coordinates.
#include "compute/oat/srt_symmetry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include "compute/core/log.hpp"
#include "compute/oat/params.hpp"

namespace tomo::oat {
namespace {

// (x, y) → (−y, x) about (cx, cy), k times.
Vec3d turn(const Vec3d& p, double cx, double cy, int k) {
  double x = p[0] - cx, y = p[1] - cy;
  for (int i = 0; i < k; ++i) {
    const double t = x;
    x = -y;
    y = t;
  }
  return {cx + x, cy + y, p[2]};
}

// A direction (no centre) turned by R^k.
void turn_dir(double& x, double& y, int k) {
  for (int i = 0; i < ((k % 4) + 4) % 4; ++i) {
    const double t = x;
    x = -y;
    y = t;
  }
}

bool near3(const double a[3], const double b[3], double tol) {
  return std::abs(a[0] - b[0]) <= tol && std::abs(a[1] - b[1]) <= tol && std::abs(a[2] - b[2]) <= tol;
}

SrtSymmetry fail(std::string why) {
  SrtSymmetry s;
  s.why = std::move(why);
  return s;
}

}  // namespace

SrtSymmetry plan_srt_symmetry(const OatGeometry& g, double tol) {
  const auto& d = g.grid.dims;
  const auto& v = g.grid.voxel_mm;
  if (d[0] != d[1]) return fail(str_cat("the grid is not square in x-y (", d[0], " x ", d[1], " voxels)"));
  if (d[0] % 2 != 0) return fail(str_cat("the grid's x-y side (", d[0], " voxels) is odd"));
  if (v[0] != v[1]) return fail(str_cat("the voxels' x and y sides differ (", v[0], " vs ", v[1], " mm)"));
  const std::size_t Q = g.transducers.size();
  if (Q == 0 || Q % kSymmetryFold != 0) return fail(str_cat(Q, " transducers are not a multiple of four"));
  const Vec3d c = g.grid_centre_mm();
  // Transducers by their position on a lattice of cells `cell` wide; a turned position is looked
  // up in its cell and the neighbours.
  double rmax = 0;
  for (const Vec3d& p : g.transducers) rmax = std::max(rmax, std::hypot(p[0] - c[0], p[1] - c[1], p[2] - c[2]));
  const double eps = tol * std::max(rmax, 1e-300);
  const double cell = 4 * eps;
  auto key = [&](long long i, long long j, long long k) {
    return static_cast<std::uint64_t>(i * 73856093LL ^ j * 19349663LL ^ k * 83492791LL);
  };
  std::unordered_multimap<std::uint64_t, int> at;
  at.reserve(Q);
  for (std::size_t q = 0; q < Q; ++q) {
    const Vec3d& p = g.transducers[q];
    at.emplace(key(std::llround(p[0] / cell), std::llround(p[1] / cell), std::llround(p[2] / cell)),
               static_cast<int>(q));
  }
  auto find = [&](const Vec3d& p) {
    const long long i = std::llround(p[0] / cell), j = std::llround(p[1] / cell), k = std::llround(p[2] / cell);
    for (long long a = -1; a <= 1; ++a)
      for (long long b = -1; b <= 1; ++b)
        for (long long e = -1; e <= 1; ++e) {
          auto [lo, hi] = at.equal_range(key(i + a, j + b, k + e));
          for (auto it = lo; it != hi; ++it)
            if (near3(g.transducers[it->second].data(), p.data(), eps)) return it->second;
        }
    return -1;
  };
  std::vector<int> next(Q);
  for (std::size_t q = 0; q < Q; ++q) {
    const Vec3d& p = g.transducers[q];
    next[q] = find(turn(p, c[0], c[1], 1));
    if (next[q] < 0)
      return fail(str_cat("transducer ", q, " at (", p[0], ", ", p[1], ", ", p[2],
                          ") mm turned a quarter about the grid's axis is no transducer's position"));
  }
  const std::vector<ShellFrame<double>> frames = shell_frames<double>(g);
  SrtSymmetry s;
  s.n = d[0];
  std::vector<char> seen(Q, 0);
  for (std::size_t q0 = 0; q0 < Q; ++q0) {
    if (seen[q0]) continue;
    int q[kSymmetryFold];
    q[0] = static_cast<int>(q0);
    for (int k = 1; k < kSymmetryFold; ++k) q[k] = next[q[k - 1]];
    if (next[q[3]] != q[0] || q[1] == q[0] || q[2] == q[0] || q[2] == q[1])
      return fail(str_cat("transducer ", q0, "'s quarter turns do not close after four distinct transducers"));
    for (int k = 0; k < kSymmetryFold; ++k) {
      if (seen[q[k]]) return fail(str_cat("transducer ", q[k], " lies on two orbits"));
      seen[q[k]] = 1;
    }
    // Each member's u turned back into member 0's coordinates: a group per frame up to sign.
    const ShellFrame<double>& f0 = frames[q[0]];
    struct Group {
      double u[3];
      unsigned plus = 0, minus = 0;
    };
    std::vector<Group> groups;
    for (int k = 0; k < kSymmetryFold; ++k) {
      const ShellFrame<double>& f = frames[q[k]];
      double u[3] = {f.ux, f.uy, f.uz}, e[3] = {f.ex, f.ey, f.ez};
      turn_dir(u[0], u[1], -k);
      turn_dir(e[0], e[1], -k);
      const double e0[3] = {f0.ex, f0.ey, f0.ez};
      if (!near3(e, e0, tol) || std::abs(f.D - f0.D) > tol * f0.D)
        return fail(str_cat("transducer ", q[k], "'s direction to the grid centre is not transducer ", q[0],
                            "'s turned"));
      bool placed = false;
      for (Group& gr : groups) {
        const double nu[3] = {-u[0], -u[1], -u[2]};
        if (near3(u, gr.u, tol)) gr.plus |= 1u << k, placed = true;
        else if (near3(nu, gr.u, tol)) gr.minus |= 1u << k, placed = true;
        if (placed) break;
      }
      if (!placed) groups.push_back({{u[0], u[1], u[2]}, 1u << k, 0u});
    }
    for (const Group& gr : groups) {
      for (int sign : {1, -1}) {
        SymmetryPass<double> p;
        const double u[3] = {sign * gr.u[0], sign * gr.u[1], sign * gr.u[2]};
        const double e[3] = {f0.ex, f0.ey, f0.ez};
        p.frame = f0;
        p.frame.ux = u[0], p.frame.uy = u[1], p.frame.uz = u[2];
        p.frame.vx = e[1] * u[2] - e[2] * u[1];
        p.frame.vy = e[2] * u[0] - e[0] * u[2];
        p.frame.vz = e[0] * u[1] - e[1] * u[0];
        for (int k = 0; k < kSymmetryFold; ++k) p.q[k] = q[k];
        p.mask_even = sign > 0 ? gr.plus | gr.minus : 0u;
        p.mask_odd = sign > 0 ? gr.plus : gr.minus;
        if (p.mask_even == 0 && p.mask_odd == 0) continue;
        s.passes.push_back(p);
      }
    }
    s.orbit_first.push_back(static_cast<int>(s.passes.size()));
  }
  // orbit_first held each orbit's end: shift to starts with the total last.
  s.orbits = static_cast<int>(s.orbit_first.size());
  s.orbit_first.insert(s.orbit_first.begin(), 0);
  s.ok = true;
  return s;
}

std::vector<SymmetryPass<float>> symmetry_passes_float(const SrtSymmetry& s) {
  std::vector<SymmetryPass<float>> out;
  out.reserve(s.passes.size());
  for (const SymmetryPass<double>& p : s.passes) {
    const ShellFrame<double>& f = p.frame;
    SymmetryPass<float> o;
    o.frame = {float(f.sx), float(f.sy), float(f.sz), float(f.ex), float(f.ey), float(f.ez), float(f.ux),
               float(f.uy), float(f.uz), float(f.vx), float(f.vy), float(f.vz), float(f.D),  float(f.rho)};
    for (int k = 0; k < kSymmetryFold; ++k) o.q[k] = p.q[k];
    o.mask_even = p.mask_even;
    o.mask_odd = p.mask_odd;
    out.push_back(o);
  }
  return out;
}

}  // namespace tomo::oat
