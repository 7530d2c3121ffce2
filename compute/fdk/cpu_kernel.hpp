// The reference back-projection loop (seed 003 Algorithm 1), shared by the cpu backend and tests.
#pragma once
#include <cmath>
#include "compute/core/volume.hpp"
#include "compute/fdk/backprojector.hpp"

namespace tomo::fdk {

// RabbitCT bilinear sample of image I (sx×sy): pixel (i, j) at integer coordinates, taps
// outside the image read 0.
inline double bilinear_rabbit(const float* I, int sx, int sy, double u, double v) {
  if (!(u > -1.0 && u < sx && v > -1.0 && v < sy)) return 0.0;  // all four taps outside (or NaN)
  const double fu = std::floor(u), fv = std::floor(v);
  const long iu = static_cast<long>(fu), iv = static_cast<long>(fv);
  const double au = u - fu, av = v - fv;
  auto tap = [&](long i, long j) -> double {
    return (i >= 0 && i < sx && j >= 0 && j < sy) ? static_cast<double>(I[j * sx + i]) : 0.0;
  };
  return (1 - av) * ((1 - au) * tap(iu, iv) + au * tap(iu + 1, iv)) +
         av * ((1 - au) * tap(iu, iv + 1) + au * tap(iu + 1, iv + 1));
}

// acc[grid.index(i,j,k)] += Σ_n 1/w² · bilinear(I_n, u, v), n in batch order; OpenMP over (k, j) rows.
void backproject_reference(const Grid3& grid, const ProjectionView& batch, double* acc);

}  // namespace tomo::fdk
