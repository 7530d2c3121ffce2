// The relative difference prior of [Nuyts2002] as per-pair terms, shared by the cpu reference
// (double) and the CUDA kernel (float); shaders/pet/rdp.glsl is its GLSL twin. For a voxel
// value a and a neighbour b, with d = a − b and D = a + b + γ|d| + ε:
//   f(a, b) = d² / D,  ∂f/∂a = d·(a + 3b + γ|d| + 2ε) / D²,  ∂²f/∂a² = 2·(2b + ε)² / D³.
// The prior is R(x) = ½ Σ_j Σ_{k∈N(j)} w_jk κ_j κ_k f(x_j, x_k) over the 26 neighbours N(j).
#pragma once
#include <cmath>

#include "compute/core/host_device.hpp"

namespace tomo::pet {

template <class T>
TOMO_HD T rdp_denominator(T a, T b, T gamma, T eps) {
  const T d = a - b;
  return a + b + gamma * (d < T(0) ? -d : d) + eps;
}

template <class T>
TOMO_HD T rdp_value(T a, T b, T gamma, T eps) {
  const T d = a - b, D = rdp_denominator(a, b, gamma, eps);
  return D > T(0) ? d * d / D : T(0);
}

template <class T>
TOMO_HD T rdp_derivative(T a, T b, T gamma, T eps) {
  const T d = a - b, D = rdp_denominator(a, b, gamma, eps);
  return D > T(0) ? d * (a + T(3) * b + gamma * (d < T(0) ? -d : d) + T(2) * eps) / (D * D) : T(0);
}

template <class T>
TOMO_HD T rdp_second_derivative(T a, T b, T gamma, T eps) {
  const T D = rdp_denominator(a, b, gamma, eps), c = T(2) * b + eps;
  return D > T(0) ? T(2) * c * c / (D * D * D) : T(0);
}

// Neighbour weight: the inverse distance between the voxel centres in units of the smallest
// voxel side (1 for a face neighbour along the finest axis, 1/√2 and 1/√3 on cubic voxels).
template <class T>
TOMO_HD T rdp_weight(int di, int dj, int dk, T vx, T vy, T vz) {
  const T m = vx < vy ? (vx < vz ? vx : vz) : (vy < vz ? vy : vz);
  const T x = T(di) * vx / m, y = T(dj) * vy / m, z = T(dk) * vz / m;
  return T(1) / sqrt(x * x + y * y + z * z);
}

}  // namespace tomo::pet
