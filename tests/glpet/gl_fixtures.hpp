// Shared inputs of the glpet GL backend tests: the small system (8×8 modules, 16³ voxels,
// R = 2) with an attenuating water cylinder and a denser sphere, a test image, a LOR
// vector, the relative L2 difference and the count of lines whose secondary differs.
#pragma once
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "compute/core/metrics.hpp"
#include "compute/core/phantom.hpp"
#include "compute/core/registry.hpp"
#include "compute/glpet/cpu_projector.hpp"
#include "compute/glpet/line_set.hpp"
#include "compute/glpet/projector.hpp"
#include "tests/glpet/small_system.hpp"

namespace tomo::glpet::test {

inline SystemModel attenuating_system(int voxels = 16, int R = 2, int K = 16) {
  SystemModel sys = small_system(voxels, 32.0 / voxels, R, K);
  Phantom att;
  Shape water;
  water.kind = Shape::Kind::Cylinder;
  water.semi_axes = {13, 13, 15};
  water.value = 0.0096;
  att.shapes.push_back(water);
  Shape bone;
  bone.centre = {-5, 3, -2};
  bone.semi_axes = {4, 4, 4};
  bone.value = 0.02;
  att.shapes.push_back(bone);
  sys.sigma_t = att.voxelize(sys.grid, 2);
  return sys;
}

// A second, orthogonal pair (modules at x = ±40 facing each other): exercises other
// orientations, the primary choice and the atlas offsets of a second pair.
inline void add_side_pair(SystemModel& sys) {
  Module a = plane_module(0, 1), b = plane_module(0, 1);
  a.centre = {-40, 0, 0};
  a.normal = {1, 0, 0};
  a.axis_a = {0, 0, 1};
  a.axis_t = {0, 1, 0};
  b.centre = {40, 0, 0};
  b.normal = {-1, 0, 0};
  b.axis_a = {0, 1, 0};
  b.axis_t = {0, 0, 1};
  sys.scanner.pairs.push_back(ModulePair{{a, b}});
}

// A pair of NON-parallel modules, tilted about y by different angles: a general camera
// (the paper's rotation α, shear and perspective with an off-axis window).
inline void add_tilted_pair(SystemModel& sys) {
  ModulePair tilted{{plane_module(-40, 1), plane_module(40, -1)}};
  const double angle[2] = {0.3, -0.15};
  for (int i = 0; i < 2; ++i) {
    Module& m = tilted.modules[i];
    const double sgn = i == 0 ? 1 : -1, a = angle[i];
    m.centre = {-42 * std::sin(a) * sgn + 3, 1.5, -42 * std::cos(a) * sgn};
    m.normal = {std::sin(a) * sgn, 0, std::cos(a) * sgn};
    m.axis_a = {std::cos(a), 0, -std::sin(a)};
    m.axis_t = {0, 1, 0};
  }
  sys.scanner.pairs.push_back(tilted);
}

// Activity: a hot sphere on a 5 % floor.
inline std::vector<float> test_image(const SystemModel& sys) {
  Phantom act;
  Shape s;
  s.centre = {6, -4, 4};
  s.semi_axes = {6, 6, 6};
  s.value = 1.0;
  act.shapes.push_back(s);
  VolumeF v = act.voxelize(sys.grid, 2);
  for (float& x : v.data) x += 0.05f;
  return v.data;
}

// A positive LOR vector with structure: 1 + 0.5·sin(l·0.37).
inline std::vector<float> test_lors(const SystemModel& sys) {
  std::vector<float> z(sys.lor_count());
  for (std::size_t l = 0; l < z.size(); ++l) z[l] = float(1.0 + 0.5 * std::sin(0.37 * double(l)));
  return z;
}

// The project's one relative L2 (compute/core/metrics.hpp), under the name these tests use.
inline double rel_l2(const std::vector<float>& a, const std::vector<float>& ref) { return tomo::relative_l2(a, ref); }

struct LineDiff {
  std::size_t lines = 0;      // pixels hit in either image
  std::size_t differ = 0;     // of those: another secondary detector, or hit in one only
  double weight_rel = 0;      // max relative weight difference over lines hit in both with the same (r, s)
};

inline LineDiff compare_images(const std::vector<CorrespondencePixel>& a, const std::vector<CorrespondencePixel>& ref) {
  LineDiff d;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const bool ha = a[i].r >= 0, hr = ref[i].r >= 0;
    if (!ha && !hr) continue;
    ++d.lines;
    if (ha != hr || a[i].r != ref[i].r || a[i].s != ref[i].s) {
      ++d.differ;
      continue;
    }
    d.weight_rel = std::max(d.weight_rel, std::abs(double(a[i].weight) - ref[i].weight) / std::abs(double(ref[i].weight)));
  }
  return d;
}

// Distance (in detector units) of the secondary hit of pixel (X, Y) to the nearest detector
// boundary of the secondary module (edges between detectors and the module's outline).
inline double edge_distance(const ModulePair& pair, const Vec3& v, int R, int X, int Y) {
  const Correspondence c(pair, v, R);
  const Module& m2 = c.secondary_module();
  const Vec3 d = sub(c.pixel_centre(X, Y), v);
  const Vec3 y2 = add(v, scale(d, c.sec_plane / dot(d, m2.normal)));
  const Vec3 rel = sub(y2, c.sec_corner);
  const double a = dot(rel, m2.axis_a) / m2.pitch_a, t = dot(rel, m2.axis_t) / m2.pitch_t;
  return std::min(std::abs(a - std::round(a)), std::abs(t - std::round(t)));
}

// Probe sample positions: the grid's corners, centre and off-grid points.
inline std::vector<Vec3> probe_points() {
  return {{0.3, -0.2, 0.1}, {-15, -15, -15}, {15, 15, 15}, {15, -15, 0.5}, {-7.3, 11.1, -13.9},
          {9.9, 2.2, 14.2},  {1, 1, -1},      {-3, 5, 7}};
}

inline std::unique_ptr<Projector> make_backend(const std::string& name, const SystemModel& sys) {
  auto op = BackendRegistry<Projector>::instance().create(name);
  op->configure(sys);
  return op;
}

// The correspondence images of `backend` against the cpu's, summed over the three pairs of the
// attenuating system with a side and a tilted pair added, at `probes`. Fails the calling test
// (gtest ADD_FAILURE) where an image is missing or of another size.
inline LineDiff correspondence_agreement(const std::string& backend, const std::vector<Vec3>& probes) {
  SystemModel sys = attenuating_system();
  add_side_pair(sys);
  add_tilted_pair(sys);
  CpuProjector cpu;
  cpu.configure(sys);
  auto gpu = make_backend(backend, sys);
  LineDiff sum;
  for (std::size_t pair = 0; pair < 3; ++pair)
    for (const Vec3& v : probes) {
      std::vector<CorrespondencePixel> a, ref;
      if (!cpu.correspondence_image(pair, v, ref) || !gpu->correspondence_image(pair, v, a) || a.size() != ref.size()) {
        ADD_FAILURE() << backend << ": no correspondence image, or one of another size, for pair " << pair;
        continue;
      }
      const LineDiff d = compare_images(a, ref);
      sum.lines += d.lines;
      sum.differ += d.differ;
      sum.weight_rel = std::max(sum.weight_rel, d.weight_rel);
    }
  return sum;
}

}  // namespace tomo::glpet::test
