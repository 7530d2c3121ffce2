// Texture-fetch ceiling for bench_fdk (see cuda_bench.hpp).
#include "cuda/fdk/cuda_bench.hpp"

#include <vector>

#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/texture.hpp"
#include "cuda/fdk/kernels.hpp"

namespace tomo::fdk {

FetchCeiling measure_fetch_ceiling(int sx, int sy, int layers, int n) {
  using namespace tomo::cuda;
  CudaArray array = CudaArray::of<float>(
      ArrayExtent{static_cast<std::size_t>(sx), static_cast<std::size_t>(sy), static_cast<std::size_t>(layers)},
      cudaArrayLayered);
  std::vector<float> host(static_cast<std::size_t>(sx) * sy * layers);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>((i * 2654435761u) % 1000) * 1e-3f;
  array.copy_from_host(host.data());
  TextureObject tex(array, TextureOptions::linear_clamp().with_address(cudaAddressModeBorder));
  DeviceBuffer<float> scratch(static_cast<std::size_t>(n) * n * n);
  FetchCeiling c;
  c.layers = layers;
  c.sx = sx;
  c.sy = sy;
  c.n = n;
  c.gfetches_per_s = cuda_detail::fetch_ceiling_gfetches(tex, sx, sy, layers, n, n, n, scratch.data(), 3);
  return c;
}

}  // namespace tomo::fdk
