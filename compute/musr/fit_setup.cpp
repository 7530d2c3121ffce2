// Data preparation as musrfit's PRunSingleHisto/PRunAsymmetry do it (notes: musrfit-facts.md,
// "Single-histogram fit", "Asymmetry fit"); departures are listed in docs/musr.md.
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/quoted_text.hpp"
#include "compute/musr/run_file.hpp"
#include "compute/musr/user_fcn.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "compute/core/error.hpp"

namespace tomo::musr {
namespace {

constexpr double kPsiBeamPeriodUs = 0.01975;  // PSI accelerator period (background cut)

[[noreturn]] void fail(const MsrFile& m, const MsrRun& r, const std::string& what) {
  throw InputError(m.path.string() + ":" + std::to_string(r.line) + ": RUN " + quoted_excerpt(r.file) + ": " + tidy_message(what));
}

class RunResolver : public ExprResolver {
 public:
  RunResolver(const MsrFile& m, const MsrRun& r, ProgramBuilder& b) : m_(m), r_(r), b_(b) {}
  std::int32_t param(int n) override {
    if (n < 1 || n > static_cast<int>(m_.params.size())) fail(m_, r_, "par" + std::to_string(n) + " does not exist");
    return b_.param(n - 1);
  }
  std::int32_t map(int n) override {
    if (n < 1 || n > static_cast<int>(r_.map.size()) || r_.map[n - 1] == 0)
      fail(m_, r_, "map" + std::to_string(n) + " has no parameter in this RUN's map line");
    return param(r_.map[n - 1]);
  }
  std::int32_t fun(int n) override {
    if (auto it = done_.find(n); it != done_.end()) return it->second;
    const MsrFunction* f = m_.function(n);
    if (!f) fail(m_, r_, "fun" + std::to_string(n) + " is not defined in FUNCTIONS");
    if (!active_.insert(n).second) fail(m_, r_, "fun" + std::to_string(n) + " refers to itself");
    if (active_.size() > kMaxFunctionChain)
      throw InputError(m_.path.string() + ":" + std::to_string(f->line) + ": fun" + std::to_string(n) + " is reached through more than " +
                       std::to_string(kMaxFunctionChain) + " functions referring to one another");
    auto id = lower_expression(*f->expr, b_, *this);
    active_.erase(n);
    done_[n] = id;
    return id;
  }
  std::int32_t arg(const TheoryArg& a) {
    switch (a.kind) {
      case TheoryArg::Kind::param: return param(a.n);
      case TheoryArg::Kind::map: return map(a.n);
      case TheoryArg::Kind::fun: return fun(a.n);
    }
    return -1;
  }

