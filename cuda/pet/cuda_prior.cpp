// The `cuda` backend of the relative difference prior: x, κ and the result resident on the
// device, one stencil kernel per term (rdp_kernels.cu) and one for gradient and Hessian
// together, float32; the value's per-voxel shares are summed on the host in double.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/pet/prior.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/pet/rdp_kernels.hpp"

namespace tomo::pet {

namespace {

using cuda_impl::RdpTerm;

class CudaPrior final : public PriorOperator {
 public:
  std::string describe() const override { return "cuda (float32): " + device_; }
  void synchronize() override {
    if (stream_) stream_->synchronize();
  }

  void configure(const PriorGrid& g, const RdpParams& p, std::span<const double> kappa) override {
    const std::size_t n = g.count();
    if (!kappa.empty() && kappa.size() != n)
      throw Error(str_cat("pet prior: ", kappa.size(), " kappa values for ", n, " voxels"));
    cuda::select_device(runtime_options().cuda_device);
    const int dev = cuda::current_device();
    for (const auto& d : cuda::list_devices())
      if (d.index == dev) device_ = cuda::describe(d);
    cuda::require_device_memory(4 * 4.0 * double(n), "pet prior cuda: 4 float images");
    stream_ = std::make_unique<cuda::Stream>();
    grid_ = g;
    params_ = p;
    x_.resize(n);
    out_.resize(n);
    out2_.resize(n);
    has_kappa_ = !kappa.empty();
    if (has_kappa_) {
      const std::vector<float> k(kappa.begin(), kappa.end());
      kappa_.resize(n);
      kappa_.upload(std::span<const float>(k));
    }
  }

  double value(std::span<const double> x) override {
    const auto per = pass(x, RdpTerm::value);
    double s = 0;
    for (float v : per) s += v;
    return 0.5 * s;
  }
  std::vector<double> gradient(std::span<const double> x) override {
    const auto r = pass(x, RdpTerm::gradient);
    return {r.begin(), r.end()};
  }
  std::vector<double> hessian_diagonal(std::span<const double> x) override {
    const auto r = pass(x, RdpTerm::hessian);
    return {r.begin(), r.end()};
  }
  PriorDerivatives gradient_and_hessian(std::span<const double> x) override {
    std::vector<float> h;
    const auto g = pass(x, RdpTerm::derivatives, &h);
    return {{g.begin(), g.end()}, {h.begin(), h.end()}};
  }

 private:
  // One pass of `term`; RdpTerm::derivatives also returns the Hessian diagonal in `second`.
  std::vector<float> pass(std::span<const double> x, RdpTerm term, std::vector<float>* second = nullptr) {
    const std::size_t n = grid_.count();
    if (x.size() != n) throw Error(str_cat("pet prior: image of ", x.size(), " voxels, grid has ", n));
    if (!stream_) throw Error("pet prior: configure() first");
    const std::vector<float> xf(x.begin(), x.end());
    x_.upload(std::span<const float>(xf));
    cuda_impl::RdpArgs a;
    a.x = x_.data();
    a.kappa = has_kappa_ ? kappa_.data() : nullptr;
    a.out = out_.data();
    a.out2 = out2_.data();
    a.nx = grid_.dims[0], a.ny = grid_.dims[1], a.nz = grid_.dims[2];
    a.vx = float(grid_.voxel_mm[0]), a.vy = float(grid_.voxel_mm[1]), a.vz = float(grid_.voxel_mm[2]);
    a.gamma = float(params_.gamma), a.eps = float(params_.epsilon);
    cuda_impl::launch_rdp(a, term, stream_->get());
    stream_->synchronize();
    std::vector<float> out(n);
    out_.download(std::span<float>(out));
    if (second) {
      second->resize(n);
      out2_.download(std::span<float>(*second));
    }
    return out;
  }

  std::string device_;
  std::unique_ptr<cuda::Stream> stream_;
  PriorGrid grid_;
  RdpParams params_;
  cuda::DeviceBuffer<float> x_, out_, out2_, kappa_;
  bool has_kappa_ = false;
};

const BackendRegistrar<PriorOperator> kRegisterCuda({"cuda", kPriorityCuda, [] { return cuda::cuda_availability(); },
                                                     [] { return std::make_unique<CudaPrior>(); }});

}  // namespace

}  // namespace tomo::pet
