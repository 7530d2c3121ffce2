// Ring-of-modules scanner geometry ([glpet.ring]): module placement and facing pairs.
#include "compute/glpet/ring.hpp"

#include <cmath>
#include <numbers>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"

namespace tomo::glpet {

std::vector<Module> ring_modules(const Ring& r) {
  std::vector<Module> out;
  for (int i = 0; i < r.modules; ++i) {
    const double phi = (r.phase_deg + 360.0 * i / r.modules) * std::numbers::pi / 180.0;
    const double c = std::cos(phi), s = std::sin(phi);
    Module m;
    m.centre = add(r.centre, {r.radius_mm * c, r.radius_mm * s, 0.0});
    m.normal = {-c, -s, 0.0};
    m.axis_a = {-s, c, 0.0};
    m.axis_t = {0.0, 0.0, 1.0};
    m.n_a = r.n_a;
    m.n_t = r.n_t;
    m.pitch_a = r.pitch_a;
    m.pitch_t = r.pitch_t;
    out.push_back(m);
  }
  return out;
}

std::vector<std::array<int, 2>> ring_pairs(int modules, int span) {
  std::vector<std::array<int, 2>> out;
  for (int i = 0; i < modules; ++i)
    for (int j = i + 1; j < modules; ++j) {
      const int d = std::min(j - i, modules - (j - i));
      if (d >= modules / 2 - span) out.push_back({i, j});
    }
  return out;
}

Scanner ring_scanner(const Ring& r) {
  const auto modules = ring_modules(r);
  Scanner sc;
  for (const auto& ij : ring_pairs(r.modules, r.span)) {
    sc.pairs.push_back(ModulePair{{modules[ij[0]], modules[ij[1]]}});
    sc.pair_modules.push_back(ij);
  }
  return sc;
}

Ring read_ring(const Scene& s) {
  Ring r;
  r.modules = s.get_int_in_range("glpet.ring.modules", r.modules, 3, 256);
  r.radius_mm = s.get_in_range("glpet.ring.radius_mm", r.radius_mm, 1e-3, 1e5);
  const auto n = s.get<std::vector<int>>("glpet.ring.detectors", {r.n_a, r.n_t});
  if (n.size() != 2 || n[0] < 1 || n[1] < 1 || n[0] > 4096 || n[1] > 4096)
    throw InputError(s.where("glpet.ring.detectors") + " must be [N_a, N_t] with 1 <= N <= 4096");
  r.n_a = n[0];
  r.n_t = n[1];
  const auto p = s.get<std::vector<double>>("glpet.ring.pitch_mm", {r.pitch_a, r.pitch_t});
  if (p.size() != 2 || !(p[0] > 0) || !(p[1] > 0) || !std::isfinite(p[0]) || !std::isfinite(p[1]))
    throw InputError(s.where("glpet.ring.pitch_mm") + " must be [pitch_a, pitch_t] > 0 (mm)");
  r.pitch_a = p[0];
  r.pitch_t = p[1];
  r.span = s.get_int_in_range("glpet.ring.span", r.span, 0, r.modules / 2 - 1);
  r.phase_deg = s.get_in_range("glpet.ring.phase_deg", r.phase_deg, -360.0, 360.0);
  r.centre = s.get<std::array<double, 3>>("glpet.ring.centre", r.centre);
  for (double c : r.centre)
    if (!std::isfinite(c) || std::fabs(c) > 1e5) throw InputError(s.where("glpet.ring.centre") + " must be finite");
  // Neighbouring modules touch when the width equals the polygon's side: wider ones overlap.
  const double side = 2 * r.radius_mm * std::tan(std::numbers::pi / r.modules);
  if (r.n_a * r.pitch_a > side * (1 + 1e-9))
    throw InputError(s.where("glpet.ring.detectors") +
                     str_cat(": modules ", r.n_a * r.pitch_a, " mm wide overlap on a ring of ", r.modules,
                             " at radius ", r.radius_mm, " mm (at most ", side, " mm)"));
  return r;
}

FieldOfView ring_field_of_view(const Ring& ring) {
  FieldOfView f;
  f.axis_xy = {ring.centre[0], ring.centre[1]};
  f.radius_mm = ring.radius_mm;
  const double half = 0.5 * ring.n_t * ring.pitch_t;
  f.z_min_mm = ring.centre[2] - half;
  f.z_max_mm = ring.centre[2] + half;
  return f;
}

}  // namespace tomo::glpet
