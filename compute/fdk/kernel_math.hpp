// The RabbitCT bilinear sample [Hofmann2010], shared by the cpu reference (double, bounds-checked
// taps) and the CUDA kernel's exact path (float, texture taps with border 0). The GLSL passes have
// their own copy of the same formula in shaders/fdk/sample.glsl.
#pragma once
#include <math.h>

#include "compute/core/host_device.hpp"

namespace tomo::fdk {

TOMO_HD float floor_of(float x) { return floorf(x); }
TOMO_HD double floor_of(double x) { return floor(x); }

// Pixel (i, j) sits at integer detector coordinates (u, v) = (i, j). tap(fu, fv, di, dj) returns
// pixel (fu + di, fv + dj) of the floored position (di, dj ∈ {0, 1}), 0 outside the image.
template <class T, class Tap>
TOMO_HD T bilinear_sample(T u, T v, Tap&& tap) {
  const T fu = floor_of(u), fv = floor_of(v);
  const T au = u - fu, av = v - fv;
  const T t00 = tap(fu, fv, 0, 0), t10 = tap(fu, fv, 1, 0), t01 = tap(fu, fv, 0, 1), t11 = tap(fu, fv, 1, 1);
  return (T(1) - av) * ((T(1) - au) * t00 + au * t10) + av * ((T(1) - au) * t01 + au * t11);
}

}  // namespace tomo::fdk
