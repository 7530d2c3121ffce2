// glpet Monte-Carlo: the independent data model (DESIGN.md: no inverse crime).
#include "compute/glpet/monte_carlo.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <numbers>
#include <random>

#include "compute/core/error.hpp"
#include "compute/core/interrupt.hpp"
#include "compute/core/log.hpp"
#include "compute/core/progress.hpp"
#include "compute/glpet/siddon.hpp"
#include "compute/multi/process_share.hpp"

namespace tomo::glpet {

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// Hit of the line e + μ·ω with module m (its corner() passed in, computed once): μ and the
// detector (i, j); false when outside.
bool hit_module(const Module& m, const Vec3& corner, const Vec3& e, const Vec3& w, double& mu, int& i, int& j) {
  const double dn = dot(w, m.normal);
  if (dn == 0) return false;
  mu = dot(sub(m.centre, e), m.normal) / dn;
  const Vec3 rel = sub(add(e, scale(w, mu)), corner);
  const double a = dot(rel, m.axis_a) / m.pitch_a, t = dot(rel, m.axis_t) / m.pitch_t;
  if (!(a >= 0 && t >= 0 && a < m.n_a && t < m.n_t)) return false;
  i = std::min(int(a), m.n_a - 1);
  j = std::min(int(t), m.n_t - 1);
  return true;
}
// A module's intersection with the current history's line, computed on first use.
struct Hit {
  bool known = false, hit = false;
  double mu = 0;
  int i = 0, j = 0;
};
const Hit& hit_of(Hit& h, const Module& m, const Vec3& corner, const Vec3& e, const Vec3& w) {
  if (!h.known) h.known = true, h.hit = hit_module(m, corner, e, w, h.mu, h.i, h.j);
  return h;
}

bool same(const Vec3& a, const Vec3& b) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }
bool same(const Module& a, const Module& b) {
  return same(a.centre, b.centre) && same(a.normal, b.normal) && same(a.axis_a, b.axis_a) && same(a.axis_t, b.axis_t) &&
         a.n_a == b.n_a && a.n_t == b.n_t && a.pitch_a == b.pitch_a && a.pitch_t == b.pitch_t;
}

// The scene index of every pair's modules, and whether each index names equal modules in every
// pair that lists it (then one intersection per module and history serves all its pairs).
bool shared_modules_agree(const Scanner& scanner, std::vector<std::array<int, 2>>& ids) {
  std::vector<const Module*> first(std::size_t(scanner.module_count()), nullptr);
  bool shared = false;
  for (std::size_t p = 0; p < scanner.pairs.size(); ++p) {
    ids.push_back(scanner.module_ids(p));
    for (int k = 0; k < 2; ++k) {
      const Module& m = scanner.pairs[p].modules[std::size_t(k)];
      const Module*& f = first[std::size_t(ids.back()[std::size_t(k)])];
      if (!f) f = &m;
      else if (!same(*f, m)) return false;
      else shared = true;
    }
  }
  return shared;
}
}  // namespace

Rng::Rng(std::uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}

std::uint64_t Rng::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

VoxelSource::VoxelSource(const VolumeF& activity) : grid_(activity.grid) {
  for (std::size_t v = 0; v < activity.data.size(); ++v) {
    const double a = activity.data[v];
    if (!std::isfinite(a) || a < 0) throw InputError(str_cat("glpet: activity value ", a, " is not finite and >= 0"));
    if (a > 0) {
      total_ += a;
      cdf_.push_back(total_);
      index_.push_back(v);
    }
  }
  if (total_ <= 0) throw InputError("glpet: the activity phantom is zero everywhere");
  // guide_[b]: the first voxel whose cumulative activity exceeds b·total/B (a guide table, so
  // that a draw searches one bucket of the CDF instead of all of it).
  const std::size_t buckets = cdf_.size();
  guide_.resize(buckets + 1);
  for (std::size_t b = 0, n = 0; b <= buckets; ++b) {  // upper_bound of each threshold, in one sweep
    const double threshold = total_ * double(b) / double(buckets);
    while (n < cdf_.size() && cdf_[n] <= threshold) ++n;
    guide_[b] = n;
  }
}

