// cuFFT FDK pre-processing (see cufft_filter.hpp): weight + zero-pad, batched R2C, multiply by the
// CPU filter's response × Δβ/P, batched C2R, crop — fused into cuFFT's kernels as LTO callbacks, or
// as kernels of their own around it. Kak & Slaney eq. (3.61) kernel, FDK (Feldkamp 1984) cosine
// weight, Parker (1982) weights — all taken from FdkFilter on the host.
#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cuda/core/check.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/nvrtc.hpp"
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

// The callbacks' parameters, in device memory: the constant part is written once, the batch's
// pointers by set_batch_kernel before each batch's transforms (stream-ordered). One definition
// for nvcc (below) and, as text, for NVRTC (kCallbackSource).
#define TOMO_FDK_CALLBACK_PARAMS                                                                   \
  struct FdkCallbackParams {                                                                       \
    const float* raw;      /* the batch's raw rows, rows·sx */                                     \
    float* out;            /* its filtered rows, rows·sx */                                        \
    const float* columns;  /* its projections' column weights, count·sx */                         \
    const float* cosine;   /* sy·sx */                                                             \
    const float* response; /* K: H[k]·Δβ/P */                                                      \
    unsigned sx, sy, P, K;                                                                         \
  };
TOMO_FDK_CALLBACK_PARAMS
#define TOMO_FDK_STRINGIFY2(...) #__VA_ARGS__
#define TOMO_FDK_STRINGIFY(...) TOMO_FDK_STRINGIFY2(__VA_ARGS__)

// cuFFT's LTO callbacks. cuFFT declares each by the name given, as a C++ function of its
// signature (cufftReal = float, cufftComplex = float2), so they keep C++ linkage here. `offset`
// indexes the batch's logical arrays (rows·P reals, rows·K spectra); the host keeps rows·P below
// 2³², so 32-bit index arithmetic is exact.
//   fdk_load_weighted   (R2C load):  raw·cos·column weight for i < sx, the zero padding beyond
//   fdk_store_spectrum  (R2C store): the spectrum times the response
//   fdk_store_cropped   (C2R store): the first sx samples of each row into the output
constexpr const char* kCallbackFunctions = R"(
__device__ float fdk_load_weighted(void*, unsigned long long offset, void* info, void*) {
  const FdkCallbackParams* p = static_cast<const FdkCallbackParams*>(info);
  const unsigned o = static_cast<unsigned>(offset);
  const unsigned r = o / p->P, i = o - r * p->P;
  if (i >= p->sx) return 0.0f;
  const unsigned b = r / p->sy, j = r - b * p->sy;
  const unsigned long long sx = p->sx;
  return p->raw[r * sx + i] * (p->cosine[j * sx + i] * p->columns[b * sx + i]);
}
__device__ void fdk_store_spectrum(void* out, unsigned long long offset, float2 v, void* info, void*) {
  const FdkCallbackParams* p = static_cast<const FdkCallbackParams*>(info);
  const float h = p->response[static_cast<unsigned>(offset) % p->K];
  v.x *= h;
  v.y *= h;
  static_cast<float2*>(out)[offset] = v;
}
__device__ void fdk_store_cropped(void*, unsigned long long offset, float v, void* info, void*) {
  const FdkCallbackParams* p = static_cast<const FdkCallbackParams*>(info);
  const unsigned o = static_cast<unsigned>(offset);
  const unsigned r = o / p->P, i = o - r * p->P;
  if (i < p->sx) p->out[static_cast<unsigned long long>(r) * p->sx + i] = v;
}
)";

