// SIRT, OS-SART, CGLS and FISTA-TV (see iterative.hpp) on host vectors: the steps of
// iterative_steps.hpp over std::vector<float>, sums and norms accumulated in double. A
// projector with its own device (ResidentIterative) runs the same steps there.
#include "compute/fdk/iterative.hpp"

#include <algorithm>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/tv_prox.hpp"
#include "compute/fdk/iterative_steps.hpp"

namespace tomo::fdk {
namespace {

// The host vector space of iterative_steps.hpp over a projector's float interface.
class HostSpace {
 public:
  using Vec = std::vector<float>;
  explicit HostSpace(ConeBeamProjector& A) : A_(A) {}

  Vec filled(std::size_t n, float value) const { return Vec(n, value); }
  Vec copy_of(const Vec& v) const { return v; }
  void copy(const Vec& src, Vec& dst) const { dst = src; }
  std::vector<float> to_host(const Vec& v) const { return v; }
  Vec from_host(const std::vector<float>& h) const { return h; }
  void forward(const Vec& x, Vec& y, std::span<const int> views) { A_.forward(x, y, views); }
  void back(const Vec& y, Vec& x, std::span<const int> views) { A_.back(y, x, views); }
  void back_voxel(const Vec& y, Vec& x, std::span<const int> views) { A_.back_voxel(y, x, views); }

  double dot(const Vec& a, const Vec& b) const {
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (std::size_t i = 0; i < a.size(); ++i) s += double(a[i]) * b[i];
    return s;
  }
  void invert_sums(Vec& v) const {
    float peak = 0;
    for (float e : v) peak = std::max(peak, e);
    const float eps = 1e-6f * peak;
    for (float& e : v) e = e > eps ? 1.0f / e : 0.0f;
  }
  double weighted_residual(const Vec& b, std::span<const int> views, std::size_t image, Vec& proj,
                           const Vec& R) const {
    double r2 = 0;
    for (std::size_t k = 0; k < proj.size() / image; ++k) {
      const std::size_t n = views.empty() ? k : static_cast<std::size_t>(views[k]);
      for (std::size_t p = 0; p < image; ++p) {
        const float r = b[n * image + p] - proj[k * image + p];
        r2 += double(r) * r;
        proj[k * image + p] = r * R[k * image + p];
      }
    }
    return r2;
  }
  void add_product(Vec& x, const Vec& C, const Vec& d, bool nonnegative) const {
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += C[i] * d[i];
    if (nonnegative)
      for (float& e : x) e = std::max(e, 0.0f);
  }
  void axpy(float a, const Vec& x, Vec& y) const {
    for (std::size_t i = 0; i < y.size(); ++i) y[i] += a * x[i];
  }
  void xpby(const Vec& x, float b, Vec& y) const {
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = x[i] + b * y[i];
  }
  void extrapolate(const Vec& x, const Vec& x_prev, float m, Vec& y) const {
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = x[i] + m * (x[i] - x_prev[i]);
  }
  void tv_prox(const Grid3& grid, const Vec& z, double mu, int inner, bool nonnegative, Vec& x) {
    fdk::tv_prox(grid, z, mu, inner, nonnegative, dual_, x);
  }

 private:
  ConeBeamProjector& A_;
  Vec dual_;
};

void check_sizes(const ConeGeometry& g, std::span<const float> b) {
  if (b.size() != g.views() * g.image_size())
    throw Error(str_cat("iterative reconstruction: ", b.size(), " line integrals for ", g.views(), " views of ", g.sx,
                        "x", g.sy));
}

template <class Run>
VolumeF on_host(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> b, Run&& run) {
  check_sizes(g, b);
  HostSpace s(A);
  const std::vector<float> bv(b.begin(), b.end());
  VolumeF v(g.grid);
  v.data = run(s, bv);
  return v;
}

}  // namespace

VolumeF sirt(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> b, const IterativeOptions& o,
             const IterationCallback& cb) {
  return on_host(A, g, b, [&](HostSpace& s, const std::vector<float>& bv) { return steps::sirt(s, g, bv, o, cb); });
}

VolumeF os_sart(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> b, const IterativeOptions& o,
                const IterationCallback& cb) {
  return on_host(A, g, b, [&](HostSpace& s, const std::vector<float>& bv) { return steps::os_sart(s, g, bv, o, cb); });
}

VolumeF cgls(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> b, const IterativeOptions& o,
             const IterationCallback& cb) {
  return on_host(A, g, b, [&](HostSpace& s, const std::vector<float>& bv) { return steps::cgls(s, g, bv, o, cb); });
}

// The shared TV proximal operator (compute/core/tv_prox.hpp) under fdk's signature.
void tv_prox(const Grid3& grid, std::span<const float> z, double mu, int iterations, bool nonnegative,
             std::vector<float>& dual, std::span<float> x) {
  (void)tomo::tv_prox<float>(grid, z, {.weight = mu, .iterations = iterations, .nonnegative = nonnegative}, dual, x);
}

VolumeF fista_tv(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> b, const IterativeOptions& o,
                 const IterationCallback& cb) {
  return on_host(A, g, b,
                 [&](HostSpace& s, const std::vector<float>& bv) { return steps::fista_tv(s, g, bv, o, cb); });
}

VolumeF reconstruct_iterative(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> b,
                              const IterativeOptions& o, const IterationCallback& cb) {
  if (o.algorithm == Algorithm::fdk) throw Error("reconstruct_iterative: fdk is not iterative");
  check_sizes(g, b);
  if (auto* resident = dynamic_cast<ResidentIterative*>(&A)) return resident->reconstruct_resident(g, b, o, cb);
  return on_host(A, g, b,
                 [&](HostSpace& s, const std::vector<float>& bv) { return steps::reconstruct(s, g, bv, o, cb); });
}

}  // namespace tomo::fdk
