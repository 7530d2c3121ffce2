// glpet cpu backend: shooting forward projection ([Toth2010] §III) and gathering
// back-projection ([Toth2010] §IV) of the shared line set, in double precision.
#include "compute/glpet/cpu_projector.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <optional>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/progress.hpp"
#include "compute/core/registry.hpp"

namespace tomo::glpet {

namespace {
HostBuffer& host(BackendBuffer& b) {
  auto* h = dynamic_cast<HostBuffer*>(&b);
  if (!h) throw Error("glpet cpu: buffer does not belong to the cpu backend");
  return *h;
}
const HostBuffer& host(const BackendBuffer& b) { return host(const_cast<BackendBuffer&>(b)); }

// Voxels done in a parallel loop, drawn on `progress` (when given) by thread 0 alone: Progress
// is not thread-safe. finish() reports the voxels thread 0 did not see.
class VoxelTicks {
 public:
  explicit VoxelTicks(Progress* progress) : progress_(progress) {}
  void tick() {
    if (!progress_) return;
    const long n = done_.fetch_add(1, std::memory_order_relaxed);
    if (omp_get_thread_num() == 0 && n > shown_) progress_->step(n - shown_), shown_ = n;
  }
  void finish(long total) {
    if (progress_) progress_->step(total - shown_);
  }

