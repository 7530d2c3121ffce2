// Simulated or read data for an oat run.
#include "compute/oat/acquisition.hpp"

#include <algorithm>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/oat/data_io.hpp"

namespace tomo::oat {

namespace {

MeasuredData read_data(const OatConfig& c) {
  switch (c.source) {
    case DataSource::npy: return read_npy_data(c.pressure_file, c.positions_file);
    case DataSource::patato: return read_patato(c.hdf5_file, c.frame, c.wavelength);
    case DataSource::kwave: return read_kwave(c.hdf5_file, c.kwave_input);
    case DataSource::simulate: break;
  }
  throw Error("oat: no reader for this data source");
}

}  // namespace

Acquisition acquire(const OatConfig& c) {
  Acquisition a;
  a.geometry = c.geometry;
  if (c.source == DataSource::simulate) {
    a.simulated = true;
    a.data = simulate_pressure(a.geometry, c.phantom, c.noise, &a.noise_sigma);
    a.phantom = c.phantom.rasterize(a.geometry.grid);
    log_info("oat: simulated ", a.geometry.transducer_count(), " × ", a.geometry.time.samples, " samples of ",
             c.phantom.spheres.size(), " blurred spheres", c.noise.active() ? str_cat(", noise σ ", a.noise_sigma) : "");
    return a;
  }
  MeasuredData d = read_data(c);
  const std::string file = c.source == DataSource::npy ? c.pressure_file : c.hdf5_file;
  OatGeometry& g = a.geometry;
  set_positions(g, std::move(d.positions_mm), g.grid_centre_mm());
  if (d.fs_mhz > 0 && !c.fs_given) g.time.fs_mhz = d.fs_mhz;
  else if (!c.fs_given) throw InputError(file + ": the file has no sampling rate: set oat.fs_mhz in the scene");
  if (d.c0_mm_per_us > 0 && !c.c0_given) g.c0_mm_per_us = d.c0_mm_per_us;
  g.time.samples = d.samples;
  g.time.t_min_us = c.t_min_given ? c.geometry.time.t_min_us : 0.0;
  if (g.eir.kind == EirKind::gaussian) g.eir.taps = gaussian_eir_taps(g.eir, g.time.dt_us());
  g.validate(file);
  a.data = std::move(d.pressure);
  // Valid data of nothing: every image fits it, so a reconstruction would be all zero.
  if (std::all_of(a.data.begin(), a.data.end(), [](double u) { return u == 0; }))
    throw InputError(str_cat(file, ": every one of its ", a.data.size(), " pressure samples is 0: nothing to reconstruct"));
  log_info("oat: read ", g.transducer_count(), " × ", g.time.samples, " samples from ", file, " (fs ", g.time.fs_mhz,
           " MHz, c0 ", g.c0_mm_per_us, " mm/µs, Rs ", g.radius_mm, " mm)");
  return a;
}

}  // namespace tomo::oat
