// MusrConfig::from_scene (see config.hpp).
#include "compute/musr/config.hpp"

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/musr/psi_bin.hpp"

namespace tomo::musr {

namespace {

Eq5Config eq5_from_scene(const Scene& s) {
  Eq5Config c;
  c.detectors = s.get_int_in_range("musr.detectors", 16, 1, kPsiBinMaxHistograms);
  c.bins = s.get_int_in_range("musr.bins", 8192, 64, kPsiBinMaxBins);
  c.dt_us = s.get_in_range("musr.dt_us", c.dt_us, 1e-6, 1.0);
  c.t0_bin = s.get_int_in_range("musr.t0_bin", 200, 0, c.bins - 32);
  c.first_good = s.get_int_in_range("musr.first_good", c.t0_bin + 10, c.t0_bin, c.bins - 16);
  c.n0 = s.get_in_range("musr.n0", c.n0, 1e-3, 1e9);
  c.bkg = s.get_in_range("musr.background", c.bkg, 0.0, 1e9);
  c.asymmetry = s.get_in_range("musr.asymmetry", c.asymmetry, 0.0, 0.5);
  c.sigma = s.get_in_range("musr.sigma", c.sigma, 0.0, 100.0);
  c.field_g = s.get_in_range("musr.field", c.field_g, 0.0, 1e5);
  c.fit_end_us = s.get_in_range("musr.fit_end", 8.0, 0.0, 1e3);
  const auto seed = s.get<std::int64_t>("musr.seed", 1);  // as safir.seed: a negative seed is refused
  if (seed < 0) throw InputError(s.where("musr.seed") + " must be >= 0, got " + std::to_string(seed));
  c.seed = static_cast<std::uint64_t>(seed);
  return c;
}

}  // namespace

MusrConfig MusrConfig::from_scene(const Scene& s) {
  MusrConfig c;
  c.msr = s.get_input_path("musr.msr");
  if (c.simulate()) {
    c.eq5 = eq5_from_scene(s);
    c.max_likelihood = s.get<bool>("musr.max_likelihood", false);
  } else {
    s.declare_optional({"musr.detectors", "musr.bins", "musr.dt_us", "musr.t0_bin", "musr.first_good", "musr.n0",
                        "musr.background", "musr.asymmetry", "musr.sigma", "musr.field", "musr.fit_end", "musr.seed",
                        "musr.max_likelihood"});
  }
  c.options.threads = s.get_int_in_range("musr.threads", 0, 0, 4096);
  c.options.single_precision = s.get<bool>("musr.single_precision", false);
  c.plots = s.get<bool>("musr.plots", true);
  c.auto_t0 = s.get<bool>("musr.auto_t0", false);
  c.auto_t0_offset = s.get_int_in_range("musr.auto_t0_offset", -1, -1, kPsiBinMaxBins);
  return c;
}

}  // namespace tomo::musr