// The callbacks' LTO-IR for compute capability major.minor, read from disk or compiled once per process.
const std::vector<char>& callback_ir(int major, int minor) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, std::vector<char>> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find({major, minor});
  if (it != cache.end()) return it->second;
  return cache.emplace(std::make_pair(major, minor), cufft_callbacks_ltoir(major, minor)).first->second;
}

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

  // `rows` transforms of length P, reals at distance P, spectra at distance P/2+1; with `ir`, the
  // R2C gets the load and store callbacks, the C2R the cropping store (`info`: their parameters).
  static CufftPlan many_1d(int P, int rows, cufftType type, const std::vector<char>* ir = nullptr,
                           void** info = nullptr) {
    CufftPlan p;
    TOMO_CUFFT_CHECK(cufftCreate(&p.handle_));
    p.valid_ = true;
    const bool r2c = type == CUFFT_R2C;
    if (ir) {
#if CUFFT_VERSION >= 12000
      const auto set = [&](const char* name, cufftXtCallbackType t) {
        TOMO_CUFFT_CHECK(cufftXtSetJITCallback(p.handle_, name, ir->data(), ir->size(), t, info));
      };
      if (r2c) {
        set("fdk_load_weighted", CUFFT_CB_LD_REAL);
        set("fdk_store_spectrum", CUFFT_CB_ST_COMPLEX);
      } else {
        set("fdk_store_cropped", CUFFT_CB_ST_REAL);
      }
#else
      throw Error("cuFFT before 12 has no named LTO callbacks");
#endif
    }
    int n[1] = {P};
    int real_embed[1] = {P};
    int spec_embed[1] = {P / 2 + 1};
    std::size_t work = 0;
    TOMO_CUFFT_CHECK(cufftMakePlanMany(p.handle_, 1, n, r2c ? real_embed : spec_embed, 1, r2c ? P : P / 2 + 1,
                                       r2c ? spec_embed : real_embed, 1, r2c ? P / 2 + 1 : P, type, rows, &work));
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

// The fused plans' per-batch pointers.
__global__ void set_batch_kernel(FdkCallbackParams* p, const float* raw, float* out, const float* columns) {
  p->raw = raw;
  p->out = out;
  p->columns = columns;
}

constexpr int kThreads = 128;

}  // namespace

std::vector<char> cufft_callbacks_ltoir(int cc_major, int cc_minor) {
  const std::string source = std::string(TOMO_FDK_STRINGIFY(TOMO_FDK_CALLBACK_PARAMS)) + kCallbackFunctions;
  return cuda::nvrtc_compile(source, "fdk_filter_callbacks.cu", cuda::NvrtcOutput::ltoir, cc_major, cc_minor);
}

struct CufftFilter::Impl {
  CArmGeometry g;
  int P = 0, K = 0, max_batch = 1;
  FilterPasses passes = FilterPasses::fused;
  cuda::DeviceBuffer<float> response;  // K: H[k]·Δβ/P
  cuda::DeviceBuffer<float> cosine;    // sy·sx
  cuda::DeviceBuffer<float> columns;   // projections·sx
  cuda::DeviceBuffer<float> padded;    // max_batch·sy·P (fused: the plans' nominal input/output only)
  cuda::DeviceBuffer<cufftComplex> spectrum;  // max_batch·sy·K
  cuda::DeviceBuffer<FdkCallbackParams> params;  // fused: one block
  void* params_ptr = nullptr;
  const std::vector<char>* ir = nullptr;  // fused: the callbacks' LTO-IR
  std::map<int, PlanPair> plans;       // by batch size; made once, reused

  PlanPair& plan_for(int count) {
    auto it = plans.find(count);
    if (it != plans.end()) return it->second;
    const int rows = count * g.sy;
    const bool fused = passes == FilterPasses::fused;
    PlanPair p{CufftPlan::many_1d(P, rows, CUFFT_R2C, fused ? ir : nullptr, &params_ptr),
               CufftPlan::many_1d(P, rows, CUFFT_C2R, fused ? ir : nullptr, &params_ptr)};
    return plans.emplace(count, std::move(p)).first->second;
  }

  // Fused plans for a full batch, or (with a log line) the separate kernels where they cannot be
  // made: an NVRTC without LTO-IR for this device, a cuFFT without JIT callbacks or nvJitLink.
  void prepare_fused() {
    try {
      int device = 0, major = 0, minor = 0;
      TOMO_CUDA_CHECK(cudaGetDevice(&device));
      TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
      TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
      ir = &callback_ir(major, minor);
      FdkCallbackParams block{};
      block.cosine = cosine.data();
      block.response = response.data();
      block.sx = static_cast<unsigned>(g.sx);
      block.sy = static_cast<unsigned>(g.sy);
      block.P = static_cast<unsigned>(P);
      block.K = static_cast<unsigned>(K);
      params = cuda::DeviceBuffer<FdkCallbackParams>(std::span<const FdkCallbackParams>(&block, 1));
      params_ptr = params.data();
      (void)plan_for(max_batch);
    } catch (const Error& e) {
      log_info("fdk cuFFT filter: callbacks unavailable (", e.what(), "); weights and crop run as kernels of their own");
      plans.clear();
      passes = FilterPasses::separate;
    }
  }
};

