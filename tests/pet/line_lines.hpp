// Test support for the line projector: reproducible random lines and images, and inner products.
#pragma once
#include <cmath>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include "compute/pet/line_projector.hpp"

namespace tomo::pet::test {

// n lines between two points drawn uniformly in a box `margin` mm larger than the grid on every
// side: most cross the grid obliquely, some miss it, some start or end inside it.
inline std::vector<double> random_lines(const LineGrid& g, std::size_t n, double margin, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> e(6 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int p = 0; p < 2; ++p)
      for (int k = 0; k < 3; ++k) {
        const double lo = g.origin_mm[k] - 0.5 * g.voxel_mm[k] - margin;
        const double hi = lo + g.dims[k] * g.voxel_mm[k] + 2 * margin;
        e[6 * i + 3 * p + k] = std::uniform_real_distribution<double>(lo, hi)(rng);
      }
  return e;
}

inline std::vector<double> random_values(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v(n);
  for (double& x : v) x = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  return v;
}

inline double dot(std::span<const double> a, std::span<const double> b) {
  return std::inner_product(a.begin(), a.end(), b.begin(), 0.0);
}

// <A x, y> and <x, Aᵀ y> for x, y of random_values(seed_x, seed_y), and how many lines A x > 0.
struct Adjoint {
  double lhs = 0, rhs = 0;
  int touched = 0;
};
inline Adjoint adjoint_of(LineProjector& op, std::size_t voxels, unsigned seed_x, unsigned seed_y) {
  const std::size_t n = op.line_count();
  const std::vector<double> x = random_values(voxels, seed_x), y = random_values(n, seed_y);
  std::vector<double> ax(n), aty(voxels);
  op.forward(x, ax);
  op.back(y, aty);
  Adjoint r{dot(ax, y), dot(x, aty), 0};
  for (double v : ax) r.touched += v > 0;
  return r;
}

}  // namespace tomo::pet::test
