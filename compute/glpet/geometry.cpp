// glpet geometry: module frames, pair validation, LOR offsets, per-voxel sample offsets.
#include "compute/glpet/geometry.hpp"

#include <algorithm>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::glpet {

double norm(const Vec3& a) { return std::sqrt(dot(a, a)); }

Vec3 Module::corner() const {
  return sub(centre, add(scale(axis_a, 0.5 * width()), scale(axis_t, 0.5 * height())));
}

Vec3 Module::point(double a, double t) const { return add(corner(), add(scale(axis_a, a), scale(axis_t, t))); }

double Module::distance(const Vec3& p) const { return std::fabs(dot(sub(p, centre), normal)); }

void Module::validate(const std::string& where) const {
  auto unit = [&](const Vec3& v, const char* name) {
    if (!std::isfinite(norm(v)) || std::fabs(norm(v) - 1.0) > 1e-9)
      throw InputError(str_cat(where, ": ", name, " must be a unit vector, has length ", norm(v)));
  };
  unit(normal, "normal");
  unit(axis_a, "axis_a");
  unit(axis_t, "axis_t");
  if (std::fabs(dot(axis_a, axis_t)) > 1e-9 || std::fabs(dot(axis_a, normal)) > 1e-9 ||
      std::fabs(dot(axis_t, normal)) > 1e-9)
    throw InputError(where + ": normal, axis_a and axis_t must be mutually orthogonal");
  if (n_a < 1 || n_t < 1) throw InputError(str_cat(where, ": detectors must be >= 1, got ", n_a, "x", n_t));
  if (!(pitch_a > 0) || !(pitch_t > 0) || !std::isfinite(pitch_a) || !std::isfinite(pitch_t))
    throw InputError(str_cat(where, ": pitch_mm must be > 0, got ", pitch_a, "x", pitch_t));
  for (double c : centre)
    if (!std::isfinite(c)) throw InputError(where + ": centre is not finite");
}

void ModulePair::validate(const std::string& where) const {
  modules[0].validate(where + " (first module)");
  modules[1].validate(where + " (second module)");
  if (modules[0].n_a != modules[1].n_a || modules[0].n_t != modules[1].n_t)
    throw InputError(str_cat(where, ": both modules of a pair need the same detector counts (", modules[0].n_a,
                             "x", modules[0].n_t, " vs ", modules[1].n_a, "x", modules[1].n_t,
                             "): the LOR atlas is N_a^2 x N_t^2"));
}

std::size_t Scanner::lor_offset(std::size_t pair) const {
  std::size_t off = 0;
  for (std::size_t i = 0; i < pair && i < pairs.size(); ++i) off += pairs[i].lor_count();
  return off;
}

std::size_t Scanner::lor_count() const { return lor_offset(pairs.size()); }

std::array<int, 2> Scanner::module_ids(std::size_t pair) const {
  if (pair < pair_modules.size()) return pair_modules[pair];
  return {int(2 * pair), int(2 * pair + 1)};
}

int Scanner::module_count() const {
  int n = 0;
  for (std::size_t p = 0; p < pairs.size(); ++p)
    for (int m : module_ids(p)) n = std::max(n, m + 1);
  return n;
}

void SystemModel::validate() const {
  if (scanner.pairs.empty()) throw InputError("glpet: the scanner has no module pair");
  for (std::size_t i = 0; i < scanner.pairs.size(); ++i) scanner.pairs[i].validate(str_cat("glpet: pair ", i));
  if (R < 1 || N < 1 || K < 1) throw InputError(str_cat("glpet: R, N and K must be >= 1, got ", R, ", ", N, ", ", K));
  if (sigma_t.grid != grid || sigma_t.data.size() != grid.count())
    throw InputError("glpet: the extinction volume is not on the voxel grid");
  for (float s : sigma_t.data)
    if (!std::isfinite(s) || s < 0) throw InputError(str_cat("glpet: extinction value ", s, " is not finite and >= 0"));
  // Voxel samples must lie strictly between the two planes of every pair: the line
  // set needs the secondary module on the far side of the sample (docs/glpet.md §2).
  for (std::size_t i = 0; i < scanner.pairs.size(); ++i) {
    const auto& m = scanner.pairs[i].modules;
    for (int c = 0; c < 8; ++c) {
      Vec3 p;
      for (int a = 0; a < 3; ++a)
        p[a] = grid.origin_mm[a] + ((c >> a) & 1 ? grid.dims[a] - 0.5 : -0.5) * grid.voxel_mm[a];
      const double s0 = dot(sub(p, m[0].centre), m[0].normal) * dot(sub(m[1].centre, m[0].centre), m[0].normal);
      const double s1 = dot(sub(p, m[1].centre), m[1].normal) * dot(sub(m[0].centre, m[1].centre), m[1].normal);
      if (s0 <= 0 || s1 <= 0)
        log_warn("glpet: voxel grid corner (", p[0], ", ", p[1], ", ", p[2], ") is not between the modules of pair ",
                 i, "; lines from there see no LOR");
    }
  }
}

std::vector<Vec3> sample_offsets(int n) {
  if (n <= 1) return {Vec3{0, 0, 0}};
  const double phi = 1.2207440846057596;  // plastic number: x³ = x + 1
  const Vec3 g{1 / phi, 1 / (phi * phi), 1 / (phi * phi * phi)};
  std::vector<Vec3> out(n);
  for (int i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) {
      const double u = 0.5 + (i + 1) * g[a];
      out[i][a] = (u - std::floor(u)) - 0.5;
    }
  return out;
}

}  // namespace tomo::glpet
