// The reference back-projection loop ([Hofmann2010] Algorithm 1), shared by the cpu backend and tests.
#pragma once
#include <cmath>
#include "compute/core/volume.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/kernel_math.hpp"

namespace tomo::fdk {

// RabbitCT bilinear sample of image I (sx×sy): pixel (i, j) at integer coordinates, taps
// outside the image read 0.
inline double bilinear_rabbit(const float* I, int sx, int sy, double u, double v) {
  if (!(u > -1.0 && u < sx && v > -1.0 && v < sy)) return 0.0;  // all four taps outside (or NaN)
  return bilinear_sample(u, v, [&](double fu, double fv, int di, int dj) -> double {
    const long i = static_cast<long>(fu) + di, j = static_cast<long>(fv) + dj;
    return (i >= 0 && i < sx && j >= 0 && j < sy) ? static_cast<double>(I[j * sx + i]) : 0.0;
  });
}

// acc[grid.index(i,j,k)] += Σ_n 1/w² · bilinear(I_n, u, v), n in batch order; OpenMP over (k, j) rows.
void backproject_reference(const Grid3& grid, const ProjectionView& batch, double* acc);

}  // namespace tomo::fdk
