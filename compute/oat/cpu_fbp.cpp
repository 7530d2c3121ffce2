// The `cpu` backend of the oat FBP: the fused discrete formula (kernel_math.hpp fbp_term) in
// double, OpenMP over voxels, every transducer per voxel.
#include <omp.h>

#include <atomic>
#include <cmath>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/progress.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/params.hpp"

namespace tomo::oat {

namespace {

class CpuFbp final : public Fbp {
 public:
  std::string describe() const override { return str_cat("cpu: ", threads(), " OpenMP threads, double"); }

  void configure(const OatGeometry& g, const FbpOptions& o) override {
    g.validate("oat cpu fbp");
    g_ = g;
    opt_ = o;
    weights_ = fbp_weights<double>(g);
    configured_ = true;
  }

  void reconstruct(std::span<const double> p, std::span<double> image) override {
    if (!configured_) throw Error("oat cpu fbp: configure() was not called");
    if (p.size() != g_.data_size() || image.size() != g_.grid.count())
      throw Error(str_cat("oat cpu fbp: ", p.size(), " samples and ", image.size(), " voxels, expected ",
                          g_.data_size(), " and ", g_.grid.count()));
    const int K = g_.time.samples, Q = g_.transducer_count();
    const double inv_c0 = 1.0 / g_.c0_mm_per_us, t_min = g_.time.t_min_us, inv_dt = g_.time.fs_mhz;
    const Grid3& gr = g_.grid;
    const std::int64_t n = static_cast<std::int64_t>(gr.count());
    // Every transducer for every voxel: minutes for a GPU-sized grid, so it shows progress (one
    // thread draws: Progress is not thread-safe).
    Progress progress("oat FBP (cpu)", static_cast<long>(n));
    std::atomic<std::int64_t> done{0};
    std::int64_t shown = 0;
#pragma omp parallel for num_threads(threads()) schedule(dynamic, 64)
    for (std::int64_t v = 0; v < n; ++v) {
      const std::int64_t finished = done.fetch_add(1, std::memory_order_relaxed);
      if (omp_get_thread_num() == 0 && finished > shown) progress.step(static_cast<long>(finished - shown)), shown = finished;
      const int i = static_cast<int>(v % gr.dims[0]);
      const int j = static_cast<int>((v / gr.dims[0]) % gr.dims[1]);
      const int k = static_cast<int>(v / (static_cast<std::int64_t>(gr.dims[0]) * gr.dims[1]));
      const auto r = gr.centre(i, j, k);
      double sum = 0;
      for (int q = 0; q < Q; ++q) {
        const auto& s = g_.transducers[q];
        const double dist = std::hypot(r[0] - s[0], r[1] - s[1], r[2] - s[2]);
        sum += weights_[q] * fbp_term(p.data() + static_cast<std::size_t>(q) * K, K, dist, inv_c0, t_min, inv_dt);
      }
      image[v] = sum;
    }
    progress.step(static_cast<long>(n - shown));  // the voxels thread 0 did not see finish
    progress.finish();
  }

 private:
  int threads() const { return opt_.threads > 0 ? opt_.threads : omp_get_max_threads(); }

  OatGeometry g_;
  FbpOptions opt_;
  std::vector<double> weights_;
  bool configured_ = false;
};

const BackendRegistrar<Fbp> kRegisterCpu({"cpu", kPriorityCpu, nullptr, [] { return std::make_unique<CpuFbp>(); }});

}  // namespace

}  // namespace tomo::oat
