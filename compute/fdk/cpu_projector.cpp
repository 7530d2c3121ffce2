// `cpu` ConeBeamProjector: the double reference kernels of ray_model.hpp behind the float
// interface (inputs widened to double, results rounded once).
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/fdk/forward_projector.hpp"
#include "compute/fdk/ray_model.hpp"

namespace tomo::fdk {
namespace {

class CpuProjector final : public ConeBeamProjector {
 public:
  void setup(const ConeGeometry& g) override {
    for (int n = 0; n < g.views(); ++n) (void)view_rays(g.grid, g.matrices[n], n);  // degenerate views fail here
    g_ = g;
  }
  void forward(std::span<const float> volume, std::span<float> out, std::span<const int> views) override {
    check(volume.size(), out.size(), views);
    x_.assign(volume.begin(), volume.end());
    y_.resize(out.size());
    forward_reference(g_, step_mm(g_.grid, options_), x_.data(), y_.data(), views);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(y_[i]);
  }
  void back(std::span<const float> projections, std::span<float> volume, std::span<const int> views) override {
    check(volume.size(), projections.size(), views);
    y_.assign(projections.begin(), projections.end());
    x_.resize(volume.size());
    back_reference(g_, step_mm(g_.grid, options_), y_.data(), x_.data(), views);
    for (std::size_t i = 0; i < volume.size(); ++i) volume[i] = static_cast<float>(x_[i]);
  }
  void back_voxel(std::span<const float> projections, std::span<float> volume, std::span<const int> views) override {
    check(volume.size(), projections.size(), views);
    y_.assign(projections.begin(), projections.end());
    x_.resize(volume.size());
    back_voxel_reference(g_, y_.data(), x_.data(), views);
    for (std::size_t i = 0; i < volume.size(); ++i) volume[i] = static_cast<float>(x_[i]);
  }
  std::string describe() const override {
    return str_cat("cpu projector (ray-driven, trilinear samples every ", options_.step_voxels,
                   " voxel, double, OpenMP)");
  }

 private:
  void check(std::size_t voxels, std::size_t pixels, std::span<const int> views) const {
    const std::size_t nv = views.empty() ? g_.views() : views.size();
    if (voxels != g_.grid.count() || pixels != nv * g_.image_size())
      throw Error(str_cat("fdk cpu projector: ", voxels, " voxels and ", pixels, " pixels given, the geometry has ",
                          g_.grid.count(), " and ", nv * g_.image_size()));
    for (int v : views)
      if (v < 0 || v >= g_.views()) throw Error(str_cat("fdk cpu projector: view ", v, " of ", g_.views()));
  }
  ConeGeometry g_;
  std::vector<double> x_, y_;
};

const BackendRegistrar<ConeBeamProjector> kRegisterCpu({"cpu", kPriorityCpu, nullptr,
                                                        [] { return std::make_unique<CpuProjector>(); }});

}  // namespace
}  // namespace tomo::fdk
