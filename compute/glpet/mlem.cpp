// glpet ML-EM driver: s = Aᵀ1 once, then ỹ = A x, b = Aᵀ(y/ỹ), x ← x·b/s ([Toth2010] eq. (3)).
#include "compute/glpet/mlem.hpp"

#include <memory>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/report.hpp"
#include "compute/glpet/stage_timer.hpp"
#include "compute/pet/corrections.hpp"
#include "compute/pet/prior.hpp"
#include "compute/pet/subsets.hpp"

namespace tomo::glpet {

namespace {

// The glpet backend as the reconstruction layer's primitives: subset k's counts y_k (y on its
// LORs, 0 elsewhere: terms with y = 0 add nothing to the ratio) and sensitivity s_k = Aᵀ1_k
// (0 outside the field of view) are made once and stay on the backend.
class LorSubsets final : public pet::SubsetPrimitives {
 public:
  // With `terms` (per LOR: normalisation n and randoms + scatter counts, docs/pet.md) the ratio
  // n·y/(n·A x + r + s) is formed on the host between the backend's forward and back passes, and
  // s_k = Aᵀ(n·1_k) (`s` must then already be Aᵀn).
  // `keep_unseen` (subsets of whole module pairs): voxels a subset does not see (s_k = 0 inside
  // the field of view) keep their value in its update, which then runs on the host.
  LorSubsets(Projector& op, const BackendBuffer& y, BackendBuffer& s, BackendBuffer& x, BackendBuffer& t,
             BackendBuffer& b, std::span<const int> subset_of_lor, int subsets, RunReport* report,
             const pet::ForwardTerms* terms = nullptr, bool keep_unseen = false)
      : op_(op), x_(x), t_(t), b_(b), report_(report), terms_(terms && !terms->empty() ? terms : nullptr),
        keep_unseen_(keep_unseen) {
    if (terms_) {
      const std::vector<float> hy = download(y);
      hy_.assign(hy.begin(), hy.end());
      subset_of_lor_.assign(subset_of_lor.begin(), subset_of_lor.end());
      z_ = op.make_lors();
    }
    if (subsets <= 1) {
      y_.push_back(&y);
      s_.push_back(&s);
      return;
    }
    const std::vector<float> hy = download(y), hs = download(s);
    for (int k = 0; k < subsets; ++k) {
      std::vector<float> yk(hy.size(), 0.0f), mask(hy.size(), 0.0f);
      for (std::size_t l = 0; l < hy.size(); ++l)
        if (subset_of_lor[l] == k)
          yk[l] = hy[l], mask[l] = terms_ && !terms_->multiplicative.empty() ? float(terms_->multiplicative[l]) : 1.0f;
      auto by = op.make_lors(), bs = op.make_image();
      by->upload(yk);
      {
        auto bm = op.make_lors();
        bm->upload(mask);
        StageTimer timer(op, report, "sensitivity");
        op.back(*bm, *bs);
      }
      std::vector<float> sk = download(*bs);
      for (std::size_t v = 0; v < sk.size(); ++v)
        if (!(hs[v] > 0)) sk[v] = 0;  // the field of view of the whole data
      bs->upload(sk);
      own_.push_back(std::move(by));
      own_.push_back(std::move(bs));
      y_.push_back(own_[own_.size() - 2].get());
      s_.push_back(own_.back().get());
    }
  }
  int subset_count() const override { return int(y_.size()); }
  std::size_t voxel_count() const override { return x_.size(); }
  void set_image(std::span<const double> x) override { x_.upload(std::vector<float>(x.begin(), x.end())); }
  std::vector<double> image() override {
    const auto x = download(x_);
    return {x.begin(), x.end()};
  }
  std::vector<double> sensitivity(int k) override {
    const auto s = download(*s_[k]);
    return {s.begin(), s.end()};
  }
  void em_step(int k) override {
    ratio(k);
    StageTimer timer(op_, report_, "update");
    if (!keep_unseen_) {
      op_.mlem_update(x_, b_, *s_[k]);
      return;
    }
    std::vector<float> x = download(x_);
    const std::vector<float> b = download(b_), sk = download(*s_[k]);
    for (std::size_t v = 0; v < x.size(); ++v)
      if (sk[v] > 0) x[v] = x[v] * b[v] / sk[v];
    x_.upload(x);
  }
  std::vector<double> back_ratio(int k) override {
    ratio(k);
    const auto b = download(b_);
    return {b.begin(), b.end()};
  }

