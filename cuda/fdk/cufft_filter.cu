// cuFFT FDK pre-processing (see cufft_filter.hpp): weight + zero-pad kernel, batched R2C,
// multiply by the CPU filter's response × Δβ/P, batched C2R, crop. Kak & Slaney eq. (3.61) kernel,
// FDK (Feldkamp 1984) cosine weight, Parker (1982) weights — all taken from FdkFilter on the host.
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cuda/core/check.hpp"
#include "cuda/core/device_buffer.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "cuda/fdk/cufft_filter.hpp"

namespace tomo::fdk {
namespace {

const char* cufft_result_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "cufftResult(unknown)";
  }
}

}  // namespace
}  // namespace tomo::fdk

// Throws tomo::Error naming file:line, the cuFFT call and its result (TOMO_CUDA_CHECK's style).
#define TOMO_CUFFT_CHECK(call)                                                                        \
  do {                                                                                                \
    const cufftResult tomo_cufft_res_ = (call);                                                       \
    if (tomo_cufft_res_ != CUFFT_SUCCESS)                                                             \
      throw ::tomo::Error(::tomo::str_cat(__FILE__, ":", __LINE__, ": TOMO_CUFFT_CHECK failed: ", #call, \
                                          " returned ", ::tomo::fdk::cufft_result_name(tomo_cufft_res_))); \
  } while (0)

namespace tomo::fdk {
namespace {

// Move-only owner of a cufftHandle.
class CufftPlan {
 public:
  CufftPlan() = default;
  ~CufftPlan() {
    if (valid_) {
      const cufftResult r = cufftDestroy(handle_);
      if (r != CUFFT_SUCCESS) log_error(str_cat("cufftDestroy returned ", cufft_result_name(r)));
    }
  }
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;
  CufftPlan(CufftPlan&& o) noexcept : handle_(o.handle_), valid_(std::exchange(o.valid_, false)) {}
  CufftPlan& operator=(CufftPlan&&) = delete;

  // `rows` transforms of length P, reals at distance P, spectra at distance P/2+1.
  static CufftPlan many_1d(int P, int rows, cufftType type) {
    CufftPlan p;
    int n[1] = {P};
    int real_embed[1] = {P};
    int spec_embed[1] = {P / 2 + 1};
    const bool r2c = type == CUFFT_R2C;
    TOMO_CUFFT_CHECK(cufftPlanMany(&p.handle_, 1, n, r2c ? real_embed : spec_embed, 1, r2c ? P : P / 2 + 1,
                                   r2c ? spec_embed : real_embed, 1, r2c ? P / 2 + 1 : P, type, rows));
    p.valid_ = true;
    return p;
  }
  cufftHandle get() const { return handle_; }

 private:
  cufftHandle handle_ = 0;
  bool valid_ = false;
};

struct PlanPair {
  CufftPlan forward, inverse;
};

// padded[(b·sy + j)·P + i] = raw·cos(i, j)·w_{n0+b}(i) for i < sx, 0 up to P (seed: FDK weights).
__global__ void weight_pad_kernel(const float* __restrict__ raw, const float* __restrict__ cosw,
                                  const float* __restrict__ colw, float* __restrict__ padded, int sx, int sy, int P,
                                  int rows) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y;  // b·sy + j
  if (i >= P || r >= rows) return;
  const int b = r / sy, j = r - b * sy;
  float v = 0.0f;
  if (i < sx) v = raw[static_cast<size_t>(r) * sx + i] * (cosw[static_cast<size_t>(j) * sx + i] * colw[static_cast<size_t>(b) * sx + i]);
  padded[static_cast<size_t>(r) * P + i] = v;
}

// spec[r][k] *= H[k]·Δβ/P (real response: the ramp kernel is symmetric).
__global__ void multiply_kernel(cufftComplex* __restrict__ spec, const float* __restrict__ resp, int K, int rows) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y;
  if (k >= K || r >= rows) return;
  cufftComplex& c = spec[static_cast<size_t>(r) * K + k];
  const float h = resp[k];
  c.x *= h;
  c.y *= h;
}

__global__ void crop_kernel(const float* __restrict__ padded, float* __restrict__ out, int sx, int P, int rows) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y;
  if (i >= sx || r >= rows) return;
  out[static_cast<size_t>(r) * sx + i] = padded[static_cast<size_t>(r) * P + i];
}

constexpr int kThreads = 128;

}  // namespace

struct CufftFilter::Impl {
  CArmGeometry g;
  int P = 0, K = 0, max_batch = 1;
  cuda::DeviceBuffer<float> response;  // K: H[k]·Δβ/P
  cuda::DeviceBuffer<float> cosine;    // sy·sx
  cuda::DeviceBuffer<float> columns;   // projections·sx
  cuda::DeviceBuffer<float> padded;    // max_batch·sy·P
  cuda::DeviceBuffer<cufftComplex> spectrum;  // max_batch·sy·K
  std::map<int, PlanPair> plans;       // by batch size; made once, reused

  PlanPair& plan_for(int count) {
    auto it = plans.find(count);
    if (it != plans.end()) return it->second;
    const int rows = count * g.sy;
    PlanPair p{CufftPlan::many_1d(P, rows, CUFFT_R2C), CufftPlan::many_1d(P, rows, CUFFT_C2R)};
    return plans.emplace(count, std::move(p)).first->second;
  }
};

