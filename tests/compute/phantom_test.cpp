// Tests of the analytic phantom: chord lengths against geometry and against numerical
// integration of `contains`, volumes against voxelisation, scene loading.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <string>

#include "compute/core/error.hpp"
#include "compute/core/phantom.hpp"
#include "compute/core/scene.hpp"

using namespace tomo;

namespace {

Vec3 add(const Vec3& a, const Vec3& b, double s = 1.0) { return {a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]}; }
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

Vec3 random_unit(std::mt19937_64& rng) {
  std::normal_distribution<double> n;
  Vec3 v{n(rng), n(rng), n(rng)};
  const double l = std::sqrt(dot(v, v));
  return {v[0] / l, v[1] / l, v[2] / l};
}

// Midpoint-rule length of {t in [0,1] : contains(a + t(b − a))}; each boundary crossing
// costs at most one step, so the error is at most (number of crossings)·|b − a|/n.
double numeric_chord(const Shape& s, const Vec3& a, const Vec3& b, int n) {
  const Vec3 d = add(b, a, -1.0);
  int inside = 0;
  for (int i = 0; i < n; ++i) inside += s.contains(add(a, d, (i + 0.5) / n));
  return std::sqrt(dot(d, d)) * inside / n;
}

}  // namespace

TEST(Phantom, SphereChordMatchesGeometry) {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(-20, 20), ur(1, 15);
  int hits = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    Shape s;
    s.centre = {u(rng), u(rng), u(rng)};
    const double r = ur(rng);
    s.semi_axes = {r, r, r};
    const Vec3 dir = random_unit(rng);
    const Vec3 p{u(rng), u(rng), u(rng)};  // a point on the line
    const Vec3 cp = add(s.centre, p, -1.0);
    const double dist = std::sqrt(dot(cross(cp, dir), cross(cp, dir)));
    const double expect = dist < r ? 2 * std::sqrt(r * r - dist * dist) : 0.0;
    hits += dist < r;
    // Infinite line through p and a segment long enough to contain the whole sphere.
    EXPECT_NEAR(s.chord_length(p, add(p, dir), true), expect, 1e-9 * (1 + r)) << trial;
    EXPECT_NEAR(s.chord_length(add(p, dir, -200), add(p, dir, 200)), expect, 1e-9 * (1 + r)) << trial;
  }
  EXPECT_GT(hits, 200);  // the sample is not all misses

  // A segment from the centre outward sees exactly one radius; one inside sees its own length.
  Shape s;
  s.semi_axes = {3, 3, 3};
  EXPECT_NEAR(s.chord_length({0, 0, 0}, {10, 0, 0}), 3.0, 1e-12);
  EXPECT_NEAR(s.chord_length({-1, 0, 0}, {1, 1, 0}), std::sqrt(5.0), 1e-12);
  EXPECT_EQ(s.chord_length({1, 1, 1}, {1, 1, 1}), 0.0);
}

TEST(Phantom, RotatedEllipsoidAndCylinderChordsMatchNumericalIntegration) {
  std::mt19937_64 rng(777);
  std::uniform_real_distribution<double> u(-1, 1), ang(-180, 180);
  constexpr int kSteps = 100000;
  for (auto kind : {Shape::Kind::Ellipsoid, Shape::Kind::Cylinder}) {
    Shape s;
    s.kind = kind;
    s.centre = {1.5, -2.0, 0.5};
    s.semi_axes = {6.0, 3.0, 4.5};
    s.axes = rotation_zyx_deg(30, -50, 70);
    int nonzero = 0;
    for (int trial = 0; trial < 60; ++trial) {
      // Endpoints in a box around the shape: segments end inside, outside, or straddle.
      Vec3 a, b;
      for (int k = 0; k < 3; ++k) {
        a[k] = s.centre[k] + 9 * u(rng);
        b[k] = s.centre[k] + 9 * u(rng);
      }
      const double len = std::sqrt(dot(add(b, a, -1.0), add(b, a, -1.0)));
      const double exact = s.chord_length(a, b);
      const double numeric = numeric_chord(s, a, b, kSteps);
      // Tolerance: a convex shape is crossed at most twice → 2 steps.
      EXPECT_NEAR(exact, numeric, 2.0 * len / kSteps + 1e-9)
          << (kind == Shape::Kind::Ellipsoid ? "ellipsoid" : "cylinder") << " trial " << trial;
      nonzero += exact > 0;
    }
    EXPECT_GT(nonzero, 20);
  }
  // A cylinder seen along its axis: the full length; across it: the diameter.
  Shape c;
  c.kind = Shape::Kind::Cylinder;
  c.semi_axes = {2, 2, 5};
  EXPECT_NEAR(c.chord_length({0.5, 0.5, -100}, {0.5, 0.5, 100}), 10.0, 1e-12);
  EXPECT_NEAR(c.chord_length({-100, 0, 1}, {100, 0, 1}), 4.0, 1e-12);
  EXPECT_EQ(c.chord_length({-100, 0, 6}, {100, 0, 6}), 0.0);
  EXPECT_NEAR(c.chord_length({0, 0, 0}, {0, 0, 1}, true), 10.0, 1e-12);
}

