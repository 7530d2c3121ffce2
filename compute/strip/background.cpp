// Randoms and scatter of the two-strip detector (background.hpp).
#include "compute/strip/background.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/strip/kernel_math.hpp"

namespace tomo::strip {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr std::uint64_t kMaxTries = 1000;  // sampled points per scattered pair before giving up

Event smeared(std::mt19937_64& rng, const Resolution& res, double z_u, double z_d, double dl) {
  std::normal_distribution<double> n01(0.0, 1.0);
  const double a = n01(rng), b = n01(rng), c = n01(rng);
  return {float(z_u + res.sigma_z * a), float(z_d + res.sigma_z * b), float(dl + res.sigma_dl * c)};
}

}  // namespace

std::vector<Event> add_background(const StripGeometry& g, const Resolution& res, const StripPhantom& phantom,
                                  std::vector<Event> trues, double fr, double fs, std::uint64_t seed) {
  if (!(fr >= 0) || !(fs >= 0) || !(fr + fs < 1))
    throw InputError(str_cat("strip simulator: randoms and scatter fractions ", fr, ", ", fs,
                             " must be >= 0 and add up to less than 1"));
  const double n = double(trues.size()) / (1.0 - fr - fs);
  const auto randoms = std::uint64_t(std::llround(fr * n)), scattered = std::uint64_t(std::llround(fs * n));
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 0x5bd1e995ull);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  const double R = g.R, L = g.L;
  for (std::uint64_t i = 0; i < randoms; ++i)
    trues.push_back(smeared(rng, res, (u01(rng) - 0.5) * L, (u01(rng) - 0.5) * L, (u01(rng) - 0.5) * 4.0 * R));
  const double vmax = phantom.max_value();
  const auto bb = phantom.bounds();
  const double y0 = std::max(bb[0], -R), y1 = std::min(bb[1], R), z0 = std::max(bb[2], -0.5 * L),
               z1 = std::min(bb[3], 0.5 * L);
  if (scattered > 0 && (!(vmax > 0) || !(y1 > y0) || !(z1 > z0)))
    throw InputError("strip simulator: scatter needs a phantom inside the strips");
  for (std::uint64_t i = 0, tries = 0; i < scattered;) {
    if (++tries > kMaxTries * (scattered + 1))
      throw InputError("strip simulator: the phantom gives (almost) no scattered pairs on the strips");
    const double y = y0 + (y1 - y0) * u01(rng), z = z0 + (z1 - z0) * u01(rng);
    if (u01(rng) * vmax >= phantom.value_at(y, z)) continue;
    // Each photon of the pair goes up or down with a uniform angle of its own; the pair counts
    // when both hit their strips.
    const double tu = std::tan((u01(rng) - 0.5) * kPi), td = std::tan((u01(rng) - 0.5) * kPi);
    const double zu = z + (R - y) * tu, zd = z - (R + y) * td;
    if (std::abs(zu) > 0.5 * L || std::abs(zd) > 0.5 * L) continue;
    const double dl = std::hypot(R - y, zu - z) - std::hypot(R + y, zd - z);
    trues.push_back(smeared(rng, res, zu, zd, dl));
    ++i;
  }
  std::shuffle(trues.begin(), trues.end(), rng);
  return trues;
}

std::vector<double> additive_counts(const StripGeometry& g, std::span<const Event> events,
                                    std::span<const double> density, std::span<const double> s) {
  if (density.size() != events.size() || s.size() != g.pixel_count())
    throw Error("strip: additive densities or sensitivity of the wrong size");
  const auto kp = make_kernel_params<double>(g.R, 1.0, 1.0);  // R only: eq. (2) needs no resolution
  const auto grid = g.grid<double>();
  std::vector<double> c(events.size(), 0.0);
  for (std::size_t e = 0; e < events.size(); ++e) {
    const auto f = make_frame<double>(events[e].z_u, events[e].z_d, events[e].dl, kp);
    const long j = std::lround((f.y - grid.y0) / grid.py), k = std::lround((f.z - grid.z0) / grid.pz);
    if (j < 0 || k < 0 || j >= g.n_y || k >= g.n_z) continue;
    c[e] = density[e] * s[g.index(int(j), int(k))];
  }
  return c;
}

}  // namespace tomo::strip
