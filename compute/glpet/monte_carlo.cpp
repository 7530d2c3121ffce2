// glpet Monte-Carlo: the independent data model (DESIGN.md: no inverse crime).
#include "compute/glpet/monte_carlo.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <random>

#include "compute/core/error.hpp"
#include "compute/core/interrupt.hpp"
#include "compute/core/log.hpp"
#include "compute/core/progress.hpp"
#include "compute/core/registry.hpp"
#include "compute/glpet/siddon.hpp"
#include "compute/multi/process_share.hpp"

namespace tomo::glpet {

namespace {
mc::V3 v3(const Vec3& v) { return {v[0], v[1], v[2]}; }
mc::Module module_of(const Module& m) {
  return {v3(m.centre), v3(m.normal), v3(m.axis_a), v3(m.axis_t), v3(m.corner()), m.n_a, m.n_t, m.pitch_a, m.pitch_t};
}

bool same(const Vec3& a, const Vec3& b) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }
bool same(const Module& a, const Module& b) {
  return same(a.centre, b.centre) && same(a.normal, b.normal) && same(a.axis_a, b.axis_a) && same(a.axis_t, b.axis_t) &&
         a.n_a == b.n_a && a.n_t == b.n_t && a.pitch_a == b.pitch_a && a.pitch_t == b.pitch_t;
}

// Whether each scene index names equal modules in every pair that lists it: then one row per
// module (a ring's module, intersected once per history, serves all its pairs).
bool shared_modules_agree(const Scanner& scanner) {
  std::vector<const Module*> first(std::size_t(scanner.module_count()), nullptr);
  for (std::size_t p = 0; p < scanner.pairs.size(); ++p) {
    const auto ids = scanner.module_ids(p);
    for (int k = 0; k < 2; ++k) {
      const Module& m = scanner.pairs[p].modules[std::size_t(k)];
      const Module*& f = first[std::size_t(ids[std::size_t(k)])];
      if (!f) f = &m;
      else if (!same(*f, m)) return false;
    }
  }
  return true;
}

}  // namespace

bool cuda_generator_built() {
  const auto names = BackendRegistry<McGenerator>::instance().names();
  return std::find(names.begin(), names.end(), "cuda") != names.end();
}

McDevice resolve_mc_device(McDevice asked, const std::string& backend) {
  if (asked != McDevice::automatic) return asked;
  return backend == "cuda" && cuda_generator_built() ? McDevice::cuda : McDevice::host;
}

void check_histories(const McOptions& opt) {
  if (opt.histories < 1 || opt.histories > kMaxHistories)
    throw InputError(str_cat("glpet: mc.histories must be in [1, ", kMaxHistories, "], got ", opt.histories));
}

mc::Source PointSource::view() const {
  mc::Source s{};
  s.point = v3(p_);
  return s;
}

mc::Source VoxelSource::view() const {
  return {{0, 0, 0}, cdf_.data(), guide_.data(), index_.data(), cdf_.size(), total_, grid_of(grid_)};
}

std::size_t VoxelSource::voxel_of(double u) const { return mc::find_voxel(view(), u); }

