// Synthetic RabbitCT-geometry data: a 3D Shepp–Logan phantom of ellipsoids and its ANALYTIC
// cone-beam line integrals (exact chord lengths through tomo::Phantom), never a voxel projector.
#pragma once
#include <vector>

#include "compute/core/phantom.hpp"
#include "compute/fdk/geometry.hpp"

namespace tomo::fdk {

// The modified 3D Shepp–Logan head (Kak & Slaney's ellipsoid table with Toft's contrasts):
// unit-head coordinates scaled by `scale_mm` (outer semi-axes 0.69, 0.92, 0.81 · scale), values
// multiplied by `mu` (mm⁻¹): the skull is `mu`, brain 0.2·mu, small features ±0.1·mu.
Phantom shepp_logan_3d(double scale_mm = 100.0, double mu = 0.02);

// Line integrals ∫μ dl (dimensionless) from the source to every pixel centre of projection n
// (row-major, pixel (i, j) at j*sx + i). OpenMP over rows.
void simulate_projection(const Phantom& phantom, const CArmGeometry& g, int n, float* out);
// All projections (n-major), OpenMP inside.
std::vector<float> simulate_projections(const Phantom& phantom, const CArmGeometry& g);

}  // namespace tomo::fdk
