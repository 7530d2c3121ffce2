// bench_pet's line projector rows: Joseph's LOR-driven projector (compute/pet/line_projector.hpp)
// on glpet_default.toml's lines (two 32×32 modules of 2 mm at z = ∓80 mm, 1.05 M LORs, 128³
// voxels of 0.5 mm), cuda on device arrays against the cpu reference, and the cuda kernels alone
// (joseph_kernels.hpp).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/pet/line_projector.hpp"

#if defined(TOMO_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace tomo::bench::pet_joseph {

nlohmann::json run(int reps, const std::vector<std::string>& backends);

// glpet_default.toml's LORs in glpet's order (module-0 row j0, module-1 row j1, then columns i0,
// i1 fastest), each between the two detector centres, its grid, and a test image on it (a
// cylinder along y of radius 25 mm at 1 with a sphere at 4).
std::vector<double> default_lines();
pet::LineGrid default_grid();
std::vector<double> test_image(const pet::LineGrid& g);

#if defined(TOMO_HAVE_CUDA)
// Milliseconds of each of `reps` calls of f after one warm-up, between CUDA events on the
// default stream with the device synchronised before each.
template <class F>
inline std::vector<double> time_device(int reps, F&& f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();
  std::vector<double> out;
  for (int r = 0; r < reps; ++r) {
    cudaDeviceSynchronize();
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    out.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return out;
}
#endif

}  // namespace tomo::bench::pet_joseph
