// β-NMR data preparation (PRunAsymmetryBNMR's conventions, quirks included; docs/musr.md).
#include "compute/musr/bnmr.hpp"
#include "compute/musr/raw_bins.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <cmath>

namespace tomo::musr {
namespace {

using prep::Group;

// One helicity's histogram after background subtraction: counts − mean and each raw bin's
// variance.
struct Corrected {
  std::vector<double> value, variance;
};

Corrected subtract(const std::vector<double>& c, double mean, double err_bkg) {
  Corrected out;
  out.value.reserve(c.size());
  out.variance.reserve(c.size());
  for (double v : c) {
    out.variance.push_back(v > 0.0 ? v + err_bkg * err_bkg : 1.0);
    out.value.push_back(v - mean);
  }
  return out;
}

double window_sum(const std::vector<double>& c, BinRange w) {
  double s = 0.0;
  for (int i = w.start; i <= w.end; ++i) s += c[static_cast<std::size_t>(i)];
  return s;
}

double total(const std::vector<double>& c) {
  double s = 0.0;
  for (double v : c) s += v;
  return s;
}

}  // namespace

bool beta_nmr_run(const MsrRun& r) {
  std::string bl = r.beamline;
  for (char& c : bl) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r.fittype() == 5 || bl == "BNMR" || bl == "BNQR";
}

RunBins beta_nmr_bins(const MsrFile& msr, const MsrRun& r, const PsiBinFile& f, const std::vector<prep::AddedRun>& added,
                      int p, ProgramBuilder& b, std::int32_t theory, RunInfo& info) {
  const double dt = f.bin_width_us;
  if (!r.backgr_fix.empty())
    prep::fail(msr, r, "beta-NMR RUN with 'backgr.fix' is not supported (musrfit reads a fixed background per helicity there); give 'background'");
  if (!r.background.empty() && r.background.size() != 4)
    prep::fail(msr, r, "beta-NMR RUN needs 'background' with 4 bins (forward start end, backward start end)");
  // The t0 list is F+ B+ F- B- (musrfit: forward k at 2k, backward k at 2k + 1); each histogram
  // stands alone, the negative helicity is not shifted to the positive one's t0.
  auto one = [&](int hist, std::size_t t0_entry) {
    return prep::sum_group(msr, r, f, {hist}, [t0_entry](std::size_t) { return t0_entry; }, added);
  };
  Group fp = one(r.forward[0], 0), bp = one(r.backward[0], 1);
  const Group fm = one(r.forward[1], 2), bm = one(r.backward[1], 3);
  for (const Group* g : {&fm, static_cast<const Group*>(&bp), static_cast<const Group*>(&bm)})
    if (g->counts.size() != fp.counts.size()) prep::fail(msr, r, "beta-NMR histograms differ in length");

  // Background: one window for both forward histograms, one for both backward ones, cut to beam
  // periods in packed bins; inclusive means. The errors as musrfit computes them: √Σ/N per
  // histogram, except F-, whose error musrfit takes from F+'s mean (√(Σ_F+/N)/N).
  const BinRange wf = prep::background_window(msr, r, fp, 0, dt, p);
  const BinRange wb = prep::background_window(msr, r, bp, 2, dt, p);
  const double nf = wf.end - wf.start + 1, nb = wb.end - wb.start + 1;
  const double sfp = window_sum(fp.counts, wf), sfm = window_sum(fm.counts, wf);
  const double sbp = window_sum(bp.counts, wb), sbm = window_sum(bm.counts, wb);
  const Corrected cfp = subtract(fp.counts, sfp / nf, std::sqrt(sfp) / nf);
  const Corrected cfm = subtract(fm.counts, sfm / nf, std::sqrt(sfp / nf) / nf);
  const Corrected cbp = subtract(bp.counts, sbp / nb, std::sqrt(sbp) / nb);
  const Corrected cbm = subtract(bm.counts, sbm / nb, std::sqrt(sbm) / nb);
  info.backgrounds = {sfp / nf, sbp / nb, sfm / nf, sbm / nb};

  // alpha not given: musrfit's estimate Σ(B+ + B-)/Σ(F+ + F-) over the whole background-
  // subtracted histograms.
  prep::RunResolver res(msr, r, b);
  std::int32_t alpha;
  if (r.alpha > 0) alpha = res.param(r.alpha);
  else if (r.alpha < 0) alpha = res.fun(-r.alpha);
  else {
    const double sf = total(cfp.value) + total(cfm.value);
    alpha = b.constant(sf == 0.0 ? 1.0 : (total(cbp.value) + total(cbm.value)) / sf);
  }
  const auto beta = r.beta > 0 ? res.param(r.beta) : r.beta < 0 ? res.fun(-r.beta) : b.constant(1.0);
  // A_th = a₊(f) − a₋(f), f = A(t)/2, a±(f) the asymmetry of ±f with alpha and beta:
  // (±f(αβ+1) − (α−1)) / ((α+1) ∓ f(αβ−1)).
  const auto one_c = b.constant(1.0);
  const auto half = b.mul(theory, b.constant(0.5));
  const auto ab1 = b.add(b.mul(alpha, beta), one_c), abm1 = b.sub(b.mul(alpha, beta), one_c);
  const auto am1 = b.sub(alpha, one_c), ap1 = b.add(alpha, one_c);
  const auto fab1 = b.mul(half, ab1), fabm1 = b.mul(half, abm1);
  const auto plus = b.div(b.sub(fab1, am1), b.sub(ap1, fabm1));
  const auto minus = b.div(b.sub(b.unary(OpCode::neg, fab1), am1), b.add(ap1, fabm1));
  RunBins bins;
  bins.model = b.finish(b.sub(plus, minus));

  // Data ranges from F+ and B+ (their t0s), aligned as for asymmetry; F- and B- share them.
  prep::set_data_range(msr, r, fp, 0, dt);
  prep::set_data_range(msr, r, bp, 2, dt);
  prep::align_at_t0(msr, r, fp, bp);
  // Packed means (raw_bins.hpp's packed_means): each helicity's forward then backward histogram
  // with one carry, as musrfit's running sums run on from F± into B±.
  PackCarry carry_p, carry_m;
  const auto pfp = packed_means(cfp.value, cfp.variance, fp.fgb, fp.lgb, p, carry_p);
  const auto pfm = packed_means(cfm.value, cfm.variance, fp.fgb, fp.lgb, p, carry_m);
  const auto pbp = packed_means(cbp.value, cbp.variance, bp.fgb, bp.lgb, p, carry_p);
  const auto pbm = packed_means(cbm.value, cbm.variance, bp.fgb, bp.lgb, p, carry_m);
  const auto [t_start, t_end] = prep::fit_window(r, fp, dt);
  // Each helicity's asymmetry (F−B)/(F+B) with error 2/(F+B)²·√(B²e_F² + F²e_B²); the data are
  // their difference, the error the two in quadrature. Where F+B is 0 that helicity's term is
  // 0 with error 1 (musrfit: 0 only where the positive helicity's sum is 0).
  auto asym = [](double F, double eF, double B, double eB) -> std::pair<double, double> {
    const double s = F + B;
    if (s == 0.0) return {0.0, 1.0};
    return {(F - B) / s, 2.0 / (s * s) * std::sqrt(B * B * eF * eF + F * F * eB * eB)};
  };
  for (std::size_t k = 0; k < std::min(pfp.size(), pbp.size()); ++k) {
    const double tk = dt * ((fp.fgb - 0.5) + p / 2.0 - fp.t0) + static_cast<double>(k) * p * dt;
    if (tk < t_start || tk > t_end) continue;
    const auto [ap, ep] = asym(pfp[k].first, pfp[k].second, pbp[k].first, pbp[k].second);
    const auto [am, em] = asym(pfm[k].first, pfm[k].second, pbm[k].first, pbm[k].second);
    bins.t.push_back(tk);
    bins.y.push_back(ap - am);
    bins.sigma.push_back(std::sqrt(ep * ep + em * em));
  }
  return bins;
}

}  // namespace tomo::musr
