// The safir scanner (rings × crystals on a cylinder, [Locans2017] §5.4) and the image box, read from
// the [safir] scene section; crystal ids are ring·crystals + detector, as STIR's SAFIR map.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "compute/core/sensitivity_mask.hpp"
#include "compute/core/volume.hpp"
#include "compute/safir/kernel_math.hpp"

namespace tomo {
class Scene;
}

namespace tomo::safir {

struct Scanner {
  int rings = 91;
  int crystals = 180;          // per ring
  double pitch_mm = 2.2;       // transaxial and axial crystal pitch
  double crystal_mm = 2.0;     // crystal face (square); pitch − face is the gap
  double depth_mm = 12.0;      // radial length
  double radius_mm = 0.0;      // front-face radius; 0 → pitch / (2 sin(π / crystals))

  double radius() const;
  double ring_z(int ring) const { return pitch_mm * (ring - 0.5 * (rings - 1)); }
  double angle(int det) const;  // 2π det / crystals
  std::uint32_t crystal_count() const { return static_cast<std::uint32_t>(rings) * crystals; }
  // Unordered crystal pairs: the LORs a list-mode event can lie on.
  double lor_count() const { return 0.5 * double(crystal_count()) * (double(crystal_count()) - 1.0); }
  std::uint32_t id(int ring, int det) const { return static_cast<std::uint32_t>(ring) * crystals + det; }
  // Front-face centre of every crystal (x, y, z in mm), id order: the LOR end points.
  std::vector<std::array<double, 3>> positions() const;
  double axial_extent() const { return rings * pitch_mm; }
  void validate(const std::string& where) const;
};

struct ImageBox {
  std::array<int, 3> n{90, 90, 50};
  double voxel_mm = 0.7;
  double md = 1.0;  // m_d of eq. (12) in voxels (docs/safir.md, open point 1)

  Grid3 grid() const { return Grid3::centred(n, {voxel_mm, voxel_mm, voxel_mm}); }
  std::size_t count() const { return grid().count(); }
  template <class T>
  BoxParams<T> params() const {
    const Grid3 g = grid();
    BoxParams<T> p{};
    for (int i = 0; i < 3; ++i) {
      p.origin[i] = static_cast<T>(g.origin_mm[i]);
      p.n[i] = n[i];
    }
    p.voxel = static_cast<T>(voxel_mm);
    p.md = static_cast<T>(md);
    return p;
  }
};

// A coincidence: two crystal ids (a ≠ b expected; a == b is labelled 0 and ignored).
struct Event {
  std::uint32_t a = 0, b = 0;
};

// The scanner's field of view: the cylinder of the crystals' front faces (radius()) about the z
// axis over the rings' axial extent (± rings·pitch / 2).
FieldOfView field_of_view(const Scanner& sc);

Scanner scanner_from_scene(const Scene& s);
ImageBox image_from_scene(const Scene& s);

}  // namespace tomo::safir