TEST(Phantom, RotationIsOrthonormalAndFollowsConvention) {
  const auto ax = rotation_zyx_deg(90, 0, 0);
  EXPECT_NEAR(ax[0][1], 1.0, 1e-12);  // local x → world +y
  EXPECT_NEAR(ax[1][0], -1.0, 1e-12);
  const auto r = rotation_zyx_deg(17, -41, 123);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(dot(r[i], r[j]), i == j ? 1.0 : 0.0, 1e-12);
  EXPECT_NEAR(dot(cross(r[0], r[1]), r[2]), 1.0, 1e-12);  // right-handed
}

TEST(Phantom, VoxelizedSphereIntegratesToAnalyticIntegral) {
  Phantom p;
  Shape s;
  s.semi_axes = {5.0, 5.0, 5.0};  // 10 voxels of 0.5 mm
  s.centre = {0.13, -0.21, 0.07};  // off the grid's symmetry
  s.value = 2.5;
  p.shapes.push_back(s);
  const Grid3 g = Grid3::centred({26, 26, 26}, {0.5, 0.5, 0.5});
  const VolumeF v = p.voxelize(g, 4);
  double sum = 0;
  for (float x : v.data) sum += x;
  sum *= 0.125;
  EXPECT_NEAR(sum, p.integral(), 0.01 * p.integral());
  EXPECT_NEAR(p.integral(), 2.5 * 4.0 / 3.0 * std::numbers::pi * 125.0, 1e-9);
  EXPECT_FLOAT_EQ(v.at(13, 13, 13), 2.5f);
  EXPECT_FLOAT_EQ(v.at(0, 0, 0), 0.0f);
}

TEST(Phantom, RotatedCylinderVolumeAndAdditiveValues) {
  Phantom p;
  Shape c;
  c.kind = Shape::Kind::Cylinder;
  c.semi_axes = {3.0, 2.0, 4.0};
  c.axes = rotation_zyx_deg(20, 35, -10);
  c.value = 1.0;
  Shape e;
  e.semi_axes = {1, 1, 1};
  e.value = -0.25;
  p.shapes = {c, e};
  EXPECT_NEAR(c.volume(), std::numbers::pi * 3 * 2 * 8, 1e-9);
  EXPECT_DOUBLE_EQ(p.value_at({0, 0, 0}), 0.75);   // overlap adds
  EXPECT_DOUBLE_EQ(p.value_at({0, 0, 50}), 0.0);
  const Grid3 g = Grid3::centred({24, 24, 24}, {0.5, 0.5, 0.5});
  const VolumeF v = p.voxelize(g, 3);
  double sum = 0;
  for (float x : v.data) sum += x;
  EXPECT_NEAR(sum * 0.125, p.integral(), 0.01 * p.integral());
  // Line integral = Σ value·chord.
  const Vec3 a{-20, 0.1, 0.2}, b{20, 0.1, 0.2};
  EXPECT_NEAR(p.line_integral(a, b), c.chord_length(a, b) - 0.25 * e.chord_length(a, b), 1e-12);
}

TEST(Phantom, FromScene) {
  const Scene scene = Scene::load_string(R"(
problem = "demo"
[[demo.phantom]]
type = "sphere"
centre = [1, 2, 3]
radius = 4
value = 1.5
[[demo.phantom]]
type = "ellipsoid"
centre = [0, 0, 0]
semi_axes = [5, 6, 7]
angles = [90, 0, 0]
value = -0.5
[[demo.phantom]]
type = "cylinder"
centre = [0, 0, 0]
radii = [2, 3]
length = 10
value = 2
)", "test.toml");
  const Phantom p = Phantom::from_scene(scene, "demo.phantom");
  ASSERT_EQ(p.shapes.size(), 3u);
  EXPECT_EQ(p.shapes[0].semi_axes, (Vec3{4, 4, 4}));
  EXPECT_EQ(p.shapes[0].centre, (Vec3{1, 2, 3}));
  EXPECT_EQ(p.shapes[0].value, 1.5);
  EXPECT_NEAR(p.shapes[1].axes[0][1], 1.0, 1e-12);
  EXPECT_EQ(p.shapes[2].kind, Shape::Kind::Cylinder);
  EXPECT_EQ(p.shapes[2].semi_axes, (Vec3{2, 3, 5}));

  const Scene bad = Scene::load_string(R"(
[[demo.phantom]]
type = "cube"
centre = [0, 0, 0]
value = 1
)", "bad.toml");
  try {
    Phantom::from_scene(bad, "demo.phantom");
    FAIL() << "unknown type accepted";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("demo.phantom[0].type"), std::string::npos) << m;
    EXPECT_NE(m.find("cube"), std::string::npos) << m;
  }
  const Scene noval = Scene::load_string("[[demo.phantom]]\ntype = \"sphere\"\ncentre = [0,0,0]\nradius = 1\n", "nv.toml");
  EXPECT_THROW(Phantom::from_scene(noval, "demo.phantom"), InputError);
  const Scene negr = Scene::load_string("[[demo.phantom]]\ntype = \"sphere\"\ncentre = [0,0,0]\nradius = -1\nvalue = 1\n", "nr.toml");
  EXPECT_THROW(Phantom::from_scene(negr, "demo.phantom"), InputError);
  EXPECT_THROW(Phantom::from_scene(negr, "demo.absent"), InputError);
}
