// The glpet `cuda` backend: the CUDA twin of the cpu reference (same line set, fp32 sums,
// double line geometry). Buffers stay on the device between ML-EM iterations.
// The system matrix is cached on the device at its first use when it fits (docs/glpet.md
// §3), so ML-EM iterations read A instead of tracing and ray-marching every line again.
// The vectors are GL buffers mapped into CUDA when a GL context can be had (CUDA-GL interop,
// glpet.cuda_gl_interop), so the viewer shows them without host copies; the cache is not.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "cuda/core/stream.hpp"
#include "compute/glpet/projector.hpp"
#include "cuda/glpet/cuda_buffer.hpp"
#include "cuda/glpet/kernels.hpp"

namespace tomo::glpet {

namespace {

using namespace tomo::glpet::cuda_impl;

ModuleDesc module_desc(const Module& m) {
  ModuleDesc d{};
  const Vec3 corner = m.corner();
  for (int a = 0; a < 3; ++a) {
    d.centre[a] = m.centre[a];
    d.normal[a] = m.normal[a];
    d.axis_a[a] = m.axis_a[a];
    d.axis_t[a] = m.axis_t[a];
    d.corner[a] = corner[a];
  }
  d.pitch_a = m.pitch_a;
  d.pitch_t = m.pitch_t;
  d.n_a = m.n_a;
  d.n_t = m.n_t;
  return d;
}

class CudaProjector final : public Projector {
 public:
  std::string describe() const override { return "cuda"; }

  void configure(const SystemModel& sys, const ProjectorOptions& options = {}) override {
    sys.validate();
    cuda::select_device(options.device >= 0 ? options.device : runtime_options().cuda_device);
    if (!stream_) stream_ = std::make_unique<cuda::Stream>();
    sys_ = sys;
    options_ = options;
    // σ_t, ML-EM's images (x, b, sensitivity, a scratch) and LOR vectors (y, ỹ, a scratch)
    // grow with the scene and have no split: refuse before the first cudaMalloc fails.
    cuda::require_device_memory(5 * 4.0 * double(sys.voxel_count()) + 3 * 4.0 * double(sys.lor_count()),
                                "glpet cuda: the σ_t volume, 4 images and 3 LOR vectors (glpet.voxels, "
                                "glpet.modules[].detectors)");
    sigma_ = cuda::DeviceBuffer<float>(std::span<const float>(sys.sigma_t.data));
    std::vector<double> off;
    for (const Vec3& o : sample_offsets(sys.N)) off.insert(off.end(), o.begin(), o.end());
    offsets_ = cuda::DeviceBuffer<double>(std::span<const double>(off));
    desc_ = {};
    empty_range_ = false;
    for (int a = 0; a < 3; ++a) {
      desc_.vol.n[a] = sys.grid.dims[a];
      desc_.vol.origin[a] = sys.grid.origin_mm[a];
      desc_.vol.voxel[a] = sys.grid.voxel_mm[a];
      desc_.vol.inv_voxel[a] = 1.0 / sys.grid.voxel_mm[a];
    }
    desc_.vol.sigma = sigma_.data();
    desc_.vol.empty = true;
    for (float s : sys.sigma_t.data)
      if (s != 0) desc_.vol.empty = false;
    desc_.offsets = offsets_.data();
    desc_.N = sys.N;
    desc_.R = sys.R;
    desc_.K = sys.K;
    pairs_.clear();
    cache_.clear();
    cache_tried_ = false;
    interop_ = Interop::Undecided;
    for (std::size_t i = 0; i < sys.scanner.pairs.size(); ++i) {
      PairDesc p{};
      p.m[0] = module_desc(sys.scanner.pairs[i].modules[0]);
      p.m[1] = module_desc(sys.scanner.pairs[i].modules[1]);
      p.lor_offset = sys.scanner.lor_offset(i);
      pairs_.push_back(p);
    }
  }
  std::unique_ptr<BackendBuffer> make_image() override { return make_buffer(sys_.voxel_count()); }
  std::unique_ptr<BackendBuffer> make_lors() override { return make_buffer(sys_.lor_count()); }

