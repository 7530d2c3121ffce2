// The .npy side of the oat data: pressure traces and transducer positions.
#include "compute/oat/data_io.hpp"

#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/io/npy.hpp"

namespace tomo::oat {

MeasuredData read_npy_data(const std::filesystem::path& pressure, const std::filesystem::path& positions) {
  const NpyArray p = read_npy(pressure);
  if (p.shape.size() != 2 || p.shape[0] < 1 || p.shape[1] < 2)
    throw InputError(str_cat(pressure.string(), ": pressure must be a 2-D array (transducers, samples) with at "
                             "least 2 samples"));
  const NpyArray r = read_npy(positions);
  const std::size_t want[2] = {p.shape[0], 3};
  require_npy_shape(r, want, positions.string() + " (transducer positions in mm, one row per pressure trace)");
  if (p.shape[1] > (1u << 24) || p.shape[0] > (1u << 24))
    throw InputError(str_cat(pressure.string(), ": ", p.shape[0], "×", p.shape[1], " is beyond 2^24 per axis"));
  MeasuredData d;
  d.samples = static_cast<int>(p.shape[1]);
  d.pressure = p.to_double(pressure.string());
  const std::vector<double> xyz = r.to_double(positions.string());
  d.positions_mm.resize(p.shape[0]);
  for (std::size_t q = 0; q < p.shape[0]; ++q) d.positions_mm[q] = {xyz[3 * q], xyz[3 * q + 1], xyz[3 * q + 2]};
  return d;
}

void write_npy_data(const std::filesystem::path& pressure, const std::filesystem::path& positions,
                    const OatGeometry& g, std::span<const double> u) {
  if (u.size() != g.data_size()) throw Error(str_cat("oat: ", u.size(), " samples to write, expected ", g.data_size()));
  std::vector<float> f(u.begin(), u.end());
  const std::size_t shape[2] = {g.transducers.size(), static_cast<std::size_t>(g.time.samples)};
  write_npy(pressure, std::span<const float>(f), shape);
  std::vector<double> xyz;
  for (const Vec3d& p : g.transducers) xyz.insert(xyz.end(), p.begin(), p.end());
  const std::size_t pshape[2] = {g.transducers.size(), 3};
  write_npy(positions, std::span<const double>(xyz), pshape);
}

}  // namespace tomo::oat
