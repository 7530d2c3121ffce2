// 3×4 projection matrices in the RabbitCT convention: 12 doubles stored column-major
// (row r, column c at a[c*3+r]); a world point (x,y,z) maps to pixel (u,v) = (p0/p2, p1/p2).
#pragma once
#include <array>

namespace tomo::fdk {

struct Mat34 {
  std::array<double, 12> a{};  // column-major, as in the RabbitCT file

  double& at(int r, int c) { return a[c * 3 + r]; }
  double at(int r, int c) const { return a[c * 3 + r]; }

  // Homogeneous image coordinates of a world point (mm); w is the RabbitCT depth.
  struct Projected {
    double u, v, w;
  };
  Projected project(double x, double y, double z) const {
    // [Hofmann2010] / RabbitCT update rule: w = A[2]x + A[5]y + A[8]z + A[11], u = (..)/w, v = (..)/w
    const double w = a[2] * x + a[5] * y + a[8] * z + a[11];
    const double u = (a[0] * x + a[3] * y + a[6] * z + a[9]) / w;
    const double v = (a[1] * x + a[4] * y + a[7] * z + a[10]) / w;
    return {u, v, w};
  }
};

}  // namespace tomo::fdk
