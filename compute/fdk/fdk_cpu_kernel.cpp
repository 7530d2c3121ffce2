// Reference back-projection (see cpu_kernel.hpp).
#include "fdk/cpu_kernel.hpp"

#include <cmath>

namespace tomo::fdk {

void backproject_reference(const Grid3& grid, const ProjectionView& b, double* acc) {
  const int nx = grid.dims[0], ny = grid.dims[1], nz = grid.dims[2];
  // seed 003 §3.1: parallelise the outermost (z) loop only; projection order per voxel is kept,
  // so the sum is bit-identical to running Algorithm 1 once per projection.
#pragma omp parallel for schedule(dynamic, 1)
  for (int k = 0; k < nz; ++k) {
    const double z = grid.origin_mm[2] + k * grid.voxel_mm[2];
    for (int n = 0; n < b.count; ++n) {
      const auto& A = b.matrices[n].a;
      const float* I = b.pixels + static_cast<std::size_t>(n) * b.sx * b.sy;
      for (int j = 0; j < ny; ++j) {
        const double y = grid.origin_mm[1] + j * grid.voxel_mm[1];
        double* row = acc + grid.index(0, j, k);
        for (int i = 0; i < nx; ++i) {
          const double x = grid.origin_mm[0] + i * grid.voxel_mm[0];
          const double w = A[2] * x + A[5] * y + A[8] * z + A[11];
          const double u = (A[0] * x + A[3] * y + A[6] * z + A[9]) / w;
          const double v = (A[1] * x + A[4] * y + A[7] * z + A[10]) / w;
          row[i] += bilinear_rabbit(I, b.sx, b.sy, u, v) / (w * w);
        }
      }
    }
  }
}

}  // namespace tomo::fdk