 private:
  const MsrFile& m_;
  const MsrRun& r_;
  ProgramBuilder& b_;
  std::map<int, std::int32_t> done_;
  std::set<int> active_;
};

// One group of histograms summed after aligning each to the first one's t0.
struct Group {
  std::vector<double> counts;  // raw bins of the summed group
  double t0 = 0.0;
  int fgb = 0, lgb = 0;
};

Group sum_group(const MsrFile& m, const MsrRun& r, const PsiBinFile& f, const std::vector<int>& hists,
                std::size_t t0_offset, std::size_t data_offset) {
  const auto& s = r.settings;
  const int nh = static_cast<int>(f.histograms.size());
  const int bins = f.bins();
  Group g;
  g.counts.assign(static_cast<std::size_t>(bins), 0.0);
  std::vector<double> t0s;
  for (std::size_t k = 0; k < hists.size(); ++k) {
    const int h = hists[k];
    if (h > nh) fail(m, r, "histogram " + std::to_string(h) + " does not exist (the file has " + std::to_string(nh) + ")");
    if (s.t0.size() > t0_offset + k) t0s.push_back(s.t0[t0_offset + k]);
    else if (s.t0.size() == 1) t0s.push_back(s.t0[0]);
    else t0s.push_back(f.t0[h - 1]);
    if (!(t0s.back() >= 0.0 && t0s.back() < bins)) fail(m, r, "t0 " + std::to_string(t0s.back()) + " is outside the histogram");
  }
  g.t0 = t0s[0];
  for (std::size_t k = 0; k < hists.size(); ++k) {
    const auto& h = f.histograms[hists[k] - 1];
    // An empty histogram fits to any parameters: a wrong histogram number or a dead detector.
    if (std::all_of(h.begin(), h.end(), [](std::int32_t v) { return v == 0; }))
      fail(m, r, "histogram " + std::to_string(hists[k]) + " has no counts (every bin is 0)");
    const int shift = static_cast<int>(std::lround(t0s[k] - t0s[0]));
    for (int i = 0; i < bins; ++i) {
      const int j = i + shift;
      if (j >= 0 && j < bins) g.counts[i] += h[j];
    }
  }
  if (s.data.size() >= data_offset + 2) {
    g.fgb = s.data[data_offset];
    g.lgb = s.data[data_offset + 1];
  } else {
    g.fgb = f.first_good[hists[0] - 1];
    g.lgb = f.last_good[hists[0] - 1];
  }
  if (g.fgb < 0 || g.lgb > bins || g.lgb - g.fgb < 2)
    fail(m, r, "data range " + std::to_string(g.fgb) + ".." + std::to_string(g.lgb) + " is not inside 0.." + std::to_string(bins));
  return g;
}

// Mean counts per raw bin over [start, end], cut to whole PSI beam periods.
double background_mean(const MsrFile& m, const MsrRun& r, const Group& g, int start, int end, double dt) {
  if (start < 0 || end >= static_cast<int>(g.counts.size()) || end < start)
    fail(m, r, "background range " + std::to_string(start) + " " + std::to_string(end) + " is not inside the histogram");
  if (r.institute == "PSI" || r.institute == "psi") {
    const double periods = std::floor((end - start + 1) * dt / kPsiBeamPeriodUs);
    if (periods >= 1.0) end = start + static_cast<int>(std::lround(periods * kPsiBeamPeriodUs / dt)) - 1;
  }
  double sum = 0.0;
  for (int i = start; i <= end; ++i) sum += g.counts[i];
  return sum / (end - start + 1);
}

// musrfit's packing: a pack is emitted when (i − fgb) % p == 0 and i ≠ fgb (trailing partial
// pack and, where the range divides evenly, the last full pack are dropped, as musrfit does).
std::vector<double> pack(const std::vector<double>& c, int fgb, int lgb, int p) {
  std::vector<double> out;
  double v = 0.0;
  for (int i = fgb; i < lgb; ++i) {
    if ((i - fgb) % p == 0 && i != fgb) {
      out.push_back(v);
      v = 0.0;
    }
    v += c[i];
  }
  return out;
}

std::pair<double, double> fit_window(const MsrRun& r, const Group& g, double dt) {
  if (!r.settings.fit) return {(g.fgb - g.t0) * dt, (g.lgb - g.t0) * dt};
  const auto& f = *r.settings.fit;
  if (f.in_bins) return {(g.fgb + f.start_offset - g.t0) * dt, (g.lgb - f.end_offset - g.t0) * dt};
  return {f.start, f.end};
}

}  // namespace

std::int32_t build_theory(const MsrFile& msr, const MsrRun& run, ProgramBuilder& b) {
  RunResolver res(msr, run, b);
  const auto t = b.time();
  std::int32_t sum = b.constant(0.0);
  for (const auto& term : msr.theory) {
    std::int32_t prod = b.constant(1.0);
    for (const auto& f : term) {
      std::vector<std::int32_t> args;
      for (const auto& a : f.args) args.push_back(res.arg(a));
      prod = b.mul(prod, f.user ? build_user_function(b, *f.user, args, t) : build_theory_function(b, f.fn, args, t));
    }
    sum = b.add(sum, prod);
  }
  return sum;
}

PsiBinFile load_run_data(const MsrFile& msr, const MsrRun& run) {
  return read_run_file(find_run_file(msr, run), run.format);
}

namespace {

// Single histogram (fittype 0): N(t) = N0 e^(−t/τ)[1 + A(t)] + Bkg on packed, scaled counts.
RunBins single_histogram_bins(const MsrFile& msr, const MsrRun& r, const PsiBinFile& f, bool scale, int p,
                              ProgramBuilder& b, std::int32_t theory, RunInfo& info) {
  const double dt = f.bin_width_us;
  const auto t = b.time();
  RunBins bins;
    Group g = sum_group(msr, r, f, r.forward, 0, 0);
    info.normalizer = scale ? p * dt * 1e3 : 1.0;
    RunResolver res(msr, r, b);
    const auto n0 = r.norm.is_fun ? res.fun(r.norm.n) : res.param(r.norm.n);
    if (!r.norm.is_fun) info.norm_param = r.norm.n - 1;
    std::int32_t bkg;
    if (r.backgr_fit > 0) {
      bkg = res.param(r.backgr_fit);
      info.bkg_param = r.backgr_fit - 1;
    } else if (!r.backgr_fix.empty()) {
      bkg = b.constant(info.background = r.backgr_fix[0]);
    } else if (r.background.size() >= 2) {
      bkg = b.constant(info.background = background_mean(msr, r, g, r.background[0], r.background[1], dt) * p / info.normalizer);
    } else {
      fail(msr, r, "needs backgr.fit, backgr.fix or a background bin range");
    }
    std::int32_t tau = b.constant(kMuonLifetime);
    if (r.lifetime > 0) {
      tau = res.param(r.lifetime);
      info.lifetime_param = r.lifetime - 1;
    }
    auto decay = b.unary(OpCode::exp, b.unary(OpCode::neg, b.div(t, tau)));
    auto model = b.add(b.mul(b.mul(n0, decay), b.add(b.constant(1.0), theory)), bkg);
    bins.model = b.finish(model);
    bins.scale = info.normalizer;
    const auto packed = pack(g.counts, g.fgb, g.lgb, p);
    const auto [t_start, t_end] = fit_window(r, g, dt);
    for (std::size_t k = 0; k < packed.size(); ++k) {
      const double tk = dt * ((g.fgb - 0.5) + p / 2.0 - g.t0) + static_cast<double>(k) * p * dt;
      if (tk < t_start || tk > t_end) continue;
      bins.t.push_back(tk);
      bins.y.push_back(packed[k] / info.normalizer);
      bins.sigma.push_back(packed[k] > 0.0 ? std::sqrt(packed[k]) / info.normalizer : 1.0 / info.normalizer);
    }
  return bins;
}

// Asymmetry (fittype 2): A = (F−B)/(F+B) against A_th(α, β, f).
RunBins asymmetry_bins(const MsrFile& msr, const MsrRun& r, const PsiBinFile& f, int p, ProgramBuilder& b,
                       std::int32_t theory, RunInfo& info) {
  const double dt = f.bin_width_us;
  RunBins bins;
    Group gf = sum_group(msr, r, f, r.forward, 0, 0);
    Group gb = sum_group(msr, r, f, r.backward, r.forward.size(), 2);
    double bf = 0.0, bb = 0.0;
    if (r.backgr_fix.size() == 2) {
      bf = r.backgr_fix[0];
      bb = r.backgr_fix[1];
    } else if (r.background.size() == 4) {
      bf = background_mean(msr, r, gf, r.background[0], r.background[1], dt);
      bb = background_mean(msr, r, gb, r.background[2], r.background[3], dt);
    } else {
      fail(msr, r, "asymmetry RUN needs 'background' with 4 bins or 'backgr.fix' with 2 values");
    }
    info.backgrounds = {bf, bb};
    RunResolver res(msr, r, b);
    auto alpha = r.alpha > 0 ? res.param(r.alpha) : b.constant(1.0);
    auto beta = r.beta > 0 ? res.param(r.beta) : b.constant(1.0);
    // A_th = (f(αβ+1) − (α−1)) / ((α+1) − f(αβ−1))
    auto one = b.constant(1.0);
    auto ab = b.mul(alpha, beta);
    auto num = b.sub(b.mul(theory, b.add(ab, one)), b.sub(alpha, one));
    auto den = b.sub(b.add(alpha, one), b.mul(theory, b.sub(ab, one)));
    bins.model = b.finish(b.div(num, den));
    // Common range relative to t0 (rounded to whole bins).
    const int it0f = static_cast<int>(std::lround(gf.t0)), it0b = static_cast<int>(std::lround(gb.t0));
    const int rel0 = std::max(gf.fgb - it0f, gb.fgb - it0b), rel1 = std::min(gf.lgb - it0f, gb.lgb - it0b);
    if (rel1 - rel0 < 2) fail(msr, r, "forward and backward data ranges do not overlap");
    const auto pf = pack(gf.counts, it0f + rel0, it0f + rel1, p);
    const auto pb = pack(gb.counts, it0b + rel0, it0b + rel1, p);
    Group gtime = gf;
    gtime.fgb = it0f + rel0;
    gtime.lgb = it0f + rel1;
    const auto [t_start, t_end] = fit_window(r, gtime, dt);
    for (std::size_t k = 0; k < pf.size(); ++k) {
      const double tk = dt * ((gtime.fgb - 0.5) + p / 2.0 - gf.t0) + static_cast<double>(k) * p * dt;
      if (tk < t_start || tk > t_end) continue;
      const double F = pf[k] - p * bf, B = pb[k] - p * bb;
      const double ef2 = pf[k] > 0 ? pf[k] : 1.0, eb2 = pb[k] > 0 ? pb[k] : 1.0;
      const double sum = F + B;
      if (sum <= 0.0) continue;  // no asymmetry defined (documented departure)
      bins.t.push_back(tk);
      bins.y.push_back((F - B) / sum);
      bins.sigma.push_back(2.0 / (sum * sum) * std::sqrt(B * B * ef2 + F * F * eb2));
    }
  return bins;
}

}  // namespace

FitSetup prepare_fit(const MsrFile& msr, const std::function<PsiBinFile(const MsrRun&)>& load) {
  FitSetup out;
  const int np = static_cast<int>(msr.params.size());
  out.data.num_params = np;
  const bool scale = msr.scale_n0_bkg();
  const bool any_asym = std::any_of(msr.runs.begin(), msr.runs.end(), [](const MsrRun& r) { return r.fittype() == 2; });
  out.data.statistic = msr.max_likelihood() && !any_asym ? Statistic::max_likelihood : Statistic::chi2;
  for (const auto& r : msr.runs) {
    const PsiBinFile f = load(r);
    const int p = r.settings.packing.value_or(1);
    RunInfo info;
    info.name = r.file;
    info.fittype = r.fittype();
    info.dt_us = f.bin_width_us;
    info.packing = p;
    info.lifetime_correction = r.lifetime_correction;
    ProgramBuilder b(np);
    const auto theory = build_theory(msr, r, b);
    RunBins bins = info.fittype == 0 ? single_histogram_bins(msr, r, f, scale, p, b, theory, info)
                                     : asymmetry_bins(msr, r, f, p, b, theory, info);
    if (bins.t.size() < 2) fail(msr, r, "fit range leaves " + std::to_string(bins.t.size()) + " bins");
    out.data.runs.push_back(std::move(bins));
    out.runs.push_back(info);
  }
  check_user_functions_finite(msr, out.data.runs);
  out.used.assign(static_cast<std::size_t>(np), false);
  for (const auto& rb : out.data.runs)
    for (int i : rb.model.params_used()) out.used[i] = true;
  return out;
}

}  // namespace tomo::musr
