// The `cuda` backend of the oat FBP (float): the fused discrete formula with one thread per
// z-column of voxels (seed 001 Algs. fbp/k_fbp), the data read the way FbpOptions::read asks
// (automatic and "shared": FbpDevice::best(), per-block time windows in shared memory where they
// fit, the deferred kernel "shared-8x"), see fbp_kernels.hpp. FbpOptions::interpolation has no
// effect: the texture unit's filter cannot hold the difference.
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
    if (!dev_) return "cuda (exact fused formula, float): not configured";
    const FbpChoice c = choice_;
    const char* how = c.variant == FbpVariant::texture ? "texture fetches"
                      : c.variant == FbpVariant::ldg   ? "__ldg reads"
                      : c.lean && c.deferred           ? "time windows in shared memory, lean kernel, pairs next to a "
                                                         "sample deferred to an exact fix-up pass"
                      : c.lean                         ? "time windows in shared memory, lean kernel"
                                                       : "time windows in shared memory";
    return str_cat("cuda (exact fused formula, float, ", how, ", ",
                   c.fast ? "fast: k̃ NOT refined next to samples, looser tolerance" : "k̃ refined in double next to samples",
                   "): ", dev_->device());
  }

  void configure(const OatGeometry& g, const FbpOptions& o) override {
    opt_ = o;
    dev_.reset();
    dev_ = std::make_unique<FbpDevice>(g);
    voxels_ = g.grid.count();
    choice_ = dev_->best();
    if (o.read != FbpRead::automatic) {
      choice_.variant = o.read == FbpRead::texture ? FbpVariant::texture
                        : o.read == FbpRead::ldg   ? FbpVariant::ldg
                                                   : FbpVariant::shared;
      if (o.read == FbpRead::shared_lean)  // the pinned lean kernel, 16 voxels per thread
        choice_ = {FbpVariant::shared, 16, false, true, false, true};
      if (o.read == FbpRead::shared_fast)
        choice_ = {FbpVariant::shared, 16, false, true, true};
      if (!dev_->available(choice_.variant))
        throw UnavailableError(str_cat("oat cuda fbp: oat.fbp.read = \"", enum_name(kFbpReadNames, o.read),
                                       "\" is not available on this geometry (see the log)"));
    }
  }

  void reconstruct(std::span<const double> pressure, std::span<double> image) override {
    if (!dev_) throw Error("oat cuda fbp: configure() was not called");
    if (image.size() != voxels_)
      throw Error(str_cat("oat cuda fbp: image of ", image.size(), " voxels, the grid has ", voxels_));
    dev_->upload(pressure);
    dev_->run(choice_);
    const std::vector<float> f = dev_->image();
    std::copy(f.begin(), f.end(), image.begin());
  }

  void synchronize() override {
    if (dev_) dev_->synchronize();
  }

 private:
  FbpOptions opt_;
  std::unique_ptr<FbpDevice> dev_;
  FbpChoice choice_;
  std::size_t voxels_ = 0;
};

const BackendRegistrar<Fbp> kRegisterCuda({"cuda", kPriorityCuda, [] { return tomo::cuda::cuda_availability(); },
                                           [] { return std::make_unique<CudaFbp>(); }});

}  // namespace
}  // namespace tomo::oat
