// Bench-only timings of the prior's cuda kernel and of a copy (prior_probes.hpp).
#include <algorithm>
#include <cmath>
#include <vector>

#include "bench/cuda/pet/prior_probes.hpp"
#include "cuda/core/check.hpp"
#include "compute/pet/rdp_math.hpp"
#include "bench/cuda/pet/prior_pairs_v1.hpp"
#include "bench/cuda/pet/prior_pairs_v3.hpp"
#include "bench/cuda/pet/prior_tiled.hpp"
#include "cuda/pet/rdp_kernels.hpp"

namespace tomo::pet::probes {

namespace {

// Median device time (ms) of `launch` over `reps` launches, each between two events.
template <class F>
double median_ms(F&& launch, int reps) {
  cudaEvent_t a, b;
  TOMO_CUDA_CHECK(cudaEventCreate(&a));
  TOMO_CUDA_CHECK(cudaEventCreate(&b));
  launch();  // warm-up
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int r = 0; r < std::max(1, reps); ++r) {
    TOMO_CUDA_CHECK(cudaEventRecord(a));
    launch();
    TOMO_CUDA_CHECK(cudaEventRecord(b));
    TOMO_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    TOMO_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  TOMO_CUDA_CHECK(cudaEventDestroy(a));
  TOMO_CUDA_CHECK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct LeanArgs {
  const float* x;
  const float* kappa;
  float* out;
  int nx, ny, nz;
  float gamma, eps;
  float w[27];  // w[(dk+1)*9 + (dj+1)*3 + di+1], 0 at the centre
};

// The gradient term of compute/pet/rdp_math.hpp, d·(a + 3b + γ|d| + 2ε)/D², one reciprocal.
__global__ void lean_gradient_kernel(LeanArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y,
            k = blockIdx.z;
  if (i >= a.nx || j >= a.ny) return;
  const std::size_t sy = a.nx, sz = std::size_t(a.nx) * a.ny, v = k * sz + j * sy + i;
  const float ka = __ldg(a.kappa + v);
  if (ka == 0.0f) {
    a.out[v] = 0.0f;
    return;
  }
  const float xa = __ldg(a.x + v);
  float sum = 0.0f;
#pragma unroll
  for (int dk = -1; dk <= 1; ++dk)
#pragma unroll
    for (int dj = -1; dj <= 1; ++dj)
#pragma unroll
      for (int di = -1; di <= 1; ++di) {
        if (!di && !dj && !dk) continue;
        const int ii = i + di, jj = j + dj, kk = k + dk;
        if (ii < 0 || jj < 0 || kk < 0 || ii >= a.nx || jj >= a.ny || kk >= a.nz) continue;
        const std::size_t b = v + std::ptrdiff_t(dk) * std::ptrdiff_t(sz) + std::ptrdiff_t(dj) * std::ptrdiff_t(sy) + di;
        const float kb = __ldg(a.kappa + b);
        const float xb = __ldg(a.x + b);
        const float d = xa - xb, ad = fabsf(d), D = xa + xb + a.gamma * ad + a.eps;
        const float r = __frcp_rn(D);
        const float t = D > 0.0f ? d * (xa + 3.0f * xb + a.gamma * ad + 2.0f * a.eps) * r * r : 0.0f;
        sum += a.w[(dk + 1) * 9 + (dj + 1) * 3 + di + 1] * kb * t;
      }
  a.out[v] = ka * sum;
}


// Largest |a − b| over the largest |b|.
double max_rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0, scale = 0;
  for (std::size_t v = 0; v < b.size(); ++v)
    worst = std::max(worst, std::fabs(double(a[v]) - b[v])), scale = std::max(scale, std::fabs(double(b[v])));
  return scale > 0 ? worst / scale : worst;
}

std::vector<float> download(const float* d, std::size_t n) {
  std::vector<float> h(n);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  TOMO_CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

// The product's combined pass against its separate passes (time and largest difference).
void time_derivatives(const cuda_impl::RdpArgs& a, int reps, PriorPassTimes& t) {
  using cuda_impl::RdpTerm;
  const std::size_t n = std::size_t(a.nx) * a.ny * a.nz;
  t.derivatives_ms = median_ms([&] { cuda_impl::launch_rdp(a, RdpTerm::derivatives, nullptr); }, reps);
  const std::vector<float> dg = download(a.out, n), dh = download(a.out2, n);
  cuda_impl::launch_rdp(a, RdpTerm::gradient, nullptr);
  const std::vector<float> pg = download(a.out, n);
  cuda_impl::launch_rdp(a, RdpTerm::hessian, nullptr);
  const std::vector<float> ph = download(a.out, n);
  t.derivatives_gradient_max_rel = max_rel_diff(dg, pg);
  t.derivatives_hessian_max_rel = max_rel_diff(dh, ph);
}

}  // namespace

PriorPassTimes time_cuda_prior(std::array<int, 3> dims, int reps) {
  const std::size_t n = std::size_t(dims[0]) * dims[1] * dims[2];
  std::vector<float> x(n), kappa(n);
  for (int k = 0; k < dims[2]; ++k)
    for (int j = 0; j < dims[1]; ++j)
      for (int i = 0; i < dims[0]; ++i) {
        const std::size_t v = (std::size_t(k) * dims[1] + j) * dims[0] + i;
        const double u = (i + 0.5) / dims[0] - 0.5, w = (j + 0.5) / dims[1] - 0.5;
        kappa[v] = u * u + w * w < 0.25 ? 1.0f : 0.0f;
        x[v] = 0.5f + float((v * 2654435761u) % 1000u) / 1000.0f;
      }
  float *dx = nullptr, *dk = nullptr, *dout = nullptr, *dout2 = nullptr;
  TOMO_CUDA_CHECK(cudaMalloc(&dout2, n * sizeof(float)));
  TOMO_CUDA_CHECK(cudaMalloc(&dx, n * sizeof(float)));
  TOMO_CUDA_CHECK(cudaMalloc(&dk, n * sizeof(float)));
  TOMO_CUDA_CHECK(cudaMalloc(&dout, n * sizeof(float)));
  TOMO_CUDA_CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  TOMO_CUDA_CHECK(cudaMemcpy(dk, kappa.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cuda_impl::RdpArgs a;
  a.x = dx;
  a.kappa = dk;
  a.out = dout;
  a.out2 = dout2;
  a.nx = dims[0], a.ny = dims[1], a.nz = dims[2];
  a.gamma = 2.0f, a.eps = 1e-9f;
  PriorPassTimes t;
  t.value_ms = median_ms([&] { cuda_impl::launch_rdp(a, cuda_impl::RdpTerm::value, nullptr); }, reps);
  t.gradient_ms = median_ms([&] { cuda_impl::launch_rdp(a, cuda_impl::RdpTerm::gradient, nullptr); }, reps);
  t.hessian_ms = median_ms([&] { cuda_impl::launch_rdp(a, cuda_impl::RdpTerm::hessian, nullptr); }, reps);
  time_derivatives(a, reps, t);
  float* tiled = nullptr;
  TOMO_CUDA_CHECK(cudaMalloc(&tiled, n * sizeof(float)));
  {
    cuda_impl::RdpArgs b = a;
    b.out = tiled;
    t.tiled_value_ms = median_ms([&] { launch_tiled_rdp(b, cuda_impl::RdpTerm::value, nullptr); }, reps);
    t.tiled_gradient_ms = median_ms([&] { launch_tiled_rdp(b, cuda_impl::RdpTerm::gradient, nullptr); }, reps);
    t.tiled_hessian_ms = median_ms([&] { launch_tiled_rdp(b, cuda_impl::RdpTerm::hessian, nullptr); }, reps);
    launch_tiled_rdp(b, cuda_impl::RdpTerm::gradient, nullptr);  // the timings left the Hessian there
    cuda_impl::launch_rdp(a, cuda_impl::RdpTerm::gradient, nullptr);
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> ref(n), got(n);
    TOMO_CUDA_CHECK(cudaMemcpy(ref.data(), tiled, n * sizeof(float), cudaMemcpyDeviceToHost));
    TOMO_CUDA_CHECK(cudaMemcpy(got.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    for (std::size_t v = 0; v < n; ++v) num += double(got[v] - ref[v]) * (got[v] - ref[v]), den += double(ref[v]) * ref[v];
    t.tiled_rel_l2 = den > 0 ? std::sqrt(num / den) : 0.0;
    t.v1_gradient_ms = median_ms([&] { launch_pairs_v1_rdp(a, cuda_impl::RdpTerm::gradient, nullptr); }, reps);
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());
    TOMO_CUDA_CHECK(cudaMemcpy(got.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    num = 0;
    for (std::size_t v = 0; v < n; ++v) num += double(got[v] - ref[v]) * (got[v] - ref[v]);
    t.v1_rel_l2 = den > 0 ? std::sqrt(num / den) : 0.0;
    std::vector<float> prod(n);
    cuda_impl::launch_rdp(a, cuda_impl::RdpTerm::gradient, nullptr);
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());
    TOMO_CUDA_CHECK(cudaMemcpy(prod.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    double pmax = 0;
    for (float p : prod) pmax = std::max(pmax, double(std::fabs(p)));
    const auto names = pairs_v3_names();
    for (int c = 0; c < int(names.size()); ++c) {
      PriorPassTimes::Candidate row{names[c]};
      row.gradient_ms = median_ms([&] { launch_pairs_v3_rdp(c, a, nullptr); }, reps);
      TOMO_CUDA_CHECK(cudaDeviceSynchronize());
      TOMO_CUDA_CHECK(cudaMemcpy(got.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
      num = 0;
      double worst = 0;
      for (std::size_t v = 0; v < n; ++v) {
        num += double(got[v] - ref[v]) * (got[v] - ref[v]);
        worst = std::max(worst, std::fabs(double(got[v]) - prod[v]));
      }
      row.rel_l2 = den > 0 ? std::sqrt(num / den) : 0.0;
      row.max_rel = pmax > 0 ? worst / pmax : worst;
      t.v3.push_back(row);
    }
    // κ in [0.5, 1.5) everywhere: no warp finds its κ all 0 or all 1.
    std::vector<float> smooth(n);
    for (std::size_t v = 0; v < n; ++v) smooth[v] = 0.5f + float((v * 40503u) % 997u) / 997.0f;
    TOMO_CUDA_CHECK(cudaMemcpy(dk, smooth.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    t.smooth_gradient_ms = median_ms([&] { cuda_impl::launch_rdp(a, cuda_impl::RdpTerm::gradient, nullptr); }, reps);
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());
    TOMO_CUDA_CHECK(cudaMemcpy(prod.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    pmax = 0;
    for (float p : prod) pmax = std::max(pmax, double(std::fabs(p)));
    for (int c = 0; c < int(names.size()); ++c) {
      PriorPassTimes::Candidate& row = t.v3[c];
      row.smooth_ms = median_ms([&] { launch_pairs_v3_rdp(c, a, nullptr); }, reps);
      TOMO_CUDA_CHECK(cudaDeviceSynchronize());
      TOMO_CUDA_CHECK(cudaMemcpy(got.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
      double worst = 0;
      for (std::size_t v = 0; v < n; ++v) worst = std::max(worst, std::fabs(double(got[v]) - prod[v]));
      row.smooth_max_rel = pmax > 0 ? worst / pmax : worst;
    }
    // κ = 1 everywhere (every pair without κ multiplies), then 0 (the passes' loads and stores).
    for (float fill : {1.0f, 0.0f}) {
      std::fill(smooth.begin(), smooth.end(), fill);
      TOMO_CUDA_CHECK(cudaMemcpy(dk, smooth.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      for (int c = 0; c < int(names.size()); ++c)
        (fill == 1.0f ? t.v3[c].ones_ms : t.v3[c].zeros_ms) = median_ms([&] { launch_pairs_v3_rdp(c, a, nullptr); }, reps);
    }
    TOMO_CUDA_CHECK(cudaMemcpy(dk, kappa.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  }
  {
    LeanArgs l{dx, dk, nullptr, dims[0], dims[1], dims[2], 2.0f, 1e-9f, {}};
    for (int q = 0; q < 27; ++q) {
      const int di = q % 3 - 1, dj = (q / 3) % 3 - 1, dkk = q / 9 - 1;
      l.w[q] = (di || dj || dkk) ? rdp_weight<float>(di, dj, dkk, 1.0f, 1.0f, 1.0f) : 0.0f;
    }
    float* lean = nullptr;
    TOMO_CUDA_CHECK(cudaMalloc(&lean, n * sizeof(float)));
    l.out = lean;
    const dim3 block(32, 8), grid((dims[0] + 31) / 32, (dims[1] + 7) / 8, dims[2]);
    t.lean_gradient_ms = median_ms([&] { lean_gradient_kernel<<<grid, block>>>(l); TOMO_CUDA_CHECK(cudaGetLastError()); }, reps);
    launch_tiled_rdp(a, cuda_impl::RdpTerm::gradient, nullptr);
    std::vector<float> ref(n), got(n);
    TOMO_CUDA_CHECK(cudaMemcpy(ref.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    TOMO_CUDA_CHECK(cudaMemcpy(got.data(), lean, n * sizeof(float), cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    for (std::size_t v = 0; v < n; ++v) num += double(got[v] - ref[v]) * (got[v] - ref[v]), den += double(ref[v]) * ref[v];
    t.lean_rel_l2 = den > 0 ? std::sqrt(num / den) : 0.0;
    TOMO_CUDA_CHECK(cudaFree(lean));
  }
  t.copy_ms = median_ms([&] { TOMO_CUDA_CHECK(cudaMemcpyAsync(dout, dx, n * sizeof(float), cudaMemcpyDeviceToDevice)); }, reps);
  t.copy_gbps = 2.0 * double(n) * sizeof(float) / (t.copy_ms * 1e-3) / 1e9;
  TOMO_CUDA_CHECK(cudaFree(dx));
  TOMO_CUDA_CHECK(cudaFree(dk));
  TOMO_CUDA_CHECK(cudaFree(dout));
  TOMO_CUDA_CHECK(cudaFree(dout2));
  TOMO_CUDA_CHECK(cudaFree(tiled));
  return t;
}

}  // namespace tomo::pet::probes
