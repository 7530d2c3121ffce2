// The `cuda` backend of the oat imaging model (float): H_int = H_eir·D·H_srt and its exactly
// matched transpose, every stage on the GPU ([Wang2013] ran D and H_eir on the CPU); see
// srt_kernels.hpp. Interpolation exact: fp32 trilinear weights, the adjoint matched to fp32;
// hardware: H_srt's fetch by the texture unit, the transpose stays the exact scatter. On several
// GPUs (--gpus) one CudaModel per device takes a range of whole rings (compute/oat/model_team.hpp).
#include <algorithm>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/model_team.hpp"
#include "cuda/core/device.hpp"
#include "cuda/multi/nccl_team.hpp"
#include "cuda/oat/device_select.hpp"
#include "cuda/oat/model_device.hpp"

namespace tomo::oat {
namespace {

class CudaModel final : public Model {
 public:
  // On CUDA device `device` (runtime_options().cuda_device when < 0).
  explicit CudaModel(int device = -1) : device_(device) {}

  // The interpolation, whether the forward uses the quarter-turn symmetry, and the device.
  std::string describe() const override {
    return str_cat("cuda (float): ",
                   dev_ ? dev_->describe() : to_string(opt_.interpolation) + " interpolation, not configured");
  }

  void configure(const OatGeometry& g, const ModelOptions& o) override {
    opt_ = o;
    dev_.reset();
    dev_ = std::make_unique<ModelDevice>(g, o, device_);
  }

  void forward(std::span<const double> alpha, std::span<double> u) override {
    ModelDevice& d = device();
    if (u.size() != d.data_samples())
      throw Error(str_cat("oat cuda model: data of ", u.size(), " samples, expected ", d.data_samples()));
    d.upload_alpha(alpha);
    d.forward();
    d.download_data(u);
  }

  void adjoint(std::span<const double> u, std::span<double> alpha) override {
    ModelDevice& d = device();
    if (alpha.size() != d.voxels())
      throw Error(str_cat("oat cuda model: α of ", alpha.size(), " voxels, the grid has ", d.voxels()));
    d.upload_data(u);
    d.adjoint();
    d.download_alpha(alpha);
  }

  void synchronize() override {
    if (dev_) dev_->synchronize();
  }

 private:
  ModelDevice& device() {
    if (!dev_) throw Error("oat cuda model: configure() was not called");
    return *dev_;
  }

  int device_ = -1;
  ModelOptions opt_;
  std::unique_ptr<ModelDevice> dev_;
};

const BackendRegistrar<Model> kRegisterCuda({"cuda", kPriorityCuda, [] { return tomo::cuda::cuda_availability(); },
                                             [] { return std::make_unique<CudaModel>(); }});

// Several GPUs: one range of whole rings per device; each device holds the whole α and its
// transducers' u, the partial α of Hᵀ come back to the host and are summed there in rank order.
const bool kRegisterCudaRanks = [] {
  register_model_multi("cuda", [](const std::string& gpus) {
    const std::vector<int> devices = tomo::cuda::resolve_gpus(gpus);
    return ModelRanks{.ranks = int(devices.size()),
                      .describe = cuda_devices_text(devices),
                      .make = [devices](int r) -> std::unique_ptr<Model> { return std::make_unique<CudaModel>(devices[r]); },
                      .enter = [devices](int r) { tomo::cuda::select_device(devices[r]); }};
  });
  return true;
}();

}  // namespace
}  // namespace tomo::oat
