// Flat- and dark-field correction (see flat_field.hpp).
#include "compute/fdk/flat_field.hpp"

#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::fdk {

std::vector<float> mean_image(const RawStack& s) {
  const std::size_t image = static_cast<std::size_t>(s.rows) * s.cols;
  std::vector<double> sum(image, 0.0);
  for (int n = 0; n < s.count; ++n)
    for (std::size_t i = 0; i < image; ++i) sum[i] += s.pixels[n * image + i];
  std::vector<float> out(image);
  for (std::size_t i = 0; i < image; ++i) out[i] = static_cast<float>(sum[i] / s.count);
  return out;
}

FlatFieldCounts flat_dark_to_line_integrals(RawStack& s, std::span<const float> flat, std::span<const float> dark,
                                            const std::string& where) {
  const std::size_t image = static_cast<std::size_t>(s.rows) * s.cols;
  if (flat.size() != image || (!dark.empty() && dark.size() != image))
    throw InputError(str_cat(where, ": the projections are ", s.cols, " x ", s.rows, " pixels (columns x rows), but the ",
                             flat.size() != image ? "flat" : "dark", " field has ",
                             flat.size() != image ? flat.size() : dark.size(), " pixels"));
  constexpr double kFloor = 1e-6;
  FlatFieldCounts c;
  for (std::size_t i = 0; i < image; ++i) {
    const double d = dark.empty() ? 0.0 : dark[i];
    const double beam = flat[i] - d;
    for (int n = 0; n < s.count; ++n) {
      float& p = s.pixels[n * image + i];
      if (!(beam > 0)) {
        p = 0.0f;
        ++c.dead;
        continue;
      }
      double t = (p - d) / beam;
      if (!(t >= kFloor)) t = kFloor, ++c.clamped;
      p = static_cast<float>(-std::log(t));
    }
  }
  if (c.dead) log_warn(where, ": ", c.dead / s.count, " pixels have a flat field at or below the dark field; their line integrals are set to 0");
  if (c.clamped) log_warn(where, ": ", c.clamped, " pixels at or below the dark field taken as transmission 1e-6");
  return c;
}

}  // namespace tomo::fdk
