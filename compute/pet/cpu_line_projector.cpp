// The line projector's cpu reference backend: every line's walk (compute/pet/joseph.hpp) made once
// in double at configure, the forward a gather per line and the back its adjoint (atomic double
// adds), both over OpenMP threads.
#include <algorithm>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/pet/joseph.hpp"
#include "compute/pet/line_projector.hpp"

namespace tomo::pet {

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