CufftFilter::CufftFilter(const CArmGeometry& g, FilterOptions options, int max_batch, FilterPasses passes)
    : impl_(std::make_unique<Impl>()) {
  if (max_batch < 1) throw Error(str_cat("CufftFilter: max_batch must be >= 1, got ", max_batch));
  if (g.sx < 1 || g.sy < 1 || g.projections < 1)
    throw Error(str_cat("CufftFilter: bad geometry ", g.sx, "x", g.sy, "x", g.projections));
  const FdkFilter cpu(g, options);  // the CPU filter's own response and weights
  Impl& m = *impl_;
  m.g = g;
  m.P = cpu.padded_size();
  m.K = m.P / 2 + 1;
  if (g.sy > 65535) throw Error(str_cat("CufftFilter: ", g.sy, " detector rows exceed the grid limit 65535"));
  // Rows are gridDim.y of the separate kernels; the callbacks index a batch in 32 bits.
  const long long by_index = 4294967295LL / (static_cast<long long>(g.sy) * m.P);
  m.max_batch = static_cast<int>(std::max<long long>(1, std::min<long long>({max_batch, g.projections, 65535 / g.sy, by_index})));

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
  m.passes = passes;
  if (passes == FilterPasses::fused) m.prepare_fused();
}

CufftFilter::~CufftFilter() = default;

int CufftFilter::padded_size() const { return impl_->P; }
int CufftFilter::max_batch() const { return impl_->max_batch; }
FilterPasses CufftFilter::passes() const { return impl_->passes; }

void CufftFilter::apply_device(int n0, int count, const float* raw, float* out, cudaStream_t stream) {
  Impl& m = *impl_;
  const int sx = m.g.sx, sy = m.g.sy;
  if (n0 < 0 || count < 0 || n0 + count > m.g.projections)
    throw Error(str_cat("CufftFilter: projections [", n0, ", ", n0 + count, ") outside 0..", m.g.projections));
  const std::size_t image = static_cast<std::size_t>(sx) * sy;
  const bool fused = m.passes == FilterPasses::fused;
  for (int b0 = 0; b0 < count; b0 += m.max_batch) {
    const int cnt = std::min(m.max_batch, count - b0);
    const int rows = cnt * sy;
    PlanPair& plan = m.plan_for(cnt);
    const float* src = raw + b0 * image;
    float* dst = out + b0 * image;
    const float* colw = m.columns.data() + static_cast<std::size_t>(n0 + b0) * sx;
    TOMO_CUFFT_CHECK(cufftSetStream(plan.forward.get(), stream));
    TOMO_CUFFT_CHECK(cufftSetStream(plan.inverse.get(), stream));
    if (fused) {
      set_batch_kernel<<<1, 1, 0, stream>>>(m.params.data(), src, dst, colw);
      TOMO_CUDA_CHECK_LAST();
      TOMO_CUFFT_CHECK(cufftExecR2C(plan.forward.get(), m.padded.data(), m.spectrum.data()));
      TOMO_CUFFT_CHECK(cufftExecC2R(plan.inverse.get(), m.spectrum.data(), m.padded.data()));
      continue;
    }
    weight_pad_kernel<<<dim3((m.P + kThreads - 1) / kThreads, rows), kThreads, 0, stream>>>(
        src, m.cosine.data(), colw, m.padded.data(), sx, sy, m.P, rows);
    TOMO_CUDA_CHECK_LAST();
    TOMO_CUFFT_CHECK(cufftExecR2C(plan.forward.get(), m.padded.data(), m.spectrum.data()));
    multiply_kernel<<<dim3((m.K + kThreads - 1) / kThreads, rows), kThreads, 0, stream>>>(m.spectrum.data(),
                                                                                       m.response.data(), m.K, rows);
    TOMO_CUDA_CHECK_LAST();
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
