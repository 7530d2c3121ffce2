// glpet's subsets by module pair, each on a projector of its own (pair_subsets.hpp).
#include "compute/glpet/pair_subsets.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "compute/core/error.hpp"
#include "compute/core/report.hpp"
#include "compute/glpet/stage_timer.hpp"

namespace tomo::glpet {

std::vector<int> pair_subsets(const Scanner& sc, int subsets) {
  const std::size_t n = sc.pairs.size();
  if (subsets < 1 || n < std::size_t(subsets)) return {};
  std::vector<double> phi(n);
  for (std::size_t p = 0; p < n; ++p) {
    const Vec3 d = sub(sc.pairs[p].modules[1].centre, sc.pairs[p].modules[0].centre);
    double a = std::atan2(d[1], d[0]);
    if (a < 0) a += M_PI;
    if (a >= M_PI) a -= M_PI;
    phi[p] = a;
  }
  std::vector<std::size_t> rank(n);
  std::iota(rank.begin(), rank.end(), std::size_t(0));
  std::stable_sort(rank.begin(), rank.end(), [&](std::size_t a, std::size_t b) { return phi[a] < phi[b]; });
  std::vector<int> out(n);
  for (std::size_t r = 0; r < n; ++r) out[rank[r]] = int(r % std::size_t(subsets));
  return out;
}

SystemModel subset_system(const SystemModel& system, std::span<const int> subset_of_pair, int subset) {
  SystemModel m = system;
  m.scanner.pairs.clear();
  m.scanner.pair_modules.clear();
  for (std::size_t p = 0; p < subset_of_pair.size(); ++p)
    if (subset_of_pair[p] == subset) {
      m.scanner.pairs.push_back(system.scanner.pairs[p]);
      m.scanner.pair_modules.push_back(system.scanner.module_ids(p));
    }
  return m;
}

PairSubsets::PairSubsets(Projector& op, const SystemModel& system, std::span<const int> subset_of_pair, int subsets,
                         const ProjectorFactory& make, std::span<const float> y, const BackendBuffer& s,
                         BackendBuffer& x, BackendBuffer& b, RunReport* report, const pet::ForwardTerms* terms)
    : op_(op), x_(x), b_(b), report_(report), terms_(terms && !terms->empty()), hx_(download(x)) {
  if (subset_of_pair.size() != system.scanner.pairs.size() || y.size() != system.lor_count())
    throw Error("glpet: pair subsets over another scanner");
  const std::vector<float> full_s = download(s);
  for (int k = 0; k < subsets; ++k) {
    Part part;
    const SystemModel m = subset_system(system, subset_of_pair, k);
    part.op = make(m);
    if (!part.op) throw Error("glpet: no projector for a subset");
    for (std::size_t p = 0; p < subset_of_pair.size(); ++p)
      if (subset_of_pair[p] == k) {
        const std::size_t at = system.scanner.lor_offset(p), n = system.scanner.pairs[p].lor_count();
        for (std::size_t l = 0; l < n; ++l) part.lors.push_back(at + l);
      }
    std::vector<float> yk(part.lors.size());
    for (std::size_t i = 0; i < yk.size(); ++i) yk[i] = y[part.lors[i]];
    part.y = part.op->make_lors();
    part.y->upload(yk);
    part.t = part.op->make_lors();
    part.s = op.make_image();
    if (terms_) {
      part.hy.assign(yk.begin(), yk.end());
      for (std::size_t l : part.lors) {
        if (!terms->multiplicative.empty()) part.terms.multiplicative.push_back(terms->multiplicative[l]);
        if (!terms->additive.empty()) part.terms.additive.push_back(terms->additive[l]);
      }
    }
    {
      StageTimer timer(*part.op, report, "sensitivity");
      if (terms_ && !part.terms.multiplicative.empty()) {  // s_k = Aᵀ(n·1_k)
        auto bn = part.op->make_lors();
        bn->upload(std::vector<float>(part.terms.multiplicative.begin(), part.terms.multiplicative.end()));
        part.op->back(*bn, *part.s);
      } else {
        part.op->sensitivity(*part.s);
      }
    }
    std::vector<float> sk = download(*part.s);
    for (std::size_t v = 0; v < sk.size(); ++v)
      if (!(full_s[v] > 0)) sk[v] = 0;  // the field of view of the whole data
    part.s->upload(sk);
    part.hs = std::move(sk);
    parts_.push_back(std::move(part));
  }
}

void PairSubsets::set_image(std::span<const double> x) {
  hx_.assign(x.begin(), x.end());
  hx_stale_ = false;
  x_.upload(hx_);
}

std::vector<double> PairSubsets::image() {
  if (hx_stale_) hx_ = download(x_), hx_stale_ = false;
  return {hx_.begin(), hx_.end()};
}

std::vector<double> PairSubsets::sensitivity(int k) {
  const auto s = download(*parts_[std::size_t(k)].s);
  return {s.begin(), s.end()};
}

void PairSubsets::em_step(int k) {
  ratio(k);
  StageTimer timer(op_, report_, "update");
  // x ← x·B_k/s_k where the subset's pairs see the voxel; the voxels they do not see (s_k = 0
  // inside the field of view: a few pairs see a band of it) keep their value, which the
  // backends' ML-EM update (0 where s = 0) cannot: the backend's subset_update where it has one,
  // else here, with x mirrored on the host (the same float arithmetic).
  if (op_.subset_update(x_, b_, *parts_[std::size_t(k)].s)) {
    hx_stale_ = true;
    return;
  }
  if (hx_stale_) hx_ = download(x_), hx_stale_ = false;
  const std::vector<float> b = download(b_);
  const std::vector<float>& sk = parts_[std::size_t(k)].hs;
  for (std::size_t v = 0; v < hx_.size(); ++v)
    if (sk[v] > 0) hx_[v] = hx_[v] * b[v] / sk[v];
  x_.upload(hx_);
}

std::vector<double> PairSubsets::back_ratio(int k) {
  ratio(k);
  const auto b = download(b_);
  return {b.begin(), b.end()};
}

void PairSubsets::ratio(int k) {
  Part& p = parts_[std::size_t(k)];
  {
    StageTimer timer(*p.op, report_, "forward");
    p.op->forward(x_, *p.t);  // [Toth2010] eq. (2) over the subset's pairs
  }
  StageTimer timer(*p.op, report_, "back_ratio");
  if (!terms_) {
    p.op->back_ratio(*p.y, *p.t, b_, nullptr);  // [Toth2010] eq. (3) numerator over the subset's pairs
    return;
  }
  const std::vector<float> ht = download(*p.t);
  std::vector<double> z(ht.begin(), ht.end());
  pet::binned_ratio(z, p.hy, p.terms);  // n·y / (n·A x + r + s)
  auto bz = p.op->make_lors();
  bz->upload(std::vector<float>(z.begin(), z.end()));
  p.op->back(*bz, b_);
}

}  // namespace tomo::glpet