 private:
  Progress* progress_;
  std::atomic<long> done_{0};
  long shown_ = 0;
};

// Gathers b_v = Σ_l A_lv·z(l) (when b) and s_v = Σ_l A_lv (when s), one voxel per task.
// Voxels [begin, end) only (restrict_voxels): the others are left unwritten. With `progress`,
// the voxels done are reported on it.
template <class Z>
void gather(const SystemModel& sys, const std::vector<Vec3>& offsets, long begin, long end, Z z, double* b,
            double* s, Progress* progress = nullptr) {
  const Extinction ext(sys.sigma_t);
  const auto& d = sys.grid.dims;
  VoxelTicks ticks(progress);
#pragma omp parallel for schedule(dynamic, 16)
  for (long idx = begin; idx < end; ++idx) {
    ticks.tick();
    const int i = int(idx % d[0]), j = int((idx / d[0]) % d[1]), k = int(idx / (long(d[0]) * d[1]));
    double sb = 0, ss = 0;
    for_each_line(sys, ext, offsets, i, j, k, [&](std::size_t l, double a) {
      sb += a * z(l);
      ss += a;
    });
    if (b) b[idx] = sb;
    if (s) s[idx] = ss;
  }
  ticks.finish(end - begin);
}

// A pass over every line of every voxel that would run long enough to want a bar of its own
// inside an iteration: more than `seconds` at about 2e8 line samples per core-second (the rate of
// glpet's cpu cost model), each line ~14 samples of set-up plus K with attenuation.
bool long_pass(const SystemModel& sys, long voxels, double seconds) {
  double lines = 0;
  for (const ModulePair& p : sys.scanner.pairs) lines += double(sys.R) * sys.R * p.n_a() * p.n_t();
  const double samples = double(voxels) * sys.N * lines * (14 + (Extinction(sys.sigma_t).empty ? 0 : sys.K));
  return samples / (2e8 * omp_get_max_threads()) > seconds;
}

const BackendRegistrar<Projector> kRegisterCpu({"cpu", kPriorityCpu, [] { return Availability{true, {}}; },
                                                [] { return std::make_unique<CpuProjector>(); }});
}  // namespace

void CpuProjector::configure(const SystemModel& system, const ProjectorOptions&) {
  system.validate();
  sys_ = system;
  offsets_ = sample_offsets(sys_.N);
  first_ = count_ = 0;
}

bool CpuProjector::restrict_voxels(std::size_t first, std::size_t count) {
  first_ = first;
  count_ = count;
  return true;
}
long CpuProjector::begin() const { return count_ ? long(std::min(first_, sys_.voxel_count())) : 0; }
long CpuProjector::end() const {
  return count_ ? long(std::min(sys_.voxel_count(), first_ + count_)) : long(sys_.voxel_count());
}

std::unique_ptr<BackendBuffer> CpuProjector::make_image() { return std::make_unique<HostBuffer>(sys_.voxel_count()); }
std::unique_ptr<BackendBuffer> CpuProjector::make_lors() { return std::make_unique<HostBuffer>(sys_.lor_count()); }

void CpuProjector::forward(const BackendBuffer& xb, BackendBuffer& yb) {
  const auto& x = host(xb).data;
  auto& y = host(yb).data;
  if (x.size() != sys_.voxel_count() || y.size() != sys_.lor_count()) throw Error("glpet cpu forward: size mismatch");
  const Extinction ext(sys_.sigma_t);
  const auto& d = sys_.grid.dims;
  const long first = begin(), last = end();
  std::fill(y.begin(), y.end(), 0.0);
  std::optional<Progress> bar;
  if (long_pass(sys_, last - first, bar_after_s)) bar.emplace("glpet forward projection (cpu)", last - first);
  VoxelTicks ticks(bar ? &*bar : nullptr);
#pragma omp parallel
  {
    std::vector<double> local(y.size(), 0.0);  // per-thread atlas: the scatter has no races
#pragma omp for schedule(dynamic, 16)
    for (long idx = first; idx < last; ++idx) {
      ticks.tick();
      const double xv = x[idx];
      if (xv == 0) continue;  // exact: the voxel adds nothing
      const int i = int(idx % d[0]), j = int((idx / d[0]) % d[1]), k = int(idx / (long(d[0]) * d[1]));
      for_each_line(sys_, ext, offsets_, i, j, k, [&](std::size_t l, double a) { local[l] += a * xv; });
    }
#pragma omp critical
    for (std::size_t l = 0; l < y.size(); ++l) y[l] += local[l];
  }
  ticks.finish(last - first);
  if (bar) bar->finish();
}

void CpuProjector::back(const BackendBuffer& zb, BackendBuffer& bb) {
  const auto& z = host(zb).data;
  if (z.size() != sys_.lor_count() || bb.size() != sys_.voxel_count()) throw Error("glpet cpu back: size mismatch");
  gather(sys_, offsets_, begin(), end(), [&](std::size_t l) { return z[l]; }, host(bb).data.data(), nullptr);
}

void CpuProjector::back_ratio(const BackendBuffer& yb, const BackendBuffer& tb, BackendBuffer& bb, BackendBuffer* sens) {
  const auto& y = host(yb).data;
  const auto& t = host(tb).data;
  if (y.size() != sys_.lor_count() || t.size() != y.size() || bb.size() != sys_.voxel_count())
    throw Error("glpet cpu back_ratio: size mismatch");
  std::vector<double> ratio(y.size());
  for (std::size_t l = 0; l < y.size(); ++l) ratio[l] = t[l] > 0 ? y[l] / t[l] : 0.0;
  std::optional<Progress> bar;
  if (long_pass(sys_, end() - begin(), bar_after_s)) bar.emplace("glpet back-projection (cpu)", end() - begin());
  gather(sys_, offsets_, begin(), end(), [&](std::size_t l) { return ratio[l]; }, host(bb).data.data(),
         sens ? host(*sens).data.data() : nullptr, bar ? &*bar : nullptr);
  if (bar) bar->finish();
}

void CpuProjector::sensitivity(BackendBuffer& sens) {
  if (sens.size() != sys_.voxel_count()) throw Error("glpet cpu sensitivity: size mismatch");
  // Σ_l A_lv over every line of every voxel: minutes for a GPU-sized grid on the cpu, so it shows progress.
  Progress progress("glpet sensitivity (cpu)", end() - begin());
  gather(sys_, offsets_, begin(), end(), [](std::size_t) { return 0.0; }, nullptr, host(sens).data.data(), &progress);
  progress.finish();
}

void CpuProjector::mlem_update(BackendBuffer& xb, const BackendBuffer& bb, const BackendBuffer& sb) {
  auto& x = host(xb).data;
  const auto& b = host(bb).data;
  const auto& s = host(sb).data;
  for (std::size_t v = 0; v < x.size(); ++v) x[v] = s[v] > 0 ? x[v] * b[v] / s[v] : 0.0;
}

bool CpuProjector::correspondence_image(std::size_t pair, const Vec3& v, std::vector<CorrespondencePixel>& out) {
  if (pair >= sys_.scanner.pairs.size()) throw Error(str_cat("glpet cpu: no pair ", pair));
  const Extinction ext(sys_.sigma_t);
  const Correspondence c(sys_.scanner.pairs[pair], v, sys_.R);
  out.assign(std::size_t(c.width) * c.height, CorrespondencePixel{});
  for (int Y = 0; Y < c.height; ++Y)
    for (int X = 0; X < c.width; ++X) {
      const Line L = c.trace(X, Y, &ext, sys_.K);
      if (L.hit) out[std::size_t(Y) * c.width + X] = {float(L.r), float(L.s), float(L.weight)};
    }
  return true;
}

}  // namespace tomo::glpet
