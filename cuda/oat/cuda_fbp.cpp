// The `cuda` backend of the oat FBP (float): the fused discrete formula with one thread per
// z-column of voxels and the data in a texture (seed 001 Algs. fbp/k_fbp), see fbp_kernels.hpp.
// FbpOptions::interpolation has no effect: the texture unit's filter cannot hold the difference.
#include <algorithm>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/model.hpp"
#include "cuda/core/device.hpp"
#include "cuda/oat/fbp_device.hpp"

namespace tomo::oat {
namespace {

class CudaFbp final : public Fbp {
 public:
  std::string describe() const override {
    return str_cat("cuda (exact fused formula, float, k̃ refined in double next to samples): ",
                   dev_ ? dev_->device() : std::string("not configured"));
  }

  void configure(const OatGeometry& g, const FbpOptions& o) override {
    opt_ = o;
    dev_.reset();
    dev_ = std::make_unique<FbpDevice>(g);
    voxels_ = g.grid.count();
  }

  void reconstruct(std::span<const double> pressure, std::span<double> image) override {
    if (!dev_) throw Error("oat cuda fbp: configure() was not called");
    if (image.size() != voxels_)
      throw Error(str_cat("oat cuda fbp: image of ", image.size(), " voxels, the grid has ", voxels_));
    dev_->upload(pressure);
    dev_->run(dev_->mode());
    const std::vector<float> f = dev_->image();
    std::copy(f.begin(), f.end(), image.begin());
  }

  void synchronize() override {
    if (dev_) dev_->synchronize();
  }

 private:
  FbpOptions opt_;
  std::unique_ptr<FbpDevice> dev_;
  std::size_t voxels_ = 0;
};

const BackendRegistrar<Fbp> kRegisterCuda({"cuda", kPriorityCuda, [] { return tomo::cuda::cuda_availability(); },
                                           [] { return std::make_unique<CudaFbp>(); }});

}  // namespace
}  // namespace tomo::oat