void make_tables(McTables& t, const Scanner& scanner, const VolumeF& sigma_t, const EmissionSource& source) {
  t.lor_count = scanner.lor_count();
  const bool shared = shared_modules_agree(scanner);
  if (shared) t.modules.resize(std::size_t(scanner.module_count()));
  for (std::size_t p = 0; p < scanner.pairs.size(); ++p) {
    const ModulePair& pair = scanner.pairs[p];
    const auto ids = scanner.module_ids(p);
    mc::Pair row{{0, 0}, scanner.lor_offset(p), pair.n_a(), pair.n_t()};
    for (std::size_t k = 0; k < 2; ++k) {
      if (shared) {
        row.module[k] = ids[k];
        t.modules[std::size_t(ids[k])] = module_of(pair.modules[k]);
      } else {
        row.module[k] = int(t.modules.size());
        t.modules.push_back(module_of(pair.modules[k]));
      }
    }
    t.pairs.push_back(row);
  }
  if (std::any_of(sigma_t.data.begin(), sigma_t.data.end(), [](float s) { return s != 0; })) t.sigma = sigma_t.data;
  t.scene = {t.modules.data(), t.pairs.data(), int(t.modules.size()), int(t.pairs.size()),
             t.sigma.empty() ? nullptr : t.sigma.data(), grid_of(sigma_t.grid)};
  t.source = source.view();
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

// This process's share of the histories on its cores: per-thread 32-bit histograms summed.
McTally tally_on_host(const McTables& t, const McOptions& opt, const ProcessShare& share) {
  check_histories(opt);
  const std::int64_t nchunks = (opt.histories + kMcChunk - 1) / kMcChunk;
  McTally tally;
  tally.hist.assign(t.lor_count, 0.0);
  std::int64_t geometric = 0, detected = 0;
  Progress progress("Monte-Carlo", share.count(nchunks));
  std::atomic<std::int64_t> chunks_done{0};
  std::int64_t chunks_shown = 0;  // thread 0's
#pragma omp parallel reduction(+ : geometric, detected)
  {
    std::vector<std::uint32_t> local(t.lor_count, 0);  // histories <= 2^32 - 1: a count cannot wrap
    mc::HitCache<64> hits;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t c = 0; c < nchunks; ++c) {
      if (interrupted() || !share.mine(c)) continue;  // an exception cannot leave the region: skip the rest
      const std::int64_t end = std::min(opt.histories, (c + 1) * kMcChunk);
      for (std::int64_t h = c * kMcChunk; h < end; ++h)
        mc::history(t.scene, t.source, opt.seed, std::uint64_t(h), hits, geometric, detected,
                    [&](std::size_t lor) { ++local[lor]; });
      const std::int64_t done = ++chunks_done;
      if (omp_get_thread_num() == 0) {  // Progress is not thread-safe: one thread draws
        progress.step(done - chunks_shown);
        chunks_shown = done;
      }
    }
#pragma omp critical
    for (std::size_t l = 0; l < t.lor_count; ++l) tally.hist[l] += local[l];
  }
  throw_if_interrupted();
  progress.finish();
  tally.geometric = geometric;
  tally.detected = detected;
  return tally;
}

McResult simulate(const Scanner& scanner, const VolumeF& sigma_t, const EmissionSource& source,
                  const McOptions& opt, const McPlace& place) {
  check_histories(opt);
  if (place.device == McDevice::cuda && !cuda_generator_built())
    throw UnavailableError("glpet: glpet.mc.device = \"cuda\" needs a build with CUDA; use \"host\"");
  const auto& generators = BackendRegistry<McGenerator>::instance();
  if (place.device == McDevice::cuda)
    if (const Availability a = generators.available("cuda"); !a.ok)
      throw UnavailableError(str_cat("glpet: glpet.mc.device = \"cuda\": ", a.why));
  McResult res;
  res.histories = opt.histories;
  McTables t;
  make_tables(t, scanner, sigma_t, source);
  const ProcessShare share = process_share();  // under mpirun: this process's chunks, summed below
  const std::int64_t nchunks = (opt.histories + kMcChunk - 1) / kMcChunk;
  if (share.size > 1)
    log_info("glpet Monte-Carlo: process ", share.rank, " of ", share.size, " runs ", share.count(nchunks), " of ",
             nchunks, " chunks");
  McTally tally = generators.create(place.device == McDevice::cuda ? "cuda" : "cpu")->tally(t, opt, place.gpus, share);
  std::vector<double>& hist = tally.hist;
  std::int64_t geometric = tally.geometric, detected = tally.detected;
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
  res.counts.assign(t.lor_count, 0.0f);
  if (opt.total_counts > 0) {
    if (detected == 0) throw InputError("glpet: no Monte-Carlo pair was detected; cannot scale to total_counts");
    res.scale = opt.total_counts / double(detected);
    std::mt19937_64 gen(opt.seed ^ 0x5bd1e995ull);
    for (std::size_t l = 0; l < t.lor_count; ++l) {
      const double mean = hist[l] * res.scale;
      if (mean > 0) res.counts[l] = float(std::poisson_distribution<std::int64_t>(mean)(gen));
    }
  } else {
    for (std::size_t l = 0; l < t.lor_count; ++l) res.counts[l] = float(hist[l]);
  }
  return res;
}

}  // namespace tomo::glpet