  // Every operator maps its GL-buffer arguments for its own duration (MapScope).
  void forward(const BackendBuffer& x, BackendBuffer& yt) override {
    CudaBuffer &xb = dev(x, sys_.voxel_count()), &out = dev(yt, sys_.lor_count());
    MapScope mapped{&xb, &out};
    TOMO_CUDA_CHECK(cudaMemsetAsync(out.data(), 0, out.size() * sizeof(float), stream()));
    if (empty_range_) return;
    const float* xd = xb.data();
    ensure_cache();
    for (std::size_t i = 0; i < pairs_.size(); ++i) {
      if (cache_.empty())
        launch_forward(desc_, pairs_[i], xd, out.data(), stream());
      else
        launch_cached_forward(desc_, pairs_[i], cache_[i].desc, xd, out.data(), stream());
    }
  }
  void back(const BackendBuffer& z, BackendBuffer& b) override {
    CudaBuffer &zb = dev(z, sys_.lor_count()), &bb = dev(b, sys_.voxel_count());
    MapScope mapped{&zb, &bb};
    gather(zb.data(), nullptr, false, bb.data(), nullptr);
  }
  void back_ratio(const BackendBuffer& y, const BackendBuffer& t, BackendBuffer& b, BackendBuffer* sens) override {
    CudaBuffer &yb = dev(y, sys_.lor_count()), &tb = dev(t, sys_.lor_count()), &bb = dev(b, sys_.voxel_count());
    CudaBuffer* sb = sens ? &dev(*sens, sys_.voxel_count()) : nullptr;
    MapScope mapped{&yb, &tb, &bb, sb};
    gather(yb.data(), tb.data(), true, bb.data(), sb ? sb->data() : nullptr);
  }
  void sensitivity(BackendBuffer& s) override {
    CudaBuffer& sb = dev(s, sys_.voxel_count());
    MapScope mapped{&sb};
    gather(nullptr, nullptr, false, nullptr, sb.data());
  }
  void mlem_update(BackendBuffer& x, const BackendBuffer& b, const BackendBuffer& s) override {
    CudaBuffer &xb = dev(x, sys_.voxel_count()), &bb = dev(b, sys_.voxel_count()), &sb = dev(s, sys_.voxel_count());
    MapScope mapped{&xb, &bb, &sb};
    launch_mlem_update(xb.data(), bb.data(), sb.data(), sys_.voxel_count(), stream());
  }
  bool subset_update(BackendBuffer& x, const BackendBuffer& b, const BackendBuffer& s) override {
    CudaBuffer &xb = dev(x, sys_.voxel_count()), &bb = dev(b, sys_.voxel_count()), &sb = dev(s, sys_.voxel_count());
    MapScope mapped{&xb, &bb, &sb};
    launch_subset_update(xb.data(), bb.data(), sb.data(), sys_.voxel_count(), stream());
    return true;
  }
  bool correspondence_image(std::size_t pair, const Vec3& v, std::vector<CorrespondencePixel>& out) override {
    if (pair >= pairs_.size()) throw Error(str_cat("glpet cuda: no pair ", pair));
    const ModulePair& mp = sys_.scanner.pairs[pair];
    const int W = mp.n_a() * sys_.R, H = mp.n_t() * sys_.R;
    cuda::DeviceBuffer<float> img(std::size_t(W) * H * 3);
    const double vv[3] = {v[0], v[1], v[2]};
    launch_correspondence(desc_, pairs_[pair], vv, img.data(), stream());
    synchronize();
    const std::vector<float> h = img.to_host();
    out.resize(std::size_t(W) * H);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = {h[3 * i], h[3 * i + 1], h[3 * i + 2]};
    return true;
  }
  void synchronize() override {
    if (stream_) stream_->synchronize();
  }
  // The passes then visit only these voxels, and the cache (rebuilt at the next pass) holds
  // only their rows: the multi-device exact mode gives each GPU a slab (docs/multigpu.md).
  bool restrict_voxels(std::size_t first, std::size_t count) override {
    const std::size_t n = sys_.voxel_count(), lo = std::min(first, n), hi = std::min(n, first + count);
    empty_range_ = count > 0 && hi <= lo;
    const bool whole = count == 0 || empty_range_ || (lo == 0 && hi == n);
    const std::size_t new_first = whole ? 0 : lo, new_count = whole ? 0 : hi - lo;
    if (new_first != desc_.first || new_count != desc_.count) {
      desc_.first = new_first;
      desc_.count = new_count;
      cache_.clear();
      cache_tried_ = false;
    }
    return true;
  }

 private:
  cudaStream_t stream() {
    if (!stream_) throw Error("glpet cuda: configure() was not called");
    return stream_->get();
  }
  static CudaBuffer& dev(const BackendBuffer& b, std::size_t want) {
    auto* c = dynamic_cast<CudaBuffer*>(const_cast<BackendBuffer*>(&b));
    if (!c) throw Error("glpet cuda: buffer does not belong to the cuda backend");
    if (c->size() != want) throw Error(str_cat("glpet cuda: buffer of ", c->size(), " values, expected ", want));
    return *c;
  }

