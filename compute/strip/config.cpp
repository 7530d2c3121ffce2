// Reads and validates the [strip] section of a scene.
#include "compute/strip/config.hpp"

#include <algorithm>
#include <cmath>

#include "compute/core/sensitivity_mask.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"

namespace tomo::strip {

StripConfig StripConfig::from_scene(const Scene& s) {
  StripConfig c;
  const double R = s.get_in_range("strip.R", 130.0, 1e-3, 1e6);
  const double L = s.get_in_range("strip.L", 300.0, 1e-3, 1e6);
  const double pixel = s.get_in_range("strip.pixel_size", 4.0, 1e-3, 1e6);
  c.geometry = StripGeometry::covering(R, L, pixel);
  c.geometry.n_y = s.get_int_in_range("strip.n_y", c.geometry.n_y, 1, 16384);
  c.geometry.n_z = s.get_int_in_range("strip.n_z", c.geometry.n_z, 1, 16384);
  c.geometry.validate(s.where("strip.n_y").c_str());
  c.resolution.sigma_z = s.get_in_range("strip.sigma_z", 10.0, 1e-3, 1e6);
  c.resolution.sigma_dl = s.get_in_range("strip.sigma_dl", 40.0, 1e-3, 1e6);
  c.options.granularity = s.get_enum("strip.granularity", Granularity::warp, kGranularityNames);
  c.options.threads = s.get_int_in_range("strip.threads", 0, 0, 4096);
  c.options.nsigma = s.get_in_range("strip.nsigma", 3.0, 0.5, 10.0);
  c.phantom = StripPhantom::from_scene(s, "strip.phantom");
  const auto events = s.get<std::int64_t>("strip.events", 1000000);
  if (events < 1 || events > (std::int64_t(1) << 34))
    throw InputError(str_cat(s.where("strip.events"), " must be in [1, 2^34], got ", events));
  c.events = static_cast<std::uint64_t>(events);
  const auto seed = s.get<std::int64_t>("strip.seed", 1);
  if (seed < 0) throw InputError(str_cat(s.where("strip.seed"), " must be >= 0, got ", seed));
  c.seed = static_cast<std::uint64_t>(seed);
  c.simulator = s.get_enum("strip.simulator", SimulatorChoice::automatic, kSimulatorNames);
  c.iterations = s.get_int_in_range("strip.iterations", 20, 0, 100000);
  c.save_iterations = pet::read_save_iterations(s, "strip", c.iterations);
  c.pet = pet::read_pet_options(s, "strip", c.iterations);
  c.corrections = pet::read_correction_options(s, "strip");
  // At most half the events: strip.events counts the trues, so the list at most doubles.
  c.randoms_fraction = s.get_in_range("strip.randoms_fraction", 0.0, 0.0, 0.5);
  c.scatter_fraction = s.get_in_range("strip.scatter_fraction", 0.0, 0.0, 0.5);
  if (c.randoms_fraction + c.scatter_fraction > 0.5)
    throw InputError(str_cat(s.where("strip.scatter_fraction"), ": randoms and scatter fractions add up to ",
                             c.randoms_fraction + c.scatter_fraction, "; at most 0.5 (strip.events counts the trues)"));
  c.events_file = s.get_input_path("strip.events_file").string();
  c.write_events = s.get<bool>("strip.write_events", false);
  c.crosscheck_events = s.get_int_in_range("strip.crosscheck_events", 0, 0, 2000000000);
  c.sensitivity_threshold = s.get_in_range("strip.sensitivity_threshold", kDefaultSensitivityThreshold, 0.0, 1.0);
  c.fov_mask = s.get<bool>("strip.fov_mask", true);
  return c;
}

}  // namespace tomo::strip
