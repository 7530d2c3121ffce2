// Reference back-projection (see cpu_kernel.hpp).
#include "compute/fdk/cpu_kernel.hpp"

#include <cmath>

namespace tomo::fdk {

void backproject_reference(const Grid3& grid, const ProjectionView& b, double* acc) {
  const int nx = grid.dims[0], ny = grid.dims[1], nz = grid.dims[2];
  // [Hofmann2010] §3.1 parallelises over z; we parallelise over (z, y) rows so that thin slabs (the
  // bench's cpu reference on a few slices) use every core. The projection order per voxel is kept,
  // so the sum is bit-identical to running Algorithm 1 once per projection.
#pragma omp parallel for collapse(2) schedule(dynamic, 4)
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j) {
      const double z = grid.origin_mm[2] + k * grid.voxel_mm[2];
      const double y = grid.origin_mm[1] + j * grid.voxel_mm[1];
      double* row = acc + grid.index(0, j, k);
      for (int n = 0; n < b.count; ++n) {
        const auto& A = b.matrices[n].a;
        const float* I = b.pixels + static_cast<std::size_t>(n) * b.sx * b.sy;
        // The y/z part of u, v, w is shared by the row.
        const double cu = A[3] * y + A[6] * z + A[9], cv = A[4] * y + A[7] * z + A[10];
        const double cw = A[5] * y + A[8] * z + A[11];
        for (int i = 0; i < nx; ++i) {
          const double x = grid.origin_mm[0] + i * grid.voxel_mm[0];
          const double w = A[2] * x + cw;
          const double u = (A[0] * x + cu) / w;
          const double v = (A[1] * x + cv) / w;
          row[i] += bilinear_rabbit(I, b.sx, b.sy, u, v) / (w * w);
        }
      }
    }
}

}  // namespace tomo::fdk
