// The `cuda` backend of the oat FBP (float): the fused discrete formula with one thread per
// z-column of voxels ([Wang2013] Algs. fbp/k_fbp) on FbpDevice, through the kernel FbpDevice::choose
// picks for oat.fbp.read (the deferred kernel where a block's time window fits shared memory).
// FbpOptions::interpolation has no effect: the texture unit's filter cannot hold the difference.
#include <algorithm>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/fbp_slabs.hpp"
#include "compute/oat/model.hpp"
#include "cuda/multi/nccl_team.hpp"
#include "cuda/core/device.hpp"
#include "cuda/oat/device_select.hpp"
#include "cuda/oat/fbp_device.hpp"

namespace tomo::oat {
namespace {

const char* kernel_description(FbpKernel k) {
  switch (k) {
    case FbpKernel::deferred:
      return "time windows in shared memory, pairs next to a sample deferred to an exact fix-up pass";
    case FbpKernel::pinned: return "time windows in shared memory, pairs next to a sample refined in the loop";
    case FbpKernel::texture: return "texture fetches";
    case FbpKernel::ldg: return "__ldg reads";
  }
  return "?";
}

class CudaFbp final : public Fbp {
 public:
  explicit CudaFbp(int device = -1) : device_(device) {}
  std::string describe() const override {
    if (!dev_) return "cuda (exact fused formula, float): not configured";
    return str_cat("cuda (exact fused formula, float, ", kernel_description(kernel_),
                   ", k̃ refined in double next to samples): ", dev_->device());
  }

  void configure(const OatGeometry& g, const FbpOptions& o) override {
    dev_.reset();
    dev_ = std::make_unique<FbpDevice>(g, FbpDeviceOptions{.device = device_});
    kernel_ = dev_->choose(o.read);
  }

  void reconstruct(std::span<const double> pressure, std::span<double> image) override {
    if (!dev_) throw Error("oat cuda fbp: configure() was not called");
    if (image.size() != dev_->voxels())
      throw Error(str_cat("oat cuda fbp: image of ", image.size(), " voxels, the grid has ", dev_->voxels()));
    dev_->upload(pressure);
    dev_->run(kernel_);
    const std::vector<float> f = dev_->image();
    std::copy(f.begin(), f.end(), image.begin());
  }

  void synchronize() override {
    if (dev_) dev_->synchronize();
  }

 private:
  int device_;
  std::unique_ptr<FbpDevice> dev_;
  FbpKernel kernel_ = FbpKernel::deferred;
};

const BackendRegistrar<Fbp> kRegisterCuda({"cuda", kPriorityCuda, [] { return tomo::cuda::cuda_availability(); },
                                           [] { return std::make_unique<CudaFbp>(); }});

// Several GPUs: one z-slab of the voxels per device (compute/oat/fbp_slabs.hpp); every device
// uploads the whole data table.
const bool kRegisterCudaSlabs = [] {
  register_fbp_multi("cuda", [](const std::string& gpus) {
    const std::vector<int> devices = tomo::cuda::resolve_gpus(gpus);
    return FbpRanks{.ranks = int(devices.size()),
                    .describe = cuda_devices_text(devices),
                    .make = [devices](int r) -> std::unique_ptr<Fbp> { return std::make_unique<CudaFbp>(devices[r]); },
                    .enter = [devices](int r) { tomo::cuda::select_device(devices[r]); }};
  });
  return true;
}();

}  // namespace
}  // namespace tomo::oat
