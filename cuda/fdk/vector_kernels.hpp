// Element-wise steps and reductions of the iterative algorithms on device vectors
// (vector_kernels.cu), queued on a stream: what iterative_steps.hpp asks of a vector space,
// plus the TV proximal step's passes.
#pragma once
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>

namespace tomo::fdk::cuda_detail {

void fill(float* v, std::size_t n, float value, cudaStream_t s);
// *out += Σ a·b (double accumulation); `out` is a device double.
void dot(const float* a, const float* b, std::size_t n, double* out, cudaStream_t s);
// v ← 1/v where v > 1e-6·max(v), else 0; `scratch` holds at least scratch_bytes(n) bytes.
std::size_t invert_scratch_bytes(std::size_t n);
void invert_sums(float* v, std::size_t n, void* scratch, cudaStream_t s);
// proj[k·image + p] ← R·(b[views[k]·image + p] − proj[..]); *r2 += Σ (b − proj)².
void weighted_residual(const float* b, const int* views, int count, std::size_t image, float* proj, const float* R,
                       double* r2, cudaStream_t s);
void add_product(float* x, const float* C, const float* d, std::size_t n, bool nonnegative, cudaStream_t s);
void axpy(float a, const float* x, float* y, std::size_t n, cudaStream_t s);
void xpby(const float* x, float b, float* y, std::size_t n, cudaStream_t s);
void extrapolate(const float* x, const float* x_prev, float m, float* y, std::size_t n, cudaStream_t s);

// The passes of the TV prox (compute/fdk tv_prox, same formulas in float): dual p, 3 per voxel.
// x = P(z − mu·∇ᵀp);  p_next = P_ball(r + ∇x/(12·mu));  r = p_next + m·(p_next − p).
void tv_primal(std::array<int, 3> dims, const float* z, float mu, bool nonnegative, const float* p, float* x,
               cudaStream_t s);
void tv_ascend(std::array<int, 3> dims, const float* x, float mu, const float* r, float* p_next, cudaStream_t s);
void tv_momentum(const float* p_next, const float* p, float m, float* r, std::size_t n3, cudaStream_t s);
void clamp_copy(const float* z, bool nonnegative, float* x, std::size_t n, cudaStream_t s);

}  // namespace tomo::fdk::cuda_detail
