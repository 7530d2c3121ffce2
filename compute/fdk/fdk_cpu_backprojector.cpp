// `cpu` backend: seed 003 Algorithm 1 with OpenMP over (z, y) rows, the RabbitCT update rule and bilinear
// convention (taps outside the image read 0), double matrices and double accumulation: the reference.
#include <memory>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/registry.hpp"
#include "fdk/backprojector.hpp"
#include "fdk/cpu_kernel.hpp"

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

const BackendRegistrar<ConeBeamBackprojector> reg_cpu({"cpu", kPriorityCpu, nullptr,
                                                       [] { return std::make_unique<CpuBackprojector>(); }});

}  // namespace
}  // namespace tomo::fdk
