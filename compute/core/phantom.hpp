// Analytic phantoms: spheres, ellipsoids and cylinders with values that add up
// where they overlap (Shepp–Logan style). Point values, exact chord lengths for
// line integrals, and voxelisation with supersampling. Built from scene tables.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "compute/core/volume.hpp"

namespace tomo {

class Scene;
using Vec3 = std::array<double, 3>;

struct Shape {
  enum class Kind { Ellipsoid, Cylinder };  // a sphere is an ellipsoid with equal axes
  Kind kind = Kind::Ellipsoid;
  Vec3 centre{0, 0, 0};
  // Ellipsoid: semi-axes. Cylinder: radii in its local x/y and half-length along local z.
  Vec3 semi_axes{1, 1, 1};
  // Rotation: local axes expressed in world coordinates (rows), orthonormal.
  std::array<Vec3, 3> axes{Vec3{1, 0, 0}, Vec3{0, 1, 0}, Vec3{0, 0, 1}};
  double value = 1.0;

  bool contains(const Vec3& p) const;
  // Length of the part of segment a→b (or the infinite line when infinite=true) inside.
  double chord_length(const Vec3& a, const Vec3& b, bool infinite = false) const;
  double volume() const;
};

// Rotation from Euler angles in degrees (z, then y, then x: phi, theta, psi):
// world = Rz(phi)·Ry(theta)·Rx(psi)·local; returns the local axes in world coordinates (rows).
// phi = 90 turns the local x axis onto world +y (the 2D Shepp–Logan convention).
std::array<Vec3, 3> rotation_zyx_deg(double phi, double theta, double psi);

struct Phantom {
  std::vector<Shape> shapes;

  double value_at(const Vec3& p) const;
  // ∫ f along the segment a→b in mm·value (the line integral of the phantom).
  double line_integral(const Vec3& a, const Vec3& b) const;
  // Σ value·volume: the integral of the phantom over space.
  double integral() const;
  // Mean value over each voxel from s×s×s sub-samples (s = 1: the centre).
  VolumeF voxelize(const Grid3& grid, int supersampling) const;

  // Reads an array of tables such as [[glpet.activity]] with keys
  // type = "sphere"|"ellipsoid"|"cylinder", centre = [x,y,z] (mm),
  // radius | semi_axes | (radius or radii = [rx, ry], length = full length along local z),
  // angles = [phi, theta, psi] (deg, optional), value. centre and value are required.
  // InputError naming the key when the array is absent/empty or an entry is malformed.
  static Phantom from_scene(const Scene& scene, const std::string& key);
};

}  // namespace tomo