CufftFilter::CufftFilter(const CArmGeometry& g, FilterOptions options, int max_batch) : impl_(std::make_unique<Impl>()) {
  if (max_batch < 1) throw Error(str_cat("CufftFilter: max_batch must be >= 1, got ", max_batch));
  if (g.sx < 1 || g.sy < 1 || g.projections < 1)
    throw Error(str_cat("CufftFilter: bad geometry ", g.sx, "x", g.sy, "x", g.projections));
  const FdkFilter cpu(g, options);  // the CPU filter's own response and weights
  Impl& m = *impl_;
  m.g = g;
  m.P = cpu.padded_size();
  m.K = m.P / 2 + 1;
  if (g.sy > 65535) throw Error(str_cat("CufftFilter: ", g.sy, " detector rows exceed the grid limit 65535"));
  m.max_batch = std::min({max_batch, g.projections, 65535 / g.sy});  // rows are gridDim.y

  const double scale = cpu.spectrum_scale();
  std::vector<float> resp(m.K);
  for (int k = 0; k < m.K; ++k) resp[k] = static_cast<float>(cpu.response()[k] * scale);
  std::vector<float> cosw(cpu.cosine_weights().begin(), cpu.cosine_weights().end());
  std::vector<float> colw(static_cast<std::size_t>(g.projections) * g.sx);
  for (int n = 0; n < g.projections; ++n) {
    const std::vector<double> w = cpu.column_weights(n);
    std::copy(w.begin(), w.end(), colw.begin() + static_cast<std::ptrdiff_t>(n) * g.sx);
  }
  m.response = cuda::DeviceBuffer<float>(std::span<const float>(resp));
  m.cosine = cuda::DeviceBuffer<float>(std::span<const float>(cosw));
  m.columns = cuda::DeviceBuffer<float>(std::span<const float>(colw));
  m.padded.resize(static_cast<std::size_t>(m.max_batch) * g.sy * m.P);
  m.spectrum.resize(static_cast<std::size_t>(m.max_batch) * g.sy * m.K);
}

CufftFilter::~CufftFilter() = default;

int CufftFilter::padded_size() const { return impl_->P; }
int CufftFilter::max_batch() const { return impl_->max_batch; }

void CufftFilter::apply_device(int n0, int count, const float* raw, float* out, cudaStream_t stream) {
  Impl& m = *impl_;
  const int sx = m.g.sx, sy = m.g.sy;
  if (n0 < 0 || count < 0 || n0 + count > m.g.projections)
    throw Error(str_cat("CufftFilter: projections [", n0, ", ", n0 + count, ") outside 0..", m.g.projections));
  const std::size_t image = static_cast<std::size_t>(sx) * sy;
  for (int b0 = 0; b0 < count; b0 += m.max_batch) {
    const int cnt = std::min(m.max_batch, count - b0);
    const int rows = cnt * sy;
    PlanPair& plan = m.plan_for(cnt);
    const float* src = raw + b0 * image;
    float* dst = out + b0 * image;
    const float* colw = m.columns.data() + static_cast<std::size_t>(n0 + b0) * sx;
    weight_pad_kernel<<<dim3((m.P + kThreads - 1) / kThreads, rows), kThreads, 0, stream>>>(
        src, m.cosine.data(), colw, m.padded.data(), sx, sy, m.P, rows);
    TOMO_CUDA_CHECK_LAST();
    TOMO_CUFFT_CHECK(cufftSetStream(plan.forward.get(), stream));
    TOMO_CUFFT_CHECK(cufftExecR2C(plan.forward.get(), m.padded.data(), m.spectrum.data()));
    multiply_kernel<<<dim3((m.K + kThreads - 1) / kThreads, rows), kThreads, 0, stream>>>(m.spectrum.data(),
                                                                                       m.response.data(), m.K, rows);
    TOMO_CUDA_CHECK_LAST();
    TOMO_CUFFT_CHECK(cufftSetStream(plan.inverse.get(), stream));
    TOMO_CUFFT_CHECK(cufftExecC2R(plan.inverse.get(), m.spectrum.data(), m.padded.data()));
    crop_kernel<<<dim3((sx + kThreads - 1) / kThreads, rows), kThreads, 0, stream>>>(m.padded.data(), dst, sx, m.P,
                                                                                  rows);
    TOMO_CUDA_CHECK_LAST();
  }
}

void CufftFilter::apply_host(int n0, int count, const float* raw, float* out) {
  const std::size_t n = static_cast<std::size_t>(impl_->g.sx) * impl_->g.sy * std::max(count, 0);
  cuda::DeviceBuffer<float> d(n);
  d.upload(raw, n);
  apply_device(n0, count, d.data(), d.data(), nullptr);
  d.download(out, n);  // cudaMemcpy on the legacy stream orders after the kernels
}

void cuda_filter_projections(const CArmGeometry& g, const FilterOptions& options, int n0, int count, const float* raw,
                             float* out) {
  CufftFilter f(g, options);
  f.apply_host(n0, count, raw, out);
}

}  // namespace tomo::fdk