// The first n with cdf_[n] > u (std::upper_bound over all of cdf_), searched in u's bucket and
// checked; a value the bucket does not bracket (rounding at its edges) takes the whole search.
std::size_t VoxelSource::find(double u) const {
  const std::size_t buckets = guide_.size() - 1;
  const std::size_t b = std::min(buckets - 1, std::size_t(u / total_ * double(buckets)));
  const std::size_t lo = guide_[b], hi = std::min(cdf_.size(), guide_[b + 1] + 1);
  const std::size_t n = std::size_t(std::upper_bound(cdf_.begin() + std::ptrdiff_t(lo), cdf_.begin() + std::ptrdiff_t(hi), u) - cdf_.begin());
  if ((n == 0 || cdf_[n - 1] <= u) && (n == cdf_.size() || cdf_[n] > u)) return n;
  return std::size_t(std::upper_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin());
}

Vec3 VoxelSource::sample(Rng& rng) const {
  const double u = rng.uniform() * total_;
  const std::size_t n = std::min(find(u), cdf_.size() - 1);
  const std::size_t v = index_[n];
  const int i = int(v % grid_.dims[0]), j = int((v / grid_.dims[0]) % grid_.dims[1]),
            k = int(v / (std::size_t(grid_.dims[0]) * grid_.dims[1]));
  const Vec3 c = grid_.centre(i, j, k);
  return {c[0] + (rng.uniform() - 0.5) * grid_.voxel_mm[0], c[1] + (rng.uniform() - 0.5) * grid_.voxel_mm[1],
          c[2] + (rng.uniform() - 0.5) * grid_.voxel_mm[2]};
}

