// Reads and validates the [oat] section of a scene.
#include "compute/oat/config.hpp"

#include <algorithm>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"

namespace tomo::oat {

namespace {

// oat.sph.*: the H_sph frequency samples and transducer faces (docs/oat.md "H_sph").
void read_sph_keys(const Scene& s, OatConfig& c) {
  c.sph.fft_length = s.get_int_in_range("oat.sph.fft_length", 0, 0, 1 << 24);
  c.sph.first_bin = s.get_int_in_range("oat.sph.first_bin", 1, 0, 1 << 23);
  c.sph.frequencies = s.get_int_in_range("oat.sph.frequencies", 0, 0, 1 << 23);
  c.sph_f_max_mhz = s.get_in_range("oat.sph.f_max_mhz", 0.0, 0.0, 1e6);
  const auto ap = s.get<std::vector<double>>("oat.sph.aperture_mm", {0.0, 0.0});
  if (ap.size() != 2 || !(ap[0] >= 0) || !(ap[1] >= 0) || !std::isfinite(ap[0]) || !std::isfinite(ap[1]) ||
      ap[0] > 1e3 || ap[1] > 1e3)
    throw InputError(s.where("oat.sph.aperture_mm") + ": expected [width, height] in mm, each in 0..1000 (0 = point)");
  c.sph.aperture_width_mm = ap[0];
  c.sph.aperture_height_mm = ap[1];
  c.sph.aperture_points = s.get_int_in_range("oat.sph.aperture_points", 0, 0, 64);
}

}  // namespace

OatConfig OatConfig::from_scene(const Scene& s) {
  OatConfig c;
  c.geometry = geometry_from_scene(s);
  c.fs_given = s.has("oat.fs_mhz");
  c.c0_given = s.has("oat.c0_mm_per_us");
  c.t_min_given = s.has("oat.t_min_us");
  c.phantom = OatPhantom::from_scene(s);
  c.noise.snr_db = s.get_in_range("oat.noise.snr_db", 1e300, -100.0, 1e300);
  const auto seed = s.get<std::int64_t>("oat.noise.seed", 1);
  if (seed < 0) throw InputError(str_cat(s.where("oat.noise.seed"), " must be >= 0, got ", seed));
  c.noise.seed = static_cast<std::uint64_t>(seed);
  c.source = s.get_enum("oat.data.source", DataSource::simulate, kDataSourceNames);
  if (c.source == DataSource::npy) {
    c.pressure_file = s.get_input_path("oat.data.pressure").string();
    c.positions_file = s.get_input_path("oat.data.positions").string();
    if (c.pressure_file.empty() || c.positions_file.empty())
      throw InputError(s.where("oat.data.source") + " = \"npy\" needs oat.data.pressure (Q×K) and oat.data.positions (Q×3, mm)");
  }
  if (c.source == DataSource::patato || c.source == DataSource::kwave) {
    c.hdf5_file = s.get_input_path("oat.data.file").string();
    if (c.hdf5_file.empty())
      throw InputError(s.where("oat.data.source") + " = \"" + std::string(enum_name(kDataSourceNames, c.source)) +
                       "\" needs oat.data.file (an HDF5 file)");
    c.kwave_input = s.get_input_path("oat.data.kwave_input").string();
    c.frame = s.get_int_in_range("oat.data.frame", 0, 0, 1 << 24);
    c.wavelength = s.get_int_in_range("oat.data.wavelength", 0, 0, 1 << 24);
  }
  const auto algorithms = s.get<std::vector<std::string>>("oat.algorithms", {"fbp", "pls"});
  if (algorithms.empty()) throw InputError(s.where("oat.algorithms") + ": name at least one of \"fbp\", \"pls\"");
  c.algorithms.clear();
  for (const std::string& a : algorithms) {
    const auto known = std::find_if(kAlgorithmNames.begin(), kAlgorithmNames.end(),
                                    [&](const EnumName<Algorithm>& e) { return e.name == a; });
    if (known == kAlgorithmNames.end())
      throw InputError(s.where("oat.algorithms") + ": unknown algorithm '" + a + "' (known: fbp, pls)");
    c.algorithms.push_back(known->value);
  }
  c.model.kind = s.get_enum("oat.model.kind", ModelKind::interpolation, kModelKindNames);
  c.model.interpolation = s.get_enum("oat.model.interpolation", Interpolation::exact, kInterpolationNames);
  c.model.threads = s.get_int_in_range("oat.threads", 0, 0, 4096);
  c.model.patch_factor = s.get_in_range("oat.model.patch_factor", 1.0, 0.1, 4.0);
  c.model.reproducible = s.get<bool>("oat.model.reproducible", false);
  c.fbp.interpolation = s.get_enum("oat.fbp.interpolation", Interpolation::exact, kInterpolationNames);
  c.fbp.threads = c.model.threads;
  c.fbp.read = s.get_enum("oat.fbp.read", FbpRead::automatic, kFbpReadNames);
  c.pls.iterations = s.get_int_in_range("oat.pls.iterations", 20, 0, 100000);
  c.pls.mu = s.get_in_range("oat.pls.mu", 0.0, 0.0, 1e6);
  c.pls.regulariser = s.get_enum("oat.pls.regulariser", Regulariser::quadratic, kRegulariserNames);
  c.pls.nonnegative = s.get<bool>("oat.pls.nonnegative", false);
  c.pls.tv_iterations = s.get_int_in_range("oat.pls.tv_iterations", 20, 1, 100000);
  c.deconvolution_cutoff_mhz = s.get_in_range("oat.fbp.cutoff_mhz", 0.0, 0.0, 1e6);
  c.write_data = s.get<bool>("oat.write_data", true);
  read_sph_keys(s, c);
  return c;
}

}  // namespace tomo::oat
