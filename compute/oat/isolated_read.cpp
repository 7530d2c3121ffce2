// The measured data travel from the reading child as positions, sampling and pressure.
#include "compute/oat/isolated_read.hpp"

#include "compute/io/isolated_child.hpp"

namespace tomo::oat {

MeasuredData read_isolated(const std::filesystem::path& file, const std::function<MeasuredData()>& read) {
  const std::string reply = io::run_isolated(file, "HDF5", [&] {
    const MeasuredData d = read();
    io::ByteWriter w;
    w.put(std::uint64_t(d.positions_mm.size()));
    for (const auto& p : d.positions_mm)
      for (const double c : p) w.put(c);
    w.put(std::int32_t(d.samples));
    w.put(d.fs_mhz);
    w.put(d.c0_mm_per_us);
    w.vec(d.pressure);
    return w.take();
  });
  io::ByteReader r(reply);
  MeasuredData d;
  d.positions_mm.resize(r.count(3 * sizeof(double)));
  for (auto& p : d.positions_mm)
    for (double& c : p) c = r.get<double>();
  d.samples = r.get<std::int32_t>();
  d.fs_mhz = r.get<double>();
  d.c0_mm_per_us = r.get<double>();
  d.pressure = r.vec<double>();
  return d;
}

}  // namespace tomo::oat
