// One cone-beam view as four vectors — source, detector centre, and the steps from one column and
// one row to the next — and the 3×4 projection matrix it makes. The circular orbit, ASTRA's
// cone_vec rows and TIGRE's geometry all come down to these views.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "compute/fdk/matrix.hpp"

namespace tomo::fdk {

using Vec3d = std::array<double, 3>;
using Mat3d = std::array<Vec3d, 3>;  // row-major

// World millimetres. Pixel (i, j) (column i, row j) has its centre at
// detector_centre + (i − (cols−1)/2)·u + (j − (rows−1)/2)·v.
struct ConeView {
  Vec3d source{};
  Vec3d detector_centre{};
  Vec3d u{};  // column i → i + 1
  Vec3d v{};  // row j → j + 1
};

// The matrix mapping a world point to the pixel its ray from the source hits ((u, v) = (p0/p2,
// p1/p2), pixel centres at integers), scaled so that w = 1 at the world origin (RabbitCT's 1/w² is
// then FDK's distance weight). InputError prefixed with `where` for non-finite vectors, a
// detector seen edge-on (u, v and the central direction not independent) or a world origin that
// is not in front of the source.
Mat34 view_matrix(const ConeView& view, int cols, int rows, const std::string& where);
std::vector<Mat34> view_matrices(const std::vector<ConeView>& views, int cols, int rows, const std::string& where);

// TIGRE's detector rotation Rz(roll)·Ry(pitch)·Rx(yaw) (radians), in the frame of a view at angle
// 0: x from the detector towards the source, y along the columns, z along the rows.
Mat3d detector_rotation(double roll, double pitch, double yaw);
Vec3d operator*(const Mat3d& m, const Vec3d& x);

}  // namespace tomo::fdk
