// The `cuda` backend of H_sph (float; sph_kernels.cu) and its several-GPU form: one NcclTeam rank
// per device, each with an SphDevice; rank r forwards its slice of the voxels and transposes its
// slice of the transducers, and the partial ũ (2QL floats) or α (N floats) are summed in device
// memory by NCCL all-reduce ([Wang2013]: pthreads per GPU, partial vectors summed on the host).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/oat/sph_run.hpp"
#include "cuda/core/device.hpp"
#include "cuda/multi/nccl_team.hpp"
#include "cuda/oat/device_select.hpp"
#include "cuda/oat/sph_device.hpp"

namespace tomo::oat {
namespace {

using cd = std::complex<double>;

class CudaSphModel final : public SphModel {
 public:
  std::string describe() const override { return "cuda (H_sph, float): " + (dev_ ? name_ : std::string("not configured")); }

  void configure(const OatGeometry& g, const SphOptions& o) override {
    dev_.reset();
    name_ = select_cuda_device();
    dev_ = std::make_unique<SphDevice>(g, o);
  }
  void forward(std::span<const double> alpha, std::span<cd> u) override {
    device().upload_alpha(alpha);
    device().forward();
    device().download_data(u);
  }
  void adjoint(std::span<const cd> u, std::span<double> alpha) override {
    device().upload_data(u);
    device().adjoint();
    device().download_alpha(alpha);
  }
  void synchronize() override {
    if (dev_) dev_->synchronize();
  }

 private:
  SphDevice& device() {
    if (!dev_) throw Error("oat cuda H_sph: configure() was not called");
    return *dev_;
  }
  std::string name_;
  std::unique_ptr<SphDevice> dev_;
};

class CudaSphTeam final : public SphModel {
 public:
  explicit CudaSphTeam(std::vector<int> devices) : team_(std::move(devices)) {}
  ~CudaSphTeam() override {  // each rank's buffers and stream are freed on its own device
    for (int r = 0; r < int(ranks_.size()); ++r)
      if (ranks_[r] && cudaSetDevice(team_.device(r)) == cudaSuccess) ranks_[r].reset();
  }
  std::string describe() const override { return "cuda (H_sph, float) on " + team_.describe(); }

  void configure(const OatGeometry& g, const SphOptions& o) override {
    ranks_.clear();
    ranks_.resize(team_.size());
    team_.run([&](int r) {
      tomo::cuda::select_device(team_.device(r));
      SphOptions ro = o;
      ro.share = sph_share(g.grid.count(), g.transducer_count(), r, team_.size());
      ranks_[r] = std::make_unique<SphDevice>(g, ro);
    });
  }
  void forward(std::span<const double> alpha, std::span<cd> u) override {
    check();
    team_.run([&](int r) {
      tomo::cuda::select_device(team_.device(r));
      SphDevice& d = *ranks_[r];
      d.upload_alpha(alpha);
      d.forward();
      team_.allreduce_sum_device(r, d.data_floats(), d.data_floats_count());
      if (r == 0) d.download_data(u);
    });
  }
  void adjoint(std::span<const cd> u, std::span<double> alpha) override {
    check();
    team_.run([&](int r) {
      tomo::cuda::select_device(team_.device(r));
      SphDevice& d = *ranks_[r];
      d.upload_data(u);
      d.adjoint();
      team_.allreduce_sum_device(r, d.alpha_floats(), d.voxels());
      if (r == 0) d.download_alpha(alpha);
    });
  }
  void synchronize() override {
    for (int r = 0; r < int(ranks_.size()); ++r)
      if (ranks_[r]) tomo::cuda::select_device(team_.device(r)), ranks_[r]->synchronize();
  }

 private:
  void check() const {
    if (ranks_.empty() || !ranks_[0]) throw Error("oat cuda H_sph team: configure() was not called");
  }
  tomo::cuda::NcclTeam team_;
  std::vector<std::unique_ptr<SphDevice>> ranks_;
};

const BackendRegistrar<SphModel> kRegisterCudaSph({"cuda", kPriorityCuda, [] { return tomo::cuda::cuda_availability(); },
                                                   [] { return std::make_unique<CudaSphModel>(); }});

const bool kRegisterCudaSphTeam = [] {
  register_sph_multi("cuda", [](const std::string& gpus) -> std::unique_ptr<SphModel> {
    return std::make_unique<CudaSphTeam>(tomo::cuda::resolve_gpus(gpus));
  });
  return true;
}();

}  // namespace
}  // namespace tomo::oat
