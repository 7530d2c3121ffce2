// glpet scanner geometry ([Toth2010] §I–II): planar detector modules, module pairs with
// their LOR atlases, the voxel grid and the per-voxel sample offsets every backend shares.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "compute/core/phantom.hpp"
#include "compute/core/volume.hpp"

namespace tomo::glpet {

inline double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
inline Vec3 add(const Vec3& a, const Vec3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
inline Vec3 sub(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
inline Vec3 scale(const Vec3& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
inline Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double norm(const Vec3& a);

// A plane of n_a × n_t detectors. Detector (i, j) covers the local rectangle
// a ∈ [i·pitch_a, (i+1)·pitch_a), t ∈ [j·pitch_t, (j+1)·pitch_t), where local (a, t)
// is measured from corner() along axis_a and axis_t.
struct Module {
  Vec3 centre{0, 0, 0};
  Vec3 normal{0, 0, 1};  // unit; its sign does not matter to the line set
  Vec3 axis_a{1, 0, 0};  // unit, in-plane: direction of the first index (a, N_a)
  Vec3 axis_t{0, 1, 0};  // unit, in-plane, ⟂ axis_a: direction of the second index (t, N_t)
  int n_a = 1, n_t = 1;
  double pitch_a = 1.0, pitch_t = 1.0;  // mm

  double width() const { return n_a * pitch_a; }   // paper's w
  double height() const { return n_t * pitch_t; }  // paper's h
  Vec3 corner() const;                             // local (0, 0)
  Vec3 point(double a, double t) const;            // world point of local (a, t)
  double distance(const Vec3& p) const;            // |(p − centre)·normal|
  // Throws InputError (prefixed by `where`) unless axes are unit, orthogonal, counts > 0.
  void validate(const std::string& where) const;
};

// Two modules facing each other. modules[0] is the pair's FIRST module: atlas texel
// (u, v) = (i0·N_a + i1, j0·N_t + j1) with (i0, j0) on modules[0] and (i1, j1) on
// modules[1], whichever of them is primary for a voxel (docs/glpet.md §2).
struct ModulePair {
  std::array<Module, 2> modules;
  int n_a() const { return modules[0].n_a; }
  int n_t() const { return modules[0].n_t; }
  int atlas_width() const { return n_a() * n_a(); }   // N_a²
  int atlas_height() const { return n_t() * n_t(); }  // N_t²
  std::size_t lor_count() const { return std::size_t(atlas_width()) * atlas_height(); }
  // Flat index inside this pair's atlas (row-major, u fastest: GL texel order).
  std::size_t lor_index(int i0, int j0, int i1, int j1) const {
    const std::size_t u = std::size_t(i0) * n_a() + i1, v = std::size_t(j0) * n_t() + j1;
    return v * atlas_width() + u;
  }
  void validate(const std::string& where) const;  // both modules valid and of equal N_a, N_t
};

struct Scanner {
  std::vector<ModulePair> pairs;
  // Scene indices of each pair's (first, second) module, as list-mode events name them;
  // empty (scanners built in code): pair p joins modules 2p and 2p+1.
  std::vector<std::array<int, 2>> pair_modules;
  // LOR vectors concatenate the atlases of all pairs in order.
  std::size_t lor_offset(std::size_t pair) const;
  std::size_t lor_count() const;
  std::array<int, 2> module_ids(std::size_t pair) const;
  int module_count() const;  // 1 + the largest module index of any pair
};

// Everything a projector needs: geometry, voxel grid, extinction volume and the
// sampling parameters R (lines per detector side), N (samples per voxel), K (ray-march samples).
struct SystemModel {
  Scanner scanner;
  Grid3 grid;
  VolumeF sigma_t;  // on `grid`, 1/mm; all zeros = no attenuation
  int R = 4;
  int N = 1;
  int K = 32;

  std::size_t voxel_count() const { return grid.count(); }
  std::size_t lor_count() const { return scanner.lor_count(); }
  void validate() const;  // throws InputError naming the problem
};

// Offsets of the N samples inside a voxel, in voxel units, in [−0.5, 0.5)³; the same
// for every voxel and every backend. N = 1: the centre. N > 1: the 3D additive
// recurrence with the plastic-number generalisation of the golden ratio, u_i =
// frac(0.5 + (i+1)·g) − 0.5 with g = (1/φ₃, 1/φ₃², 1/φ₃³), φ₃ = 1.2207440846057596.
std::vector<Vec3> sample_offsets(int n);

// World position (mm) of sample `s` of voxel (i, j, k).
inline Vec3 sample_position(const Grid3& g, int i, int j, int k, const Vec3& off) {
  return {g.origin_mm[0] + (i + off[0]) * g.voxel_mm[0], g.origin_mm[1] + (j + off[1]) * g.voxel_mm[1],
          g.origin_mm[2] + (k + off[2]) * g.voxel_mm[2]};
}

}  // namespace tomo::glpet
