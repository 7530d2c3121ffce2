// The line projector's checks, its factory and its cpu reference backend: every line's walk
// (compute/pet/joseph.hpp) made once in double at configure, the forward a gather per line and the
// back its adjoint (atomic double adds), both over OpenMP threads.
#include "compute/pet/line_projector.hpp"

#include <cmath>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/pet/joseph.hpp"

namespace tomo::pet {

void LineProjector::forward_device(const float*, float*) {
  throw Error("line projector: device arrays need the cuda backend, this one is " + describe());
}
void LineProjector::back_device(const float*, float*) {
  throw Error("line projector: device arrays need the cuda backend, this one is " + describe());
}

void check_line_input(const LineGrid& g, std::span<const double> e) {
  const char* axis = "xyz";
  for (int k = 0; k < 3; ++k) {
    if (g.dims[k] < 1) throw InputError(str_cat("line projector: shape along ", axis[k], " is ", g.dims[k], ", must be >= 1"));
    if (!(std::isfinite(g.voxel_mm[k]) && g.voxel_mm[k] > 0))
      throw InputError(str_cat("line projector: voxel_size along ", axis[k], " is ", g.voxel_mm[k], ", must be finite and > 0"));
    if (!std::isfinite(g.origin_mm[k]))
      throw InputError(str_cat("line projector: origin along ", axis[k], " is ", g.origin_mm[k], ", must be finite"));
  }
  if (e.size() % 6 != 0)
    throw InputError(str_cat("line projector: ", e.size(), " end-point values, not 6 per line (x, y, z of both ends)"));
  for (std::size_t i = 0; i < e.size(); ++i)
    if (!std::isfinite(e[i]))
      throw InputError(str_cat("line projector: end points of line ", i / 6, " are not finite (", e[i], ")"));
}

std::unique_ptr<LineProjector> make_line_projector(const std::string& backend, const LineGrid& grid,
                                                   std::span<const double> endpoints) {
  if (backend == "gl" || backend == "gl-compute")
    throw InputError("line projector: backend '" + backend +
                     "' is not implemented for this operator (it has cpu and cuda)");
  check_line_input(grid, endpoints);
  auto op = BackendRegistry<LineProjector>::instance().create(backend);
  op->configure(grid, endpoints);
  return op;
}

namespace {

class CpuLineProjector final : public LineProjector {
 public:
  std::string describe() const override { return "cpu (double)"; }
  void configure(const LineGrid& g, std::span<const double> e) override {
    check_line_input(g, e);
    for (int k = 0; k < 3; ++k) {
      grid_.n[k] = g.dims[k];
      grid_.voxel[k] = g.voxel_mm[k];
      grid_.origin[k] = g.origin_mm[k];
    }
    voxels_ = g.count();
    walks_.resize(e.size() / 6);
    const long long n = static_cast<long long>(walks_.size());
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; ++i) walks_[i] = joseph::make_walk(&e[6 * i], &e[6 * i + 3], grid_);
  }
  std::size_t line_count() const override { return walks_.size(); }

  void forward(std::span<const double> image, std::span<double> lines) override {
    if (image.size() != voxels_ || lines.size() != walks_.size())
      throw Error(str_cat("line projector cpu: forward of ", image.size(), " voxels into ", lines.size(),
                          " lines, configured for ", voxels_, " and ", walks_.size()));
    const long long n = static_cast<long long>(walks_.size());
#pragma omp parallel for schedule(dynamic, 1024)
    for (long long i = 0; i < n; ++i) {
      double s = 0;
      joseph::walk_taps(walks_[i], grid_.n, [&](long long j, double w) { s += w * image[j]; });
      lines[i] = s;
    }
  }

  void back(std::span<const double> lines, std::span<double> image) override {
    if (image.size() != voxels_ || lines.size() != walks_.size())
      throw Error(str_cat("line projector cpu: back of ", lines.size(), " lines into ", image.size(),
                          " voxels, configured for ", walks_.size(), " and ", voxels_));
    std::fill(image.begin(), image.end(), 0.0);
    const long long n = static_cast<long long>(walks_.size());
    double* img = image.data();
#pragma omp parallel for schedule(dynamic, 1024)
    for (long long i = 0; i < n; ++i) {
      const double v = lines[i];
      if (v == 0) continue;
      joseph::walk_taps(walks_[i], grid_.n, [&](long long j, double w) {
#pragma omp atomic
        img[j] += w * v;
      });
    }
  }

 private:
  joseph::Grid<double> grid_{};
  std::size_t voxels_ = 0;
  std::vector<joseph::Walk<double>> walks_;
};

const BackendRegistrar<LineProjector> kRegisterCpu({"cpu", kPriorityCpu, {}, [] { return std::make_unique<CpuLineProjector>(); }});

}  // namespace

}  // namespace tomo::pet