McResult simulate(const Scanner& scanner, const VolumeF& sigma_t, const EmissionSource& source,
                  const McOptions& opt) {
  if (opt.histories < 1 || opt.histories > kMaxHistories)
    throw InputError(str_cat("glpet: mc.histories must be in [1, ", kMaxHistories, "], got ", opt.histories));
  McResult res;
  res.histories = opt.histories;
  const std::size_t nlor = scanner.lor_count();
  std::vector<std::size_t> offsets;
  for (std::size_t p = 0; p < scanner.pairs.size(); ++p) offsets.push_back(scanner.lor_offset(p));
  const bool attenuate = std::any_of(sigma_t.data.begin(), sigma_t.data.end(), [](float s) { return s != 0; });
  const std::int64_t chunk = 1 << 16, nchunks = (opt.histories + chunk - 1) / chunk;
  std::vector<double> hist(nlor, 0.0);
  std::int64_t geometric = 0, detected = 0;
  // A module shared by several pairs (a ring) is intersected once per history: the same
  // hit_module on the same values, so the counts are those of intersecting it per pair.
  std::vector<std::array<int, 2>> ids;
  const bool cache = shared_modules_agree(scanner, ids);
  std::vector<std::array<Vec3, 2>> corners;
  for (const auto& pair : scanner.pairs) corners.push_back({pair.modules[0].corner(), pair.modules[1].corner()});
  const ProcessShare share = process_share();  // under mpirun: this process's chunks, summed below
  if (share.size > 1)
    log_info("glpet Monte-Carlo: process ", share.rank, " of ", share.size, " runs ", share.count(nchunks), " of ",
             nchunks, " chunks");
  Progress progress("Monte-Carlo", share.count(nchunks));
  std::atomic<std::int64_t> chunks_done{0};
  std::int64_t chunks_shown = 0;  // thread 0's
#pragma omp parallel reduction(+ : geometric, detected)
  {
    std::vector<std::uint32_t> local(nlor, 0);  // histories <= 2^32 - 1: a count cannot wrap
    std::vector<Hit> hits(cache ? std::size_t(scanner.module_count()) : 0);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t c = 0; c < nchunks; ++c) {
      if (interrupted() || !share.mine(c)) continue;  // an exception cannot leave the region: skip the rest
      Rng rng(opt.seed * 0x2545f4914f6cdd1dull + std::uint64_t(c));
      const std::int64_t n = std::min(chunk, opt.histories - c * chunk);
      for (std::int64_t h = 0; h < n; ++h) {
        const Vec3 e = source.sample(rng);
        // Isotropic direction: cosθ uniform in [−1, 1], φ uniform.
        const double cz = 2 * rng.uniform() - 1, phi = 2 * std::numbers::pi * rng.uniform();
        const double sz = std::sqrt(std::max(0.0, 1 - cz * cz));
        const Vec3 w{sz * std::cos(phi), sz * std::sin(phi), cz};
        if (cache) std::fill(hits.begin(), hits.end(), Hit{});
        for (std::size_t p = 0; p < scanner.pairs.size(); ++p) {
          const auto& m = scanner.pairs[p].modules;
          double mu0, mu1;
          int i0, j0, i1, j1;
          if (cache) {
            const Hit& h0 = hit_of(hits[ids[p][0]], m[0], corners[p][0], e, w);
            if (!h0.hit) continue;
            const Hit& h1 = hit_of(hits[ids[p][1]], m[1], corners[p][1], e, w);
            if (!h1.hit) continue;
            mu0 = h0.mu, i0 = h0.i, j0 = h0.j, mu1 = h1.mu, i1 = h1.i, j1 = h1.j;
          } else if (!hit_module(m[0], corners[p][0], e, w, mu0, i0, j0) ||
                     !hit_module(m[1], corners[p][1], e, w, mu1, i1, j1)) {
            continue;
          }
          if (!(mu0 * mu1 < 0)) continue;  // the two photons fly in opposite directions
          ++geometric;
          if (attenuate) {
            const double mu = siddon_line_integral(sigma_t, add(e, scale(w, mu0)), add(e, scale(w, mu1)));
            if (rng.uniform() >= std::exp(-mu)) continue;
          }
          ++detected;
          ++local[offsets[p] + scanner.pairs[p].lor_index(i0, j0, i1, j1)];
        }
      }
      const std::int64_t done = ++chunks_done;
      if (omp_get_thread_num() == 0) {  // Progress is not thread-safe: one thread draws
        progress.step(done - chunks_shown);
        chunks_shown = done;
      }
    }
#pragma omp critical
    for (std::size_t l = 0; l < nlor; ++l) hist[l] += local[l];
  }
  throw_if_interrupted();
  progress.finish();
  if (share.size > 1) {  // whole numbers: the sum over the processes is the one-process histogram
    std::array<double, 2> n{double(geometric), double(detected)};
    sum_over_processes(hist);
    sum_over_processes(n);
    geometric = std::int64_t(n[0]), detected = std::int64_t(n[1]);
  }
  res.geometric = geometric;
  res.detected = detected;
  if (detected == 0)
    throw InputError(str_cat("glpet: none of the ", opt.histories,
                             " simulated pairs was detected: raise glpet.mc.histories, or check that the "
                             "activity lies between the detector modules"));
  if (detected < 1000)
    log_warn("glpet: only ", detected, " of ", opt.histories,
             " simulated pairs were detected: the reconstruction will be mostly noise");
  res.counts.assign(nlor, 0.0f);
  if (opt.total_counts > 0) {
    if (detected == 0) throw InputError("glpet: no Monte-Carlo pair was detected; cannot scale to total_counts");
    res.scale = opt.total_counts / double(detected);
    std::mt19937_64 gen(opt.seed ^ 0x5bd1e995ull);
    for (std::size_t l = 0; l < nlor; ++l) {
      const double mean = hist[l] * res.scale;
      if (mean > 0) res.counts[l] = float(std::poisson_distribution<std::int64_t>(mean)(gen));
    }
  } else {
    for (std::size_t l = 0; l < nlor; ++l) res.counts[l] = float(hist[l]);
  }
  return res;
}

}  // namespace tomo::glpet
