// Scanner and image box of the [safir] scene section.
#include "compute/safir/scanner.hpp"

#include <cmath>
#include <numbers>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"

namespace tomo::safir {

double Scanner::radius() const {
  return radius_mm > 0 ? radius_mm : pitch_mm / (2.0 * std::sin(std::numbers::pi / crystals));
}

double Scanner::angle(int det) const { return 2.0 * std::numbers::pi * det / crystals; }

std::vector<std::array<double, 3>> Scanner::positions() const {
  std::vector<std::array<double, 3>> out(crystal_count());
  const double r = radius();
  for (int ring = 0; ring < rings; ++ring)
    for (int d = 0; d < crystals; ++d) out[id(ring, d)] = {r * std::cos(angle(d)), r * std::sin(angle(d)), ring_z(ring)};
  return out;
}

void Scanner::validate(const std::string& where) const {
  if (crystal_mm > pitch_mm)
    throw InputError(str_cat(where, ": crystal_mm = ", crystal_mm, " is larger than pitch_mm = ", pitch_mm));
  if (radius_mm > 0 && 2 * std::numbers::pi * radius_mm < crystals * crystal_mm)
    throw InputError(str_cat(where, ": ", crystals, " crystals of ", crystal_mm, " mm do not fit on radius ", radius_mm, " mm"));
}

Scanner scanner_from_scene(const Scene& s) {
  Scanner sc;
  sc.rings = s.get_int_in_range("safir.rings", 91, 1, 255);          // 8-bit ring in the .clm.safir format
  sc.crystals = s.get_int_in_range("safir.crystals", 180, 4, 65535);  // 16-bit detector
  sc.pitch_mm = s.get_in_range("safir.pitch_mm", 2.2, 1e-3, 1e3);
  sc.crystal_mm = s.get_in_range("safir.crystal_mm", std::min(2.0, sc.pitch_mm), 1e-3, 1e3);
  sc.depth_mm = s.get_in_range("safir.crystal_depth_mm", 12.0, 1e-3, 1e3);
  sc.radius_mm = s.get_in_range("safir.radius_mm", 0.0, 0.0, 1e5);
  sc.validate(s.where("safir"));
  return sc;
}

ImageBox image_from_scene(const Scene& s) {
  ImageBox b;
  const auto n = s.get<std::vector<int>>("safir.image", {90, 90, 50});
  if (n.size() != 3) throw InputError(s.where("safir.image") + " must hold three voxel counts [nx, ny, nz]");
  for (int a = 0; a < 3; ++a) {
    if (n[a] < 1 || n[a] > 2048)
      throw InputError(str_cat(s.where("safir.image"), ": ", n[a], " voxels is outside 1..2048"));
    b.n[a] = n[a];
  }
  b.voxel_mm = s.get_in_range("safir.voxel_mm", 0.7, 1e-3, 1e3);
  b.md = s.get_in_range("safir.m_d", 1.0, 0.5, std::sqrt(2.0) + 1e-9);
  return b;
}

FieldOfView field_of_view(const Scanner& sc) {
  FieldOfView f;
  f.radius_mm = sc.radius();
  f.z_min_mm = -0.5 * sc.axial_extent();
  f.z_max_mm = 0.5 * sc.axial_extent();
  return f;
}

}  // namespace tomo::safir
