// The `cpu` backend of the strip operator: the listing of [Bialas2015] §4 in double precision,
// OpenMP over events, one ρ_new per thread summed at the end (§4.1).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/strip/projector.hpp"

namespace tomo::strip {

namespace {

class CpuProjector final : public ListModeProjector {
 public:
  std::string describe() const override { return str_cat("cpu: ", threads(), " OpenMP threads, double"); }
  void synchronize() override {}  // every call runs to its end

  void configure(const StripGeometry& g, const Resolution& res, const ProjectorOptions& o) override {
    geom_ = g;
    grid_ = g.grid<double>();
    kp_ = make_kernel_params<double>(g.R, res.sigma_z, res.sigma_dl, o.nsigma);
    opt_ = o;
    events_.clear();
    rho_.assign(g.pixel_count(), 0.0);
  }

  void set_events(std::span<const Event> events) override { events_.assign(events.begin(), events.end()); }

  void set_image(std::span<const double> rho) override {
    if (rho.size() != rho_.size())
      throw Error(str_cat("strip cpu: image of ", rho.size(), " pixels, grid has ", rho_.size()));
    rho_.assign(rho.begin(), rho.end());
  }

  std::vector<double> image() const override { return rho_; }

  std::vector<double> forward(std::span<const double> x) override {
    check_size(x.size(), rho_.size(), "image");
    std::vector<double> y(events_.size(), 0.0);
    const std::int64_t ne = static_cast<std::int64_t>(events_.size());
#pragma omp parallel for num_threads(threads()) schedule(dynamic, 256)
    for (std::int64_t e = 0; e < ne; ++e) visit(events_[e], [&](std::size_t i, double p) { y[e] += p * x[i]; });
    return y;
  }

  // One thread, events in order: the sums do not depend on the thread count.
  std::vector<double> back(std::span<const double> w) override {
    check_size(w.size(), events_.size(), "value list");
    std::vector<double> b(rho_.size(), 0.0);
    for (std::size_t e = 0; e < events_.size(); ++e)
      if (w[e] != 0.0) visit(events_[e], [&](std::size_t i, double p) { b[i] += p * w[e]; });
    return b;
  }

  void iterate() override {
    const int nt = threads();
    const std::size_t np = rho_.size();
    std::vector<std::vector<double>> partial(nt);
    const std::int64_t ne = static_cast<std::int64_t>(events_.size());
#pragma omp parallel num_threads(nt)
    {
      std::vector<double>& rho_new = partial[omp_get_thread_num()];
      rho_new.assign(np, 0.0);
      std::vector<std::pair<int, double>> cache;  // visited pixels and P·ρ, reused by the second loop
      cache.reserve(1024);
#pragma omp for schedule(dynamic, 256)
      for (std::int64_t e = 0; e < ne; ++e) {
        const Event& ev = events_[e];
        const auto f = make_frame<double>(ev.z_u, ev.z_d, ev.dl, kp_);
        const PixelBox b = pixel_box(f, grid_);
        cache.clear();
        double den = 0.0;
        for (int j = b.j0; j <= b.j1; ++j) {
          // Row by row: the pixels of row j inside the ellipse form one interval of z, so no pixel
          // of the bounding box is tested in vain; y-only terms of eq. (7) are computed once per row.
          const auto row = make_row(f, kp_, grid_.y0 + j * grid_.py - f.y);
          if (row.b1_half < 0.0) continue;
          const double zc = f.z + row.dy * f.tan;  // b1 = 0
          const int k0 = std::max(b.k0, static_cast<int>(std::ceil((zc - row.b1_half - grid_.z0) / grid_.pz)));
          const int k1 = std::min(b.k1, static_cast<int>(std::floor((zc + row.b1_half - grid_.z0) / grid_.pz)));
          const double* rho_row = rho_.data() + static_cast<std::size_t>(j) * grid_.nz;
          for (int k = k0; k <= k1; ++k) {
            const double b1 = grid_.z0 + k * grid_.pz - f.z - row.dy * f.tan;
            const double w = kernel_row_value(row, kp_, b1) * rho_row[k];
            den += w;
            cache.emplace_back(j * grid_.nz + k, w);
          }
        }
        if (!(den > 0.0)) continue;  // no support: the event carries no information
        const double inv = 1.0 / den;
        for (const auto& [i, w] : cache) rho_new[i] += w * inv;
      }
    }
    // Sum the per-thread images.
#pragma omp parallel for num_threads(nt) schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(np); ++i) {
      double s = 0.0;
      for (int t = 0; t < nt; ++t) s += partial[t][i];
      rho_[i] = s;
    }
  }

 private:
  int threads() const { return opt_.threads > 0 ? opt_.threads : omp_get_max_threads(); }

  static void check_size(std::size_t got, std::size_t want, const char* what) {
    if (got != want) throw Error(str_cat("strip cpu: ", what, " of ", got, " entries, expected ", want));
  }

  // Every pixel of the event's ellipse with P(ẽ|i), row by row as iterate() walks them.
  template <class F>
  void visit(const Event& ev, F&& f) const {
    const auto fr = make_frame<double>(ev.z_u, ev.z_d, ev.dl, kp_);
    const PixelBox b = pixel_box(fr, grid_);
    for (int j = b.j0; j <= b.j1; ++j) {
      const auto row = make_row(fr, kp_, grid_.y0 + j * grid_.py - fr.y);
      if (row.b1_half < 0.0) continue;
      const double zc = fr.z + row.dy * fr.tan;
      const int k0 = std::max(b.k0, static_cast<int>(std::ceil((zc - row.b1_half - grid_.z0) / grid_.pz)));
      const int k1 = std::min(b.k1, static_cast<int>(std::floor((zc + row.b1_half - grid_.z0) / grid_.pz)));
      for (int k = k0; k <= k1; ++k) {
        const double b1 = grid_.z0 + k * grid_.pz - fr.z - row.dy * fr.tan;
        f(static_cast<std::size_t>(j) * grid_.nz + k, kernel_row_value(row, kp_, b1));
      }
    }
  }

  StripGeometry geom_;
  GridParams<double> grid_{};
  KernelParams<double> kp_{};
  ProjectorOptions opt_;
  std::vector<Event> events_;
  std::vector<double> rho_;
};

const BackendRegistrar<ListModeProjector> kRegisterCpu({"cpu", kPriorityCpu, nullptr,
                                                        [] { return std::make_unique<CpuProjector>(); }});

}  // namespace

}  // namespace tomo::strip
