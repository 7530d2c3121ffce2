// The iterative algorithms on the cuda projector with every vector on the GPU: the steps of
// iterative_steps.hpp over device buffers (vector_kernels.hpp). The host sees the line
// integrals once, a few scalars per iteration (the norms CGLS and the residual need) and the
// volume at the end.
#include <cuda_runtime.h>

#include <cmath>
#include <utility>

#include "compute/core/error.hpp"
#include "compute/fdk/iterative_steps.hpp"
#include "cuda/core/check.hpp"
#include "cuda/fdk/cuda_projector.hpp"
#include "cuda/fdk/vector_kernels.hpp"

namespace tomo::fdk::cuda_impl {
namespace {

namespace cd = cuda_detail;
using tomo::cuda::DeviceBuffer;

class DeviceSpace {
 public:
  using Vec = DeviceBuffer<float>;
  explicit DeviceSpace(CudaProjector& A) : A_(A), s_(A.stream()), scalar_(1) {}

  Vec filled(std::size_t n, float value) {
    Vec v(n);
    cd::fill(v.data(), n, value, s_);
    return v;
  }
  Vec copy_of(const Vec& v) {
    Vec c(v.size());
    copy(v, c);
    return c;
  }
  void copy(const Vec& src, Vec& dst) {
    if (src.size() != dst.size()) throw Error("fdk cuda iterative: copy between vectors of different sizes");
    TOMO_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), src.bytes(), cudaMemcpyDeviceToDevice, s_));
  }
  std::vector<float> to_host(const Vec& v) {
    std::vector<float> out(v.size());
    v.download_async(out.data(), out.size(), s_);
    TOMO_CUDA_CHECK(cudaStreamSynchronize(s_));
    return out;
  }
  Vec from_host(const std::vector<float>& h) {
    Vec v(h.size());
    TOMO_CUDA_CHECK(cudaStreamSynchronize(s_));  // upload() is synchronous on the default stream
    v.upload(std::span<const float>(h));
    return v;
  }
  void forward(const Vec& x, Vec& y, std::span<const int> views) { A_.forward_device(x.data(), y.data(), views); }
  void back(const Vec& y, Vec& x, std::span<const int> views) { A_.back_device(y.data(), x.data(), views); }
  void back_voxel(const Vec& y, Vec& x, std::span<const int> views) {
    A_.back_voxel_device(y.data(), x.data(), views);
  }

  double dot(const Vec& a, const Vec& b) {
    clear_scalar();
    cd::dot(a.data(), b.data(), a.size(), scalar_.data(), s_);
    return fetch_scalar();
  }
  void invert_sums(Vec& v) {
    const std::size_t need = cd::invert_scratch_bytes(v.size());
    if (scratch_.size() < need) {
      TOMO_CUDA_CHECK(cudaStreamSynchronize(s_));  // the old scratch may still be in use
      scratch_.resize(need);
    }
    cd::invert_sums(v.data(), v.size(), scratch_.data(), s_);
  }
  double weighted_residual(const Vec& b, std::span<const int> views, std::size_t image, Vec& proj, const Vec& R) {
    clear_scalar();
    cd::weighted_residual(b.data(), A_.device_views(views), static_cast<int>(proj.size() / image), image,
                          proj.data(), R.data(), scalar_.data(), s_);
    return fetch_scalar();
  }
  void add_product(Vec& x, const Vec& C, const Vec& d, bool nonnegative) {
    cd::add_product(x.data(), C.data(), d.data(), x.size(), nonnegative, s_);
  }
  void axpy(float a, const Vec& x, Vec& y) { cd::axpy(a, x.data(), y.data(), y.size(), s_); }
  void xpby(const Vec& x, float b, Vec& y) { cd::xpby(x.data(), b, y.data(), y.size(), s_); }
  void extrapolate(const Vec& x, const Vec& x_prev, float m, Vec& y) {
    cd::extrapolate(x.data(), x_prev.data(), m, y.data(), y.size(), s_);
  }
  // fdk::tv_prox's accelerated dual ascent, pass by pass on the device, its dual kept between calls.
  void tv_prox(const Grid3& grid, const Vec& z, double mu, int inner, bool nonnegative, Vec& x) {
    const std::size_t N = grid.count();
    if (dual_.size() != 3 * N) {
      dual_ = filled(3 * N, 0.0f);
      r_.resize(3 * N);
      p_next_.resize(3 * N);
    }
    if (!(mu > 0)) {
      cd::clamp_copy(z.data(), nonnegative, x.data(), N, s_);
      return;
    }
    const float fmu = static_cast<float>(mu);
    copy(dual_, r_);
    double t = 1.0;
    for (int it = 0; it < inner; ++it) {
      cd::tv_primal(grid.dims, z.data(), fmu, nonnegative, r_.data(), x.data(), s_);
      cd::tv_ascend(grid.dims, x.data(), fmu, r_.data(), p_next_.data(), s_);
      const double t_next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t * t));
      const float m = static_cast<float>((t - 1.0) / t_next);
      cd::tv_momentum(p_next_.data(), dual_.data(), m, r_.data(), 3 * N, s_);
      std::swap(dual_, p_next_);
      t = t_next;
    }
    cd::tv_primal(grid.dims, z.data(), fmu, nonnegative, dual_.data(), x.data(), s_);
  }

 private:
  void clear_scalar() { TOMO_CUDA_CHECK(cudaMemsetAsync(scalar_.data(), 0, sizeof(double), s_)); }
  double fetch_scalar() {
    double h = 0;
    TOMO_CUDA_CHECK(cudaMemcpyAsync(&h, scalar_.data(), sizeof(double), cudaMemcpyDeviceToHost, s_));
    TOMO_CUDA_CHECK(cudaStreamSynchronize(s_));
    return h;
  }

  CudaProjector& A_;
  cudaStream_t s_;
  DeviceBuffer<double> scalar_;
  DeviceBuffer<unsigned char> scratch_;
  Vec dual_, r_, p_next_;
};

}  // namespace

VolumeF CudaProjector::reconstruct_resident(const ConeGeometry& g, std::span<const float> b,
                                            const IterativeOptions& o, const IterationCallback& cb) {
  if (g.grid != g_.grid || g.sx != g_.sx || g.sy != g_.sy || g.views() != g_.views())
    throw Error("fdk cuda projector: reconstruct on a geometry other than setup()'s");
  DeviceSpace space(*this);
  stream_.synchronize();
  DeviceSpace::Vec bd(b.size());
  // NumPy's stack through the page-locked staging, queued on stream_, which the steps run on.
  staging_.set_slab(static_cast<std::size_t>(host_views()) * g_.image_size());
  staging_.upload(b.data(), bd.data(), b.size(), stream_);
  VolumeF v(g.grid);
  v.data = steps::reconstruct(space, g, bd, o, cb);
  return v;
}

}  // namespace tomo::fdk::cuda_impl
