// Sensitivity over all crystal pairs by back-projecting ones (see sensitivity.hpp).
#include "compute/safir/sensitivity.hpp"

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/progress.hpp"

namespace tomo::safir {

bool sensitivity_symmetry_applies(const Scanner& sc, const ImageBox& box) {
  return sc.crystals % 4 == 0 && box.n[0] == box.n[1];
}

namespace {

// Back-projects ordered pairs (a, b ≠ a) for a in `crystals_a` (the share's of them), each with weight
// w(a, b), in calls of at most `per_call` pairs, into `s`. kPerA: the weight depends on a only; a
// call then holds pairs of one weight and back-projects ones, its image scaled by that weight in
// double, so no per-pair values are made, sorted or uploaded (with the pair lists made on the
// device, this takes the cuda sensitivity of the paper's scanner from about 0.5 s to tens of ms).
template <bool kPerA, class Weight>
void back_project_pairs(ListModeOperator& op, const Scanner& sc, std::vector<std::uint32_t> crystals_a, Weight&& w,
                        std::size_t per_call, std::vector<double>& s, PairShare share) {
  if (share.ranks > 1) {
    std::vector<std::uint32_t> mine;
    for (std::size_t i = std::size_t(share.rank); i < crystals_a.size(); i += std::size_t(share.ranks))
      mine.push_back(crystals_a[i]);
    crystals_a = std::move(mine);
  }
  const std::uint32_t n = sc.crystal_count();
  if (op.crystal_count() != n)
    throw Error(str_cat("safir sensitivity: pairs over ", n, " crystals for an operator configured with ", op.crystal_count()));
  std::vector<std::uint32_t> firsts;  // a of this call's pairs
  std::vector<double> values;         // their weights (unless kPerA)
  if (!kPerA) values.reserve(per_call);
  double call_weight = 0.0;           // kPerA: the weight of every pair of the call
  Progress progress("safir sensitivity", static_cast<long>(crystals_a.size()));
  auto flush = [&] {
    if (firsts.empty()) return;
    op.set_pair_events(firsts);
    const auto part = op.back(values);
    const double scale = kPerA ? call_weight : 1.0;
    for (std::size_t j = 0; j < s.size(); ++j) s[j] += scale * part[j];
    firsts.clear();
    values.clear();
  };
  for (const std::uint32_t a : crystals_a) {
    if constexpr (kPerA) {
      const double wa = w(a, a);
      if ((firsts.size() + 1) * (n - 1) > per_call || (!firsts.empty() && wa != call_weight)) flush();
      call_weight = wa;
    } else {
      if (values.size() + n > per_call) flush();
      for (std::uint32_t b = 0; b < n; ++b)
        if (b != a) values.push_back(w(a, b));
    }
    firsts.push_back(a);
    progress.step(1);
  }
  flush();
  progress.finish();
}

}  // namespace

std::vector<double> compute_sensitivity(ListModeOperator& op, const Scanner& sc, const ImageBox& box,
                                        SensitivityMode mode, std::size_t pairs_per_call, PairShare share) {
  pairs_per_call = std::max<std::size_t>(pairs_per_call, sc.crystal_count());
  std::vector<double> s(box.count(), 0.0);
  std::vector<std::uint32_t> as;
  if (mode == SensitivityMode::all_pairs || !sensitivity_symmetry_applies(sc, box)) {
    // Every ordered pair: each LOR twice.
    for (std::uint32_t a = 0; a < sc.crystal_count(); ++a) as.push_back(a);
    back_project_pairs<true>(op, sc, as, [](std::uint32_t, std::uint32_t) { return 0.5; }, pairs_per_call, s, share);
    return s;
  }
  // a in the first quarter of the ring (detectors [0, C/4)) and rings [0, mid]; the middle ring
  // of an odd count is its own mirror image and counts half. The 8 images of this set under the
  // quarter turns and the z mirror are all ordered pairs once; every LOR is two ordered pairs.
  const int mid = (sc.rings - 1) / 2;
  for (int r = 0; r <= mid; ++r)
    for (int d = 0; d < sc.crystals / 4; ++d) as.push_back(sc.id(r, d));
  const bool odd = sc.rings % 2 == 1;
  std::vector<double> q(box.count(), 0.0);
  back_project_pairs<true>(
      op, sc, as,
      [&](std::uint32_t a, std::uint32_t) { return (odd && static_cast<int>(a / sc.crystals) == mid ? 0.5 : 1.0) * 0.5; },
      pairs_per_call, q, share);
  // s(v) = Σ_g q(g v) over the quarter turns (x, y) → (−y, x): (i, j) → (n−1−j, i), and z mirror.
  const int n = box.n[0], nz = box.n[2];
  const Grid3 g = box.grid();
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        double sum = 0;
        int x = i, y = j;
        for (int r = 0; r < 4; ++r) {
          sum += q[g.index(x, y, k)] + q[g.index(x, y, nz - 1 - k)];
          const int t = x;
          x = n - 1 - y;
          y = t;
        }
        s[g.index(i, j, k)] = sum;
      }
  return s;
}

std::vector<double> compute_weighted_sensitivity(ListModeOperator& op, const Scanner& sc, const ImageBox& box,
                                                 const std::function<double(std::uint32_t, std::uint32_t)>& weight,
                                                 std::size_t pairs_per_call, PairShare share) {
  pairs_per_call = std::max<std::size_t>(pairs_per_call, sc.crystal_count());
  std::vector<double> s(box.count(), 0.0);
  std::vector<std::uint32_t> as;
  for (std::uint32_t a = 0; a < sc.crystal_count(); ++a) as.push_back(a);
  back_project_pairs<false>(op, sc, as, [&](std::uint32_t a, std::uint32_t b) { return 0.5 * weight(a, b); }, pairs_per_call, s,
                     share);
  return s;
}

}  // namespace tomo::safir
