// The [glpet.ring] generator: a ring of identical planar modules around the z axis, each
// paired with the modules facing it, so a scene need not list 12 modules and 18 pairs.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "compute/core/sensitivity_mask.hpp"
#include "compute/glpet/geometry.hpp"

namespace tomo {
class Scene;
}

namespace tomo::glpet {

struct Ring {
  int modules = 12;          // M, around the z axis
  double radius_mm = 60;     // axis to each module's centre (the inscribed radius of the polygon)
  int n_a = 8, n_t = 8;      // detectors: n_a tangential (axis_a), n_t axial (axis_t = +z)
  double pitch_a = 4, pitch_t = 4;
  int span = 1;              // pair module i with the one opposite and `span` neighbours of it on each side
  double phase_deg = 0;      // azimuth of module 0's centre, from +x towards +y
  Vec3 centre{0, 0, 0};
};

// Module i sits at azimuth φ_i = phase + 360°·i/M: centre = c + r·(cos φ, sin φ, 0), normal
// pointing at the axis (−cos φ, −sin φ, 0), axis_a = (−sin φ, cos φ, 0) (counter-clockwise),
// axis_t = (0, 0, 1).
std::vector<Module> ring_modules(const Ring& ring);
// Pairs (i, j), i < j, whose distance around the ring min(j − i, M − (j − i)) is at least
// ⌊M/2⌋ − span; ordered by i, then j. The pair's first module is i.
std::vector<std::array<int, 2>> ring_pairs(int modules, int span);
// The scanner of a ring; Scanner::pair_modules holds the indices of ring_pairs.
Scanner ring_scanner(const Ring& ring);

// The ring's field of view: the cylinder inscribed in the modules (radius_mm about the ring's
// axis) over their axial extent (centre z ± n_t·pitch_t / 2).
FieldOfView ring_field_of_view(const Ring& ring);

// [glpet.ring] keys (docs/glpet.md §4); InputError naming the key for values out of range or
// modules that would overlap (n_a·pitch_a > 2·r·tan(180°/M)).
Ring read_ring(const Scene& scene);

}  // namespace tomo::glpet
