// The relative difference prior's stencil kernel ([Nuyts2002]): the 26 neighbour weights are
// computed once per launch on the host side of the kernel (constant across threads).
#include "compute/pet/rdp_math.hpp"
#include "cuda/core/check.hpp"
#include "cuda/pet/rdp_kernels.hpp"

namespace tomo::pet::cuda_impl {

namespace {

template <int Term>
__global__ void rdp_kernel(RdpArgs a) {
  const std::size_t n = std::size_t(a.nx) * a.ny * a.nz;
  for (std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; v < n;
       v += std::size_t(gridDim.x) * blockDim.x) {
    const float ka = a.kappa ? a.kappa[v] : 1.0f;
    if (ka == 0.0f) {
      a.out[v] = 0.0f;
      continue;
    }
    const int i = int(v % a.nx), j = int((v / a.nx) % a.ny), k = int(v / (std::size_t(a.nx) * a.ny));
    const float xa = a.x[v];
    float sum = 0.0f;
    for (int dk = -1; dk <= 1; ++dk)
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di) {
          if (!di && !dj && !dk) continue;
          const int ii = i + di, jj = j + dj, kk = k + dk;
          if (ii < 0 || jj < 0 || kk < 0 || ii >= a.nx || jj >= a.ny || kk >= a.nz) continue;
          const std::size_t b = (std::size_t(kk) * a.ny + jj) * a.nx + ii;
          const float kb = a.kappa ? a.kappa[b] : 1.0f;
          if (kb == 0.0f) continue;
          const float w = rdp_weight<float>(di, dj, dk, a.vx, a.vy, a.vz) * kb;
          const float xb = __ldg(a.x + b);
          if constexpr (Term == 0) sum += w * rdp_value(xa, xb, a.gamma, a.eps);
          else if constexpr (Term == 1) sum += w * rdp_derivative(xa, xb, a.gamma, a.eps);
          else sum += w * rdp_second_derivative(xa, xb, a.gamma, a.eps);
        }
    a.out[v] = ka * sum;
  }
}

}  // namespace

void launch_rdp(const RdpArgs& a, RdpTerm term, cudaStream_t stream) {
  const std::size_t n = std::size_t(a.nx) * a.ny * a.nz;
  if (n == 0) return;
  const int threads = 256;
  const int blocks = int(std::min<std::size_t>((n + threads - 1) / threads, 65535u * 8u));
  switch (term) {
    case RdpTerm::value: rdp_kernel<0><<<blocks, threads, 0, stream>>>(a); break;
    case RdpTerm::gradient: rdp_kernel<1><<<blocks, threads, 0, stream>>>(a); break;
    case RdpTerm::hessian: rdp_kernel<2><<<blocks, threads, 0, stream>>>(a); break;
  }
  TOMO_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tomo::pet::cuda_impl
