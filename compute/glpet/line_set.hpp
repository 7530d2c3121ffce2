// The glpet LINE SET: the numerical contract every backend shares (docs/glpet.md §2).
// For a voxel sample v and a module pair: primary module, the R·N_a × R·N_t pixel
// centres on it, the secondary hit of each line, its LOR texel and weight ([Toth2010] §II).
#pragma once
#include <cmath>
#include <cstddef>

#include "compute/glpet/geometry.hpp"

namespace tomo::glpet {

// σ_t(y): trilinear interpolation of the voxel values placed at voxel centres, with
// texels outside the grid reading 0 — exactly a GL 3D texture with GL_LINEAR and
// CLAMP_TO_BORDER(0) sampled at (g + 0.5)/dims, g the continuous voxel index. The arithmetic
// is compute/glpet/line_math.hpp's, shared with the CUDA kernels.
struct Extinction {
  const float* data = nullptr;
  int nx = 0, ny = 0, nz = 0;
  Vec3 origin{}, inv_voxel{};
  bool empty = true;  // all zero: the transmission is 1

  explicit Extinction(const VolumeF& v);
  double at(int i, int j, int k) const {
    if (i < 0 || j < 0 || k < 0 || i >= nx || j >= ny || k >= nz) return 0.0;
    return data[std::size_t(i) + std::size_t(nx) * (std::size_t(j) + std::size_t(ny) * k)];
  }
  double sample(const Vec3& y) const;
  // Transmission of the segment y2→y1: exp(−Σ_k σ_t(y(t_k))·|y1−y2|/K), t_k = (k+½)/K,
  // y(t) = y1·t + y2·(1−t) ([Toth2010] §II.B, midpoint rule). Samples outside the support
  // of σ_t (the grid grown by one voxel) read 0 and are skipped, which changes nothing.
  double transmission(const Vec3& y1, const Vec3& y2, int K) const;
};

// One line of the correspondence image of a voxel sample.
struct Line {
  bool hit = false;       // false: the line misses the secondary module (pixel cleared to 0)
  int p = 0, q = 0;       // primary detector: (X div R, Y div R)
  int r = 0, s = 0;       // secondary detector
  std::size_t lor = 0;    // index inside the pair's atlas (first-module convention)
  double weight = 0.0;    // a = T · Δω / (2π)  ([Toth2010] eq. (5) and §II.B), not yet divided by N
  Vec3 y1{}, y2{};        // world hit points on primary / secondary
};

// The per-(pair, sample) frame of the correspondence image: [Toth2010] §II.A.
struct Correspondence {
  const ModulePair* pair = nullptr;
  int primary = 0;    // index in pair->modules of the module FARTHER from v (ties: 0)
  int R = 1;
  Vec3 v{};
  Vec3 origin{};      // world point of pixel (0,0)'s lower-left corner = primary corner()
  Vec3 du{}, dv{};    // world step of one pixel along X and Y (pitch/R along axis_a/axis_t)
  int width = 0, height = 0;  // R·N_a, R·N_t
  double pixel_area = 0;      // ΔA = w·h/(N_a·N_t·R²)
  Vec3 sec_corner{};          // secondary corner() (cached)
  double sec_plane = 0;       // (c2 − v)·n2 (cached)

  Correspondence(const ModulePair& pair, const Vec3& v, int R);
  const Module& primary_module() const { return pair->modules[primary]; }
  const Module& secondary_module() const { return pair->modules[1 - primary]; }
  // World centre of pixel (X, Y): origin + (X+½)·du + (Y+½)·dv.
  Vec3 pixel_centre(int X, int Y) const {
    return add(origin, add(scale(du, X + 0.5), scale(dv, Y + 0.5)));
  }
  // The line of pixel (X, Y); `ext` null: geometry only (T = 1).
  Line trace(int X, int Y, const Extinction* ext, int K) const;
};

// Primary module of a sample: the one with the larger |(v − c)·n|; 0 on a tie.
int primary_module(const ModulePair& pair, const Vec3& v);

}  // namespace tomo::glpet
