// tomoraster.strip's reconstruction layer: StripProjector::reconstruct (strip_projector.hpp), the
// CLI run's algorithms over ρ' with the scene's attenuation, normalisation and background terms,
// subsets on backends made alike.
#include <algorithm>
#include <memory>
#include <optional>

#include "compute/core/registry.hpp"
#include "compute/pet/attenuation.hpp"
#include "compute/pet/corrections.hpp"
#include "compute/pet/prior.hpp"
#include "compute/pet/scene_options.hpp"
#include "compute/strip/attenuation.hpp"
#include "compute/strip/background.hpp"
#include "compute/strip/mlem.hpp"
#include "compute/strip/normalisation.hpp"
#include "compute/strip/run_terms.hpp"
#include "compute/strip/subsets.hpp"
#include "python/src/pet_layer.hpp"
#include "python/src/strip_projector.hpp"

namespace tomo::py {

nb::tuple StripProjector::reconstruct(const std::vector<std::string>& keys, const AnyArray& events, nb::object x0, nb::object callback) {
  const strip::StripConfig c = strip::StripConfig::from_scene(scene_.load(keys));
  const strip::StripGeometry& g = c_.geometry;
  std::vector<double> given;
  if (!x0.is_none()) {
    const AnyArray a = nb::cast<AnyArray>(x0);
    const double* p = double_input(a, "initial_image", image_shape());
    given.assign(p, p + g.pixel_count());
  }
  set_events(events);
  std::optional<pet::AttenuationMap> mu;
  if (!c.corrections.attenuation_map.empty())
    mu = pet::AttenuationMap::read(c.corrections.attenuation_map, "strip.attenuation_map");
  std::optional<strip::StripEfficiency> efficiency;
  if (!c.corrections.normalisation.empty())
    efficiency = strip::StripEfficiency::from_npy(c.corrections.normalisation, g.L, "strip.normalisation");
  const std::vector<double> s = strip::sensitivity_image(g);
  const pet::ForwardTerms terms = strip::background_terms(c, events_, s, mu ? &*mu : nullptr, efficiency ? &*efficiency : nullptr);
  const pet::ReconOptions& recon = c.pet.recon;
  // The start: the caller's ρ', strip.initial_image, or flat (at the trues' level with additive terms).
  const double level =
      terms.empty() ? 1.0
                    : pet::flat_start_level(double(events_.size()),
                                            (c.corrections.randoms.fraction + c.corrections.scatter.fraction) *
                                                double(events_.size()),
                                            double(g.pixel_count()));
  const std::vector<double> start =
      !given.empty() ? given
      : c.pet.initial_image.empty()
          ? std::vector<double>(g.pixel_count(), level)
          : pet::read_initial_image(c.pet.initial_image, g.grid3().dims, "strip.initial_image");
  SavedImages<double> saved;
  const bool has_cb = !callback.is_none();
  std::vector<double> rho_prime = start;
  pet::SubsetPrimitives* data = nullptr;
  const auto after_iteration = [&](int t) {
    rho_prime = data->image();
    if (std::find(c.save_iterations.begin(), c.save_iterations.end(), t) != c.save_iterations.end())
      saved.emplace_back(t, rho_prime);
    return !has_cb || pet_callback(callback, t, strip::rho_from_rho_prime(rho_prime, s, c.sensitivity_threshold, outside_fov()),
                                   image_shape());
  };
  try {
    nb::gil_scoped_release release;
    auto& reg = BackendRegistry<strip::ListModeProjector>::instance();
    const auto more = [&] {
      auto p = reg.create(backend_);
      p->configure(g, c_.resolution, c_.options);
      return p;
    };
    ensure_current_events();
    strip::EventSubsets subsets(
        *op_, events_, recon.subsets, g.pixel_count(),
        mu || efficiency ? strip::weighted_acceptance(g,
                                                      [&](double z_u, double z_d) {
                                                        return (mu ? strip::survival(*mu, g.R, z_u, z_d) : 1.0) *
                                                               (efficiency ? efficiency->pair(z_u, z_d) : 1.0);
                                                      })
                         : std::vector<double>{},
        more, terms);
    subsets.set_image(start);
    data = &subsets;
    std::unique_ptr<pet::PriorOperator> prior;
    if (pet::uses_prior(recon.algorithm)) {
      const Grid3 g3 = g.grid3();
      prior = pet::make_prior(backend_, {g3.dims, g3.voxel_mm}, recon.prior, std::vector<double>(g.pixel_count(), 1.0));
    }
    pet::reconstruct(subsets, recon, prior.get(), {.after_subset = {}, .after_iteration = after_iteration});
    if (recon.iterations == 0) rho_prime = subsets.image();
  } catch (const PythonRaised&) {
    op_current_ = false;
    rethrow_python();
  }
  op_current_ = recon.subsets <= 1;  // with subsets the backend holds subset 0's events
  std::vector<double> rho = strip::rho_from_rho_prime(rho_prime, s, c.sensitivity_threshold, outside_fov());
  nb::list list;
  for (auto& [t, x] : saved) list.append(nb::make_tuple(t, to_numpy(std::move(x), image_shape())));
  return nb::make_tuple(to_numpy(std::move(rho), image_shape()), to_numpy(std::move(rho_prime), image_shape()), list);
}

}  // namespace tomo::py
