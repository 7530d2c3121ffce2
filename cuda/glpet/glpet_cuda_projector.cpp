// The glpet `cuda` backend: the CUDA twin of the cpu reference (same line set, fp32 sums,
// double line geometry). Buffers stay on the device between ML-EM iterations.
// TODO(lead/issue 3): register the volume and atlases as GL textures through cuda/core
// interop so the viewer can show them; this version owns plain device memory.
#include <cuda_runtime_api.h>

#include <memory>

#include "core/check.hpp"
#include "core/device.hpp"
#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/registry.hpp"
#include "core/runtime_options.hpp"
#include "core/stream.hpp"
#include "glpet/projector.hpp"
#include "glpet_kernels.hpp"

namespace tomo::glpet {

namespace {

using namespace tomo::glpet::cuda_impl;

class CudaBuffer final : public DeviceBuffer {
 public:
  CudaBuffer(std::size_t n, cudaStream_t stream) : buf(n), stream_(stream) {
    buf.fill_zero(stream_);
    TOMO_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  std::size_t size() const override { return buf.size(); }
  void upload(std::span<const float> host) override {
    TOMO_CUDA_CHECK(cudaStreamSynchronize(stream_));
    buf.upload(host);
  }
  void download(std::span<float> host) const override {
    TOMO_CUDA_CHECK(cudaStreamSynchronize(stream_));
    buf.download(host);
  }
  cuda::DeviceBuffer<float> buf;

 private:
  cudaStream_t stream_;
};

ModuleDesc describe(const Module& m) {
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
  std::string backend() const override { return "cuda"; }

  void configure(const SystemModel& sys) override {
    sys.validate();
    cuda::select_device(runtime_options().cuda_device);
    if (!stream_) stream_ = std::make_unique<cuda::Stream>();
    sys_ = sys;
    system_ = &sys_;
    sigma_ = cuda::DeviceBuffer<float>(std::span<const float>(sys.sigma_t.data));
    std::vector<double> off;
    for (const Vec3& o : sample_offsets(sys.N)) off.insert(off.end(), o.begin(), o.end());
    offsets_ = cuda::DeviceBuffer<double>(std::span<const double>(off));
    desc_ = {};
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
    for (std::size_t i = 0; i < sys.scanner.pairs.size(); ++i) {
      PairDesc p{};
      p.m[0] = describe(sys.scanner.pairs[i].modules[0]);
      p.m[1] = describe(sys.scanner.pairs[i].modules[1]);
      p.lor_offset = sys.scanner.lor_offset(i);
      pairs_.push_back(p);
    }
  }
  std::unique_ptr<DeviceBuffer> make_image() override {
    return std::make_unique<CudaBuffer>(sys_.voxel_count(), stream());
  }
  std::unique_ptr<DeviceBuffer> make_lors() override { return std::make_unique<CudaBuffer>(sys_.lor_count(), stream()); }

  void forward(const DeviceBuffer& x, DeviceBuffer& yt) override {
    auto& out = dev(yt, sys_.lor_count());
    out.buf.fill_zero(stream());
    for (const PairDesc& p : pairs_) launch_forward(desc_, p, dev(x, sys_.voxel_count()).buf.data(), out.buf.data(), stream());
  }
  void back(const DeviceBuffer& z, DeviceBuffer& b) override {
    gather(dev(z, sys_.lor_count()).buf.data(), nullptr, false, dev(b, sys_.voxel_count()).buf.data(), nullptr);
  }
  void back_ratio(const DeviceBuffer& y, const DeviceBuffer& t, DeviceBuffer& b, DeviceBuffer* sens) override {
    gather(dev(y, sys_.lor_count()).buf.data(), dev(t, sys_.lor_count()).buf.data(), true,
           dev(b, sys_.voxel_count()).buf.data(), sens ? dev(*sens, sys_.voxel_count()).buf.data() : nullptr);
  }
  void sensitivity(DeviceBuffer& s) override {
    gather(nullptr, nullptr, false, nullptr, dev(s, sys_.voxel_count()).buf.data());
  }
  void mlem_update(DeviceBuffer& x, const DeviceBuffer& b, const DeviceBuffer& s) override {
    launch_mlem_update(dev(x, sys_.voxel_count()).buf.data(), dev(b, sys_.voxel_count()).buf.data(),
                       dev(s, sys_.voxel_count()).buf.data(), sys_.voxel_count(), stream());
  }
  bool correspondence_image(std::size_t pair, const Vec3& v, std::vector<CorrespondencePixel>& out) override {
    if (pair >= pairs_.size()) throw Error(str_cat("glpet cuda: no pair ", pair));
    const ModulePair& mp = sys_.scanner.pairs[pair];
    const int W = mp.n_a() * sys_.R, H = mp.n_t() * sys_.R;
    cuda::DeviceBuffer<float> img(std::size_t(W) * H * 3);
    const double vv[3] = {v[0], v[1], v[2]};
    launch_correspondence(desc_, pairs_[pair], vv, img.data(), stream());
    finish();
    const std::vector<float> h = img.to_host();
    out.resize(std::size_t(W) * H);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = {h[3 * i], h[3 * i + 1], h[3 * i + 2]};
    return true;
  }
  void finish() override {
    if (stream_) stream_->synchronize();
  }

 private:
  cudaStream_t stream() {
    if (!stream_) throw Error("glpet cuda: configure() was not called");
    return stream_->get();
  }
  static CudaBuffer& dev(const DeviceBuffer& b, std::size_t want) {
    auto* c = dynamic_cast<CudaBuffer*>(const_cast<DeviceBuffer*>(&b));
    if (!c) throw Error("glpet cuda: buffer does not belong to the cuda backend");
    if (c->size() != want) throw Error(str_cat("glpet cuda: buffer of ", c->size(), " values, expected ", want));
    return *c;
  }
  void gather(const float* y, const float* t, bool ratio, float* b, float* s) {
    for (std::size_t i = 0; i < pairs_.size(); ++i) launch_gather(desc_, pairs_[i], y, t, ratio, b, s, i > 0, stream());
  }

  SystemModel sys_;
  std::unique_ptr<cuda::Stream> stream_;
  cuda::DeviceBuffer<float> sigma_;
  cuda::DeviceBuffer<double> offsets_;
  SystemDesc desc_{};
  std::vector<PairDesc> pairs_;
};

const BackendRegistrar<Projector> kRegisterCuda({"cuda", kPriorityCuda, [] { return cuda::cuda_availability(); },
                                                 [] { return std::make_unique<CudaProjector>(); }});

}  // namespace
}  // namespace tomo::glpet
