// `cpu` backend: [Hofmann2010] Algorithm 1 with OpenMP over (z, y) rows, the RabbitCT update rule and bilinear
// convention (taps outside the image read 0), double matrices and double accumulation: the reference.
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/cpu_kernel.hpp"

namespace tomo::fdk {
namespace {

class CpuBackprojector final : public ConeBeamBackprojector {
 public:
  void reset(const Grid3& grid) override {
    grid_ = grid;
    acc_.assign(grid.count(), 0.0);
  }
  void backproject(const ProjectionView& b) override {
    if (acc_.empty()) throw Error("fdk cpu: backproject() before reset()");
    backproject_reference(grid_, b, acc_.data());
  }
  VolumeF volume() override {
    VolumeF v(grid_);
    for (std::size_t i = 0; i < acc_.size(); ++i) v.data[i] = static_cast<float>(acc_[i]);
    return v;
  }
  std::string describe() const override { return "cpu (OpenMP over (z, y) rows, double accumulation)"; }

 private:
  Grid3 grid_;
  std::vector<double> acc_;
};

const BackendRegistrar<ConeBeamBackprojector> kRegisterCpu({"cpu", kPriorityCpu, nullptr,
                                                       [] { return std::make_unique<CpuBackprojector>(); }});

}  // namespace
}  // namespace tomo::fdk
