// Host launchers of the small CUDA kernels the interop GPU test (a .cpp, built by the host
// compiler with GL headers) runs on mapped GL resources; defined in interop_kernels_gpu_test.cu.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

namespace tomo::cuda::test {

// v[i] = a * v[i] + b for i < n.
void launch_affine(float* v, std::size_t n, float a, float b, cudaStream_t stream);

// The test pattern: value(x, y, z) = z * 100000 + y * w + x (exact in float for our sizes).
inline float pattern_value(int x, int y, int z, int w) { return float(z * 100000 + y * w + x); }
// Writes the pattern into a float surface: a 2D array (d == 0; z = z0 is the layer being written)
// or a 3D array of depth d (z0 ignored).
void launch_write_pattern(cudaSurfaceObject_t surf, int w, int h, int d, int z0, cudaStream_t stream);
// out[(z * h + y) * w + x] = the texel (x, y, z) by point sampling at its centre: a 2D array when
// d == 0 (z = 0), else a 3D array of depth d.
void launch_read_texture(cudaTextureObject_t tex, float* out, int w, int h, int d, cudaStream_t stream);

}  // namespace tomo::cuda::test
