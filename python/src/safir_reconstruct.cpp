// tomoraster.safir's reconstruction layer: SafirProjector::reconstruct (safir_projector.hpp), the
// CLI run's ML-EM / OSEM / prior algorithms over the events as one frame, with the scene's
// corrections and the sensitivity weighted as the run's.
#include <algorithm>
#include <cmath>
#include <memory>

#include "compute/core/sensitivity_mask.hpp"
#include "compute/pet/prior.hpp"
#include "compute/pet/scene_options.hpp"
#include "compute/safir/corrections.hpp"
#include "compute/safir/mlem.hpp"
#include "compute/safir/sensitivity.hpp"
#include "compute/safir/subsets.hpp"
#include "python/src/pet_layer.hpp"
#include "python/src/safir_projector.hpp"

namespace tomo::py {

nb::tuple SafirProjector::reconstruct(const std::vector<std::string>& keys, const AnyArray& events, double delayed, nb::object x0,
                      nb::object callback) {
  const safir::SafirConfig c = safir::SafirConfig::from_scene(scene_.load(keys));
  if (!(delayed >= 0) || !std::isfinite(delayed))
    throw nb::value_error(("safir.reconstruct: delayed must be finite and >= 0, got " + std::to_string(delayed)).c_str());
  const Grid3 grid = c_.box.grid();
  std::vector<double> start;
  if (!x0.is_none()) {
    const AnyArray a = nb::cast<AnyArray>(x0);
    const double* p = double_input(a, "initial_image", image_shape());
    start.assign(p, p + grid.count());
  } else if (!c.pet.initial_image.empty()) {
    start = pet::read_initial_image(c.pet.initial_image, grid.dims, "safir.initial_image");
  }
  set_events(events);
  const std::size_t n = events_.size();
  const safir::Corrections corr(c.corrections, c_.scanner, n);
  const pet::ReconOptions& recon = c.pet.recon;
  SavedImages<double> saved;
  const bool has_cb = !callback.is_none();
  const auto after_iteration = [&](int t) {
    const bool save = std::find(c.save_iterations.begin(), c.save_iterations.end(), t) != c.save_iterations.end();
    if (!save && !has_cb) return true;
    std::vector<double> x = op_->image();
    if (save) saved.emplace_back(t, x);
    return !has_cb || pet_callback(callback, t, std::move(x), image_shape());
  };
  std::vector<double> image;
  try {
    nb::gil_scoped_release release;
    // The sensitivity as the run's: weighted by ε_a·ε_b·exp(−∫μ) with multiplicative terms.
    std::vector<double> s;
    if (corr.multiplicative()) {
      s = safir::compute_weighted_sensitivity(*op_, c_.scanner, c_.box, [&](std::uint32_t a, std::uint32_t b) {
        return corr.lor_factor(a, b);
      });
      weighted_ = true;
    } else {
      if (weighted_) s_.reset(), weighted_ = false;
      ensure_sensitivity();
      s = *s_;
    }
    std::vector<double> s_fov = s;
    if (c.fov_mask) zero_outside<double>(s_fov, outside_field_of_view(grid, safir::field_of_view(c_.scanner)));
    op_->set_sensitivity(s_fov);
    const std::vector<safir::Frame> frames{{.first = 0, .count = n}};
    const auto ordered = safir::order_for_subsets(events_, frames, recon.subsets);
    const pet::ForwardTerms terms =
        corr.event_terms(ordered, safir::subset_permutation(n, frames, recon.subsets), frames, std::uint64_t(delayed));
    op_->set_events(ordered);
    op_->set_window(0, n);
    const double lors = 0.5 * double(c_.scanner.crystal_count()) * double(c_.scanner.crystal_count() - 1);
    op_->set_randoms_per_lor(corr.any() ? 0.0 : delayed / lors);
    std::unique_ptr<pet::PriorOperator> prior;
    if (pet::uses_prior(recon.algorithm)) prior = pet::make_prior(backend_, {grid.dims, grid.voxel_mm}, recon.prior, s_fov);
    if (c.mlem.halve_events) {  // code sample 4 (ML-EM only, as the run)
      safir::MlemOptions o = c.mlem;
      safir::run_mlem(*op_, grid.count(), 0, n, o, [&](int t, std::size_t) {
        if (!after_iteration(t)) throw StopLoop{};
      });
    } else {
      safir::FrameSubsets data(*op_, s_fov, 0, n, recon.subsets, &terms);
      if (!start.empty()) {
        data.set_image(start);
      } else if (!terms.additive.empty()) {  // a flat start at the trues' scale (pet::flat_start_level)
        double sum_s = 0, sum_c = 0;
        for (double v : s_fov) sum_s += v;
        for (double v : terms.additive) sum_c += v;
        const double level = pet::flat_start_level(double(n), sum_c, sum_s);
        std::vector<double> x(s_fov.size());
        for (std::size_t j = 0; j < x.size(); ++j) x[j] = s_fov[j] > 0 ? level : 0.0;
        data.set_image(x);
      } else {
        data.set_image(std::vector<double>(grid.count(), 1.0));
      }
      pet::reconstruct(data, recon, prior.get(), {.after_subset = {}, .after_iteration = after_iteration});
    }
  } catch (const PythonRaised&) {
    restore_events();
    rethrow_python();
  } catch (const StopLoop&) {
  }
  image = op_->image();
  restore_events();
  return pet_result(std::move(image), std::move(saved), image_shape());
}

}  // namespace tomo::py