  // x, y, ỹ, b and s as GL buffers registered with CUDA when glpet.cuda_gl_interop and the
  // GL engine allow it (decided at the first buffer after configure(), logged once), else
  // plain device memory. Plain memory is kept for empty vectors (GL has no empty buffers).
  std::unique_ptr<BackendBuffer> make_buffer(std::size_t n) {
    if (interop_ == Interop::Undecided) {
      if (options_.cuda_gl_interop == Use::off) {
        interop_ = Interop::Off;
        log_info("glpet cuda: vectors in plain device memory (glpet.cuda_gl_interop = \"off\")");
      } else {
        try {
          auto b = CudaBuffer::gl_interop(std::max<std::size_t>(n, 1), stream());
          interop_ = Interop::On;
          log_info("glpet cuda: vectors are GL buffers mapped into CUDA (zero-copy interop: the viewer reads them "
                   "without host copies)");
          if (n > 0) return b;
        } catch (const UnavailableError& e) {
          if (options_.cuda_gl_interop == Use::on)
            throw UnavailableError(str_cat("glpet cuda: glpet.cuda_gl_interop = \"on\" but ", e.what()));
          interop_ = Interop::Off;
          log_info("glpet cuda: vectors in plain device memory (no CUDA-GL interop: ", e.what(), ")");
        }
      }
    }
    if (interop_ == Interop::On && n > 0) return CudaBuffer::gl_interop(n, stream());
    return std::make_unique<CudaBuffer>(n, stream());
  }
  void gather(const float* y, const float* t, bool ratio, float* b, float* s) {
    if (empty_range_) return;
    ensure_cache();
    for (std::size_t i = 0; i < pairs_.size(); ++i) {
      if (cache_.empty())
        launch_gather(desc_, pairs_[i], y, t, ratio, b, s, i > 0, stream());
      else
        launch_cached_gather(desc_, pairs_[i], cache_[i].desc, y, t, ratio, b, s, i > 0, stream());
    }
  }

  // Builds the per-pair caches once per configure() when system_cache allows and they fit.
  void ensure_cache() {
    if (cache_tried_) return;
    cache_tried_ = true;
    if (options_.system_cache == Use::off) return;
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t rows = (desc_.count ? desc_.count : sys_.voxel_count()) * std::size_t(sys_.N);
    std::vector<CacheDesc> plan;
    std::size_t bytes = 0;
    for (const PairDesc& p : pairs_) {
      CacheDesc c;
      c.B = std::max(1, macropixel_span(desc_, p, stream()));
      c.M = std::max(p.m[0].n_a * p.m[0].n_t, p.m[1].n_a * p.m[1].n_t);
      if (c.B > 4) {
        return not_cached(str_cat("a macropixel covers ", c.B, " secondary detectors along one axis (at most 4)"));
      }
      bytes += rows * std::size_t(c.M) * (sizeof(unsigned) + sizeof(float) * std::size_t(c.B * c.B));
      plan.push_back(c);
    }
    std::size_t free_b = 0, total_b = 0;
    TOMO_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const std::size_t reserve = std::size_t(2) << 30;  // atlases, images and the driver's own needs
    if (bytes + reserve > free_b)
      return not_cached(str_cat("it needs ", bytes / 1e9, " GB and ", free_b / 1e9, " GB are free"));
    log_info("glpet cuda: caching the system matrix on the GPU (", bytes / 1e9, " GB, ", plan[0].B, "x", plan[0].B,
             " detectors per macropixel) ...");
    for (std::size_t i = 0; i < pairs_.size(); ++i) {
      PairCache pc;
      pc.anchor = cuda::DeviceBuffer<unsigned>(rows * plan[i].M);
      pc.w = cuda::DeviceBuffer<float>(rows * plan[i].M * std::size_t(plan[i].B * plan[i].B));
      pc.desc = plan[i];
      pc.desc.anchor = pc.anchor.data();
      pc.desc.w = pc.w.data();
      launch_cache_fill(desc_, pairs_[i], pc.desc, stream());
      cache_.push_back(std::move(pc));
    }
    log_info("glpet cuda: system matrix cached in ",
             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), " s");
  }
  void not_cached(const std::string& why) {
    if (options_.system_cache == Use::on) throw UnavailableError("glpet cuda: system_cache = \"on\" but " + why);
    log_info("glpet cuda: system matrix not cached (", why, "); every pass traces its lines");
  }

  SystemModel sys_;
  ProjectorOptions options_;
  std::unique_ptr<cuda::Stream> stream_;
  cuda::DeviceBuffer<float> sigma_;
  cuda::DeviceBuffer<double> offsets_;
  SystemDesc desc_{};
  std::vector<PairDesc> pairs_;
  struct PairCache {
    cuda::DeviceBuffer<unsigned> anchor;
    cuda::DeviceBuffer<float> w;
    CacheDesc desc;
  };
  std::vector<PairCache> cache_;
  bool cache_tried_ = false;
  bool empty_range_ = false;  // restrict_voxels named no voxel of the grid
  enum class Interop { Undecided, On, Off };
  Interop interop_ = Interop::Undecided;
};

const BackendRegistrar<Projector> kRegisterCuda({"cuda", kPriorityCuda, [] { return cuda::cuda_availability(); },
                                                 [] { return std::make_unique<CudaProjector>(); }});

}  // namespace
}  // namespace tomo::glpet
