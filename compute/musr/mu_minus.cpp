// μ⁻ data preparation (PRunMuMinus's conventions; docs/musr.md).
#include "compute/musr/mu_minus.hpp"

#include <cmath>

namespace tomo::musr {

RunBins mu_minus_bins(const MsrFile& msr, const MsrRun& r, const PsiBinFile& f, const std::vector<prep::AddedRun>& added,
                      int p, ProgramBuilder& b, std::int32_t theory, RunInfo& info) {
  const double dt = f.bin_width_us;
  // musrfit's μ⁻ run has no background handling and no N0: refuse what it would ignore.
  if (r.backgr_fit > 0 || !r.backgr_fix.empty() || !r.background.empty())
    prep::fail(msr, r, "mu minus RUN (fittype 4) takes no background: put a constant term into THEORY");
  prep::Group g = prep::sum_group(msr, r, f, r.forward, [](std::size_t k) { return k; }, added);
  prep::set_data_range(msr, r, g, 0, dt);
  info.normalizer = 1.0;
  RunBins bins;
  bins.model = b.finish(theory);
  bins.scale = 1.0;
  const auto packed = prep::pack(g.counts, g.fgb, g.lgb, p);
  const auto [t_start, t_end] = prep::fit_window(r, g, dt);
  for (std::size_t k = 0; k < packed.size(); ++k) {
    const double tk = dt * ((g.fgb - 0.5) + p / 2.0 - std::floor(g.t0)) + static_cast<double>(k) * p * dt;
    if (tk < t_start || tk > t_end) continue;
    bins.t.push_back(tk);
    bins.y.push_back(packed[k]);
    bins.sigma.push_back(packed[k] != 0.0 ? std::sqrt(packed[k]) : 1.0);
  }
  return bins;
}

}  // namespace tomo::musr
