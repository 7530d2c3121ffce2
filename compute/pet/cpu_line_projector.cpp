// The line projector's cpu reference backend: every line's walk (compute/pet/joseph.hpp) made once
// in double at configure (with its TOF window and renormalisation in TOF mode), the forward a
// gather per line and the back its adjoint (atomic double adds), both over OpenMP threads.
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
  std::string describe() const override { return tof_walks_.empty() ? "cpu (double)" : "cpu (double), TOF list mode"; }
  void configure(const LineGrid& g, std::span<const double> e, const LineTof* tof) override {
    check_line_input(g, e);
    if (tof) check_line_tof(g, e.size() / 6, *tof);
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
    tof_walks_.clear();
    sigma_.clear();
    if (!tof) return;
    tof_walks_.resize(walks_.size());
    sigma_.assign(tof->sigma_mm.begin(), tof->sigma_mm.end());
    width_ = tof->bin_width_mm;
#pragma omp parallel for schedule(dynamic, 1024)
    for (long long i = 0; i < n; ++i) {
      const joseph::TofParams<double> p{tof->bin_index[i], tof->num_bins, tof->bin_width_mm, tof->sigma_of(i),
                                        tof->offset_of(i), tof->num_sigmas};
      tof_walks_[i] = joseph::make_tof_walk(walks_[i], &e[6 * i], &e[6 * i + 3], grid_, p);
    }
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
      taps(std::size_t(i), [&](long long j, double w) { s += w * image[j]; });
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
      taps(std::size_t(i), [&](long long j, double w) {
#pragma omp atomic
        img[j] += w * v;
      });
    }
  }

 private:
  // Line i's taps: Joseph's, or with its TOF bin's kernel.
  template <class Visit>
  void taps(std::size_t i, Visit&& visit) const {
    if (tof_walks_.empty()) {
      joseph::walk_taps(walks_[i], grid_.n, visit);
      return;
    }
    const double sigma = sigma_.size() == 1 ? sigma_[0] : sigma_[i];
    joseph::tof_walk_taps(walks_[i], tof_walks_[i], sigma, width_, grid_.n, visit);
  }

  joseph::Grid<double> grid_{};
  std::size_t voxels_ = 0;
  std::vector<joseph::Walk<double>> walks_;
  std::vector<joseph::TofWalk<double>> tof_walks_;  // empty: non-TOF
  std::vector<double> sigma_;
  double width_ = 0;
};

const BackendRegistrar<LineProjector> kRegisterCpu({"cpu", kPriorityCpu, {}, [] { return std::make_unique<CpuLineProjector>(); }});

}  // namespace

}  // namespace tomo::pet
