// The raw-stack tests' own C-arm (clockwise, columns against the rotation, off-centre central ray,
// matrices scaled by −3.7) and an analytic sphere's stack along its rays (exact chord lengths,
// not our projector), written as .npy (line integrals or uint16 intensities) and a text matrix file.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <span>
#include <vector>

#include "compute/fdk/matrix.hpp"
#include "compute/io/npy.hpp"

namespace tomo::fdk::test {

using V = std::array<double, 3>;
inline double dot(const V& a, const V& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// The test's C-arm: source at distance 600 mm, detector 900 mm from it, 2 mm pixels, 120×90,
// central ray at (62.3, 43.1); 100 views over 210° clockwise from 30°; columns along the
// counter-clockwise tangent, rows along −z. `jitter` > 0 makes the steps uneven: view n at step
// index n + jitter·sin(1.7·n).
struct Carm {
  static constexpr int N = 100, cols = 120, rows = 90;
  static constexpr double dsi = 600, dsd = 900, pix = 2.0, u0 = 62.3, v0 = 43.1;
  double jitter = 0.0;
  double beta(int n) const {
    return (30.0 - (n + jitter * std::sin(1.7 * n)) * 210.0 / (N - 1)) * std::numbers::pi / 180.0;
  }
  V es(int n) const { return {std::cos(beta(n)), std::sin(beta(n)), 0.0}; }
  V eu(int n) const { return {-std::sin(beta(n)), std::cos(beta(n)), 0.0}; }
  V ev() const { return {0.0, 0.0, -1.0}; }
  V source(int n) const { return {dsi * es(n)[0], dsi * es(n)[1], 0.0}; }
  // Row-major 3×4, scaled by −3.7: u = u0 + f·x·e_u/d, v = v0 + f·x·e_v/d, d = D_si − x·e_s.
  std::array<double, 12> matrix(int n) const {
    const double f = dsd / pix, k = -3.7;
    const V s = es(n), u = eu(n), w = ev();
    std::array<double, 12> P{};
    for (int c = 0; c < 3; ++c) {
      P[8 + c] = -s[c] * k;
      P[c] = (f * u[c] - u0 * s[c]) * k;
      P[4 + c] = (f * w[c] - v0 * s[c]) * k;
    }
    P[11] = dsi * k;
    P[3] = u0 * dsi * k;
    P[7] = v0 * dsi * k;
    return P;
  }
  // μ·(chord of the ray from the source to pixel (i, j) through the sphere).
  double line_integral(int n, int i, int j, const V& c, double r, double mu) const {
    const V S = source(n), s = es(n), u = eu(n), w = ev();
    V d;
    for (int a = 0; a < 3; ++a) d[a] = -dsd * s[a] + (i - u0) * pix * u[a] + (j - v0) * pix * w[a];
    const double len = std::sqrt(dot(d, d));
    for (double& x : d) x /= len;
    const V sc{S[0] - c[0], S[1] - c[1], S[2] - c[2]};
    const double b = dot(sc, d), disc = b * b - (dot(sc, sc) - r * r);
    return disc > 0 ? mu * 2.0 * std::sqrt(disc) : 0.0;
  }
};

inline const V kCentre{12.0, -8.0, 5.0};
inline constexpr double kRadius = 20.0, kMu = 0.02, kI0 = 50000.0;

// The sphere's line integrals, (N, rows, cols) in C order.
inline std::vector<float> sphere_line_integrals(const Carm& c = {}) {
  std::vector<float> p;
  p.reserve(static_cast<std::size_t>(Carm::N) * Carm::rows * Carm::cols);
  for (int n = 0; n < Carm::N; ++n)
    for (int j = 0; j < Carm::rows; ++j)
      for (int i = 0; i < Carm::cols; ++i) p.push_back(static_cast<float>(c.line_integral(n, i, j, kCentre, kRadius, kMu)));
  return p;
}

// The stack as line integrals, or as uint16 intensities I₀·exp(−p).
inline void write_stack(const std::filesystem::path& path, bool intensities, const Carm& c = {}) {
  const std::vector<float> p = sphere_line_integrals(c);
  const std::size_t shape[3] = {Carm::N, Carm::rows, Carm::cols};
  if (!intensities) return write_npy(path, std::span<const float>(p), shape);
  std::vector<std::uint16_t> I(p.size());
  for (std::size_t k = 0; k < p.size(); ++k) I[k] = static_cast<std::uint16_t>(std::lround(kI0 * std::exp(-p[k])));
  write_npy(path, std::span<const std::uint16_t>(I), shape);
}

// The matrices in our column-major Mat34.
inline std::vector<Mat34> carm_matrices(const Carm& carm = {}) {
  std::vector<Mat34> m(Carm::N);
  for (int n = 0; n < Carm::N; ++n)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) m[n].at(r, c) = carm.matrix(n)[r * 4 + c];
  return m;
}

// The matrices as text, written here (12 numbers per line, row by row), `count` of them.
inline void write_matrices(const std::filesystem::path& path, int count = Carm::N, const Carm& c = {}) {
  std::ofstream out(path);
  out.precision(17);
  out << "# test C-arm\n";
  for (int n = 0; n < count; ++n) {
    for (double a : c.matrix(n)) out << a << ' ';
    out << '\n';
  }
}

}  // namespace tomo::fdk::test
