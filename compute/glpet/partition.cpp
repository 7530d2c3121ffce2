// LOR partition: row blocks of module pairs, dealt largest first (LPT) to the shares.
#include "compute/glpet/partition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::glpet {
namespace {

// Length of the segment p→q inside the grid's box (slab method).
double chord(const Vec3& p, const Vec3& q, const Grid3& g) {
  double t0 = 0, t1 = 1;
  for (int a = 0; a < 3; ++a) {
    const double lo = g.origin_mm[a] - 0.5 * g.voxel_mm[a], hi = lo + g.dims[a] * g.voxel_mm[a];
    const double d = q[a] - p[a];
    if (std::fabs(d) < 1e-300) {
      if (p[a] < lo || p[a] > hi) return 0;
      continue;
    }
    double ta = (lo - p[a]) / d, tb = (hi - p[a]) / d;
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
  }
  return t1 > t0 ? (t1 - t0) * norm(sub(q, p)) : 0.0;
}

// Module rows [block·h, (block+1)·h) as a module of its own (same detectors, same pitch).
Module row_block(const Module& m, int block, int h) {
  Module b = m;
  b.n_t = h;
  b.centre = m.point(0.5 * m.width(), (block * h + 0.5 * h) * m.pitch_t);
  return b;
}

struct Piece {
  std::size_t pair;
  int b0, b1, h;
  ModulePair sub;
  double nonzeros;
};

// Whole pairs when there are at least as many as shares; else the fewest row blocks that give
// every share a piece. Each sub-pair costs every voxel its primary block's detectors (cache
// entries, traced lines) whatever its LOR count, so cutting finer adds work: a one-pair scanner
// on two devices does as much per device as one device did (docs/multigpu.md).
int blocks_per_module(const Scanner& s, int shares) {
  int k = 1;
  auto divides_all = [&](int kk) {
    for (const auto& p : s.pairs)
      if (p.n_t() % kk != 0) return false;
    return true;
  };
  while (s.pairs.size() * std::size_t(k) * k < std::size_t(shares) && divides_all(2 * k)) k *= 2;
  return k;
}

}  // namespace

double estimate_nonzeros(const ModulePair& pair, const Grid3& grid) {
  const Module &m0 = pair.modules[0], &m1 = pair.modules[1];
  const double voxel = (grid.voxel_mm[0] + grid.voxel_mm[1] + grid.voxel_mm[2]) / 3.0;
  auto samples = [](int n) { return std::min(n, 8); };
  const int sa = samples(pair.n_a()), st = samples(pair.n_t());
  double sum = 0;
  for (int i0 = 0; i0 < sa; ++i0)
    for (int j0 = 0; j0 < st; ++j0) {
      const Vec3 p = m0.point((i0 + 0.5) * m0.width() / sa, (j0 + 0.5) * m0.height() / st);
      for (int i1 = 0; i1 < sa; ++i1)
        for (int j1 = 0; j1 < st; ++j1)
          sum += chord(p, m1.point((i1 + 0.5) * m1.width() / sa, (j1 + 0.5) * m1.height() / st), grid) / voxel;
    }
  return sum * double(pair.lor_count()) / (double(sa) * st * sa * st);
}

std::vector<LorShare> partition_lors(const SystemModel& sys, int shares) {
  if (shares < 1) throw InputError(str_cat("glpet: the LORs cannot be split into ", shares, " shares"));
  const Scanner& s = sys.scanner;
  const int k = blocks_per_module(s, shares);
  std::vector<Piece> pieces;
  for (std::size_t p = 0; p < s.pairs.size(); ++p) {
    const int h = s.pairs[p].n_t() / k;
    for (int b0 = 0; b0 < k; ++b0)
      for (int b1 = 0; b1 < k; ++b1) {
        ModulePair sub{{row_block(s.pairs[p].modules[0], b0, h), row_block(s.pairs[p].modules[1], b1, h)}};
        pieces.push_back({p, b0, b1, h, sub, estimate_nonzeros(sub, sys.grid)});
      }
  }
  if (pieces.size() < std::size_t(shares))
    throw InputError(str_cat("glpet: ", shares, " shares asked for, but the scanner's LORs split into only ",
                             pieces.size(), " pieces (module pairs x row blocks)"));
  // Largest first to the lightest share; ties by piece order, so the result is deterministic.
  std::vector<std::size_t> order(pieces.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return pieces[a].nonzeros > pieces[b].nonzeros; });
  std::vector<std::vector<std::size_t>> owned(shares);
  std::vector<double> load(shares, 0.0);
  for (std::size_t i : order) {
    const auto g = std::size_t(std::min_element(load.begin(), load.end()) - load.begin());
    owned[g].push_back(i);
    load[g] += pieces[i].nonzeros;
  }
  std::vector<LorShare> out(shares);
  for (int g = 0; g < shares; ++g) {
    std::sort(owned[g].begin(), owned[g].end());
    LorShare& sh = out[g];
    sh.nonzeros = load[g];
    for (std::size_t i : owned[g]) {
      const Piece& pc = pieces[i];
      const ModulePair& orig = s.pairs[pc.pair];
      const std::size_t base = s.lor_offset(pc.pair);
      sh.scanner.pairs.push_back(pc.sub);
      // The sub-pair's atlas in its own texel order (ModulePair::lor_index), mapped to the pair's.
      for (int jj0 = 0; jj0 < pc.h; ++jj0)
        for (int jj1 = 0; jj1 < pc.h; ++jj1)
          for (int i0 = 0; i0 < orig.n_a(); ++i0)
            for (int i1 = 0; i1 < orig.n_a(); ++i1)
              sh.global.push_back(base + orig.lor_index(i0, pc.b0 * pc.h + jj0, i1, pc.b1 * pc.h + jj1));
    }
  }
  return out;
}

std::vector<float> gather_share(const LorShare& share, const std::vector<float>& y) {
  std::vector<float> out(share.global.size());
  for (std::size_t l = 0; l < out.size(); ++l) out[l] = y.at(share.global[l]);
  return out;
}

void scatter_share(const LorShare& share, const std::vector<float>& y_share, std::vector<float>& y) {
  for (std::size_t l = 0; l < share.global.size(); ++l) y.at(share.global[l]) = y_share[l];
}

}  // namespace tomo::glpet