 private:
  void ratio(int k) {
    {
      StageTimer timer(op_, report_, "forward");
      op_.forward(x_, t_);  // [Toth2010] eq. (2)
    }
    StageTimer timer(op_, report_, "back_ratio");
    if (!terms_) {
      op_.back_ratio(*y_[k], t_, b_, nullptr);  // [Toth2010] eq. (3) numerator
      return;
    }
    const std::vector<float> ht = download(t_);
    std::vector<double> z(ht.begin(), ht.end());
    pet::binned_ratio(z, hy_, *terms_);  // n·y / (n·A x + r + s)
    if (!subset_of_lor_.empty())
      for (std::size_t l = 0; l < z.size(); ++l)
        if (subset_of_lor_[l] != k) z[l] = 0;
    z_->upload(std::vector<float>(z.begin(), z.end()));
    op_.back(*z_, b_);
  }
  Projector& op_;
  BackendBuffer &x_, &t_, &b_;
  RunReport* report_;
  std::vector<const BackendBuffer*> y_;
  std::vector<BackendBuffer*> s_;
  std::vector<std::unique_ptr<BackendBuffer>> own_;
  const pet::ForwardTerms* terms_;
  std::vector<double> hy_;          // with terms: the counts on the host
  std::vector<int> subset_of_lor_;  // with terms and subsets
  std::unique_ptr<BackendBuffer> z_;
  bool keep_unseen_ = false;
};

}  // namespace

std::vector<int> lor_subsets(const Scanner& sc, int subsets) {
  const std::vector<int> by_pair = pair_subsets(sc, subsets);
  if (!by_pair.empty()) {
    std::vector<int> out;
    out.reserve(sc.lor_count());
    for (std::size_t p = 0; p < sc.pairs.size(); ++p) out.insert(out.end(), sc.pairs[p].lor_count(), by_pair[p]);
    return out;
  }
  std::vector<double> phi;
  std::vector<int> group;
  phi.reserve(sc.lor_count());
  group.reserve(sc.lor_count());
  for (std::size_t p = 0; p < sc.pairs.size(); ++p) {
    const ModulePair& pair = sc.pairs[p];
    const Module &m0 = pair.modules[0], &m1 = pair.modules[1];
    const std::size_t base = phi.size();
    phi.resize(base + pair.lor_count());
    group.resize(base + pair.lor_count(), int(p));
    for (int j0 = 0; j0 < pair.n_t(); ++j0)
      for (int j1 = 0; j1 < pair.n_t(); ++j1)
        for (int i0 = 0; i0 < pair.n_a(); ++i0)
          for (int i1 = 0; i1 < pair.n_a(); ++i1) {
            const Vec3 d = sub(m1.point((i1 + 0.5) * m1.pitch_a, (j1 + 0.5) * m1.pitch_t),
                               m0.point((i0 + 0.5) * m0.pitch_a, (j0 + 0.5) * m0.pitch_t));
            double a = std::atan2(d[1], d[0]);
            if (a < 0) a += M_PI;
            if (a >= M_PI) a -= M_PI;
            phi[base + pair.lor_index(i0, j0, i1, j1)] = a;
          }
  }
  return pet::angular_subsets(phi, group, subsets);
}

MlemResult run_mlem(Projector& op, std::span<const float> y, std::span<const float> x0, const MlemOptions& opt) {
  if (opt.iterations < 0) throw InputError(str_cat("glpet: iterations must be >= 0, got ", opt.iterations));
  for (float v : y)
    if (!std::isfinite(v) || v < 0) throw InputError(str_cat("glpet: measured count ", v, " is not finite and >= 0"));
  auto by = op.make_lors();
  auto bt = op.make_lors();
  auto bx = op.make_image();
  auto bb = op.make_image();
  auto bs = op.make_image();
  if (y.size() != by->size()) throw InputError(str_cat("glpet: ", y.size(), " measured LORs, the scanner has ", by->size()));
  by->upload(y);
  const pet::ForwardTerms* terms = opt.terms && !opt.terms->empty() ? opt.terms : nullptr;
  if (terms) {
    if ((!terms->multiplicative.empty() && terms->multiplicative.size() != y.size()) ||
        (!terms->additive.empty() && terms->additive.size() != y.size()))
      throw Error(str_cat("glpet: correction terms for ", terms->multiplicative.size(), "/", terms->additive.size(),
                          " LORs, the scanner has ", y.size()));
  }
  {
    StageTimer t(op, opt.report, "sensitivity");
    if (terms && !terms->multiplicative.empty()) {  // s = Aᵀn
      auto bn = op.make_lors();
      bn->upload(std::vector<float>(terms->multiplicative.begin(), terms->multiplicative.end()));
      op.back(*bn, *bs);
    } else {
      op.sensitivity(*bs);
    }
  }
  MlemResult res;
  const MaskedStart start = mask_and_start(*bs, *bx, x0, opt.sensitivity_threshold, opt.outside_fov);
  res.sensitivity = start.sensitivity;
  res.masked = start.masked;
  if (terms && !terms->additive.empty() && x0.empty()) {
    // A flat start of 1 lies orders of magnitude below the counts' scale; EM's first step
    // rescales it without additive terms, but with them each step grows it at most by y/(r+s).
    // So the flat start is scaled to the trues the data hold (pet::flat_start_level).
    const std::vector<float> hs = download(*bs);
    double sum_s = 0, sum_y = 0, sum_c = 0;
    for (float v : hs) sum_s += v > 0 ? v : 0;
    for (float v : y) sum_y += v;
    for (double c : terms->additive) sum_c += c;
    const double level = pet::flat_start_level(sum_y, sum_c, sum_s);
    std::vector<float> x(hs.size());
    for (std::size_t v = 0; v < x.size(); ++v) x[v] = hs[v] > 0 ? float(level) : 0.0f;
    bx->upload(x);
  }
  pet::ReconOptions recon = opt.recon;
  recon.iterations = opt.iterations;
  if ((recon.subsets > 1 || pet::uses_prior(recon.algorithm)) && !opt.system)
    throw Error("glpet: subsets and priors need the system model in MlemOptions");
  const std::vector<int> subset_of_lor =
      recon.subsets > 1 ? lor_subsets(opt.system->scanner, recon.subsets) : std::vector<int>{};
  // Subsets of whole module pairs (lor_subsets) run on projectors of their own when the run can
  // make them, else as masked passes over every LOR.
  const std::vector<int> subset_of_pair =
      recon.subsets > 1 ? pair_subsets(opt.system->scanner, recon.subsets) : std::vector<int>{};
  const bool own = !subset_of_pair.empty() && opt.make_projector;
  std::unique_ptr<pet::SubsetPrimitives> data;
  if (own)
    data = std::make_unique<PairSubsets>(op, *opt.system, subset_of_pair, recon.subsets, opt.make_projector, y, *bs,
                                         *bx, *bb, opt.report, terms);
  else
    data = std::make_unique<LorSubsets>(op, *by, *bs, *bx, *bt, *bb, subset_of_lor, recon.subsets, opt.report, terms,
                                        !subset_of_pair.empty());
  std::unique_ptr<pet::PriorOperator> prior;
  if (pet::uses_prior(recon.algorithm)) {
    const std::vector<float> s = download(*bs);
    prior = pet::make_prior(opt.prior_backend, {opt.system->grid.dims, opt.system->grid.voxel_mm}, recon.prior,
                            std::vector<double>(s.begin(), s.end()));
  }
  res.iterations = pet::reconstruct(*data, recon, prior.get(),
                                    {.after_subset = opt.on_subset,
                                     .after_iteration = [&](int it) {
                                       return !opt.on_iteration || opt.on_iteration(it, *bx);
                                     }});
  if (own && res.iterations > 0) op.forward(*bx, *bt);  // the estimate of every LOR
  res.x = download(*bx);
  res.estimate = res.iterations > 0 ? download(*bt) : std::vector<float>(by->size(), 0.0f);
  return res;
}

MaskedStart mask_and_start(BackendBuffer& bs, BackendBuffer& bx, std::span<const float> x0, double threshold,
                           std::span<const std::uint8_t> outside) {
  if (!outside.empty() && outside.size() != bs.size())
    throw Error(str_cat("glpet: field-of-view mask of ", outside.size(), " voxels for an image of ", bs.size()));
  MaskedStart out;
  out.sensitivity = download(bs);
  // The field of view: a zero sensitivity makes every backend's update hold the voxel at 0.
  std::vector<float> s = out.sensitivity;
  const float floor = sensitivity_floor<float>(s, threshold);
  for (float& v : s)
    if (v > 0 && v < floor) v = 0, ++out.masked;
  out.masked += zero_outside<float>(s, outside);
  if (out.masked > 0) bs.upload(s);
  if (x0.empty()) {
    std::vector<float> ones(bx.size());
    for (std::size_t v = 0; v < ones.size(); ++v) ones[v] = s[v] > 0 ? 1.0f : 0.0f;
    bx.upload(ones);
  } else {
    std::vector<float> x(x0.begin(), x0.end());
    if (x.size() == s.size())
      for (std::size_t v = 0; v < x.size(); ++v)
        if (!(s[v] > 0)) x[v] = 0;
    bx.upload(x);
  }
  return out;
}

}  // namespace tomo::glpet
