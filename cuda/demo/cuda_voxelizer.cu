// `cuda` backend of the demo problem: one thread per voxel of a z-slab, s³ sub-samples,
// the volume resident on the device until the end.
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "compute/core/registry.hpp"
#include "compute/demo/voxelizer.hpp"

namespace tomo::demo {
namespace {

struct GridArgs {
  int nx, ny, nz;
  float ox, oy, oz, vx, vy, vz;
};

__device__ float shape_value_at(const float* s, float px, float py, float pz) {
  float dx = px - s[0], dy = py - s[1], dz = pz - s[2];
  float lx = (s[8] * dx + s[9] * dy + s[10] * dz) / s[4];
  float ly = (s[12] * dx + s[13] * dy + s[14] * dz) / s[5];
  float lz = (s[16] * dx + s[17] * dy + s[18] * dz) / s[6];
  bool inside = s[3] < 0.5f ? (lx * lx + ly * ly + lz * lz <= 1.f) : (lx * lx + ly * ly <= 1.f && fabsf(lz) <= 1.f);
  return inside ? s[7] : 0.f;
}

__global__ void voxelize_slab(const float* __restrict__ shapes, int shape_count, GridArgs g, int z0, int slab, int ss,
                              float* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = z0 + blockIdx.z * blockDim.z + threadIdx.z;
  if (i >= g.nx || j >= g.ny || k >= g.nz || k >= z0 + slab) return;
  float sum = 0.f;
  for (int c = 0; c < ss; ++c)
    for (int b = 0; b < ss; ++b)
      for (int a = 0; a < ss; ++a) {
        float px = g.ox + (i + (a + 0.5f) / ss - 0.5f) * g.vx;
        float py = g.oy + (j + (b + 0.5f) / ss - 0.5f) * g.vy;
        float pz = g.oz + (k + (c + 0.5f) / ss - 0.5f) * g.vz;
        float v = 0.f;
        for (int n = 0; n < shape_count; ++n) v += shape_value_at(shapes + n * kFloatsPerShape, px, py, pz);
        sum += v;
      }
  out[i + static_cast<size_t>(g.nx) * (j + static_cast<size_t>(g.ny) * k)] = sum / float(ss * ss * ss);
}

class CudaVoxelizer final : public Voxelizer {
 public:
  std::string describe() const override {
    auto devices = cuda::list_devices();
    return devices.empty() ? "CUDA" : cuda::describe(devices.front());
  }
  void synchronize() override { TOMO_CUDA_CHECK(cudaDeviceSynchronize()); }
  VolumeF voxelize(const Phantom& phantom, const Grid3& grid, int s, int slab,
                   const std::function<void(int)>& on_slab) override {
    auto packed = pack_shapes(phantom);
    cuda::DeviceBuffer<float> shapes(packed.size());
    shapes.upload(packed.data(), packed.size());
    cuda::DeviceBuffer<float> volume(grid.count());
    GridArgs g{grid.dims[0], grid.dims[1], grid.dims[2],
               float(grid.origin_mm[0]), float(grid.origin_mm[1]), float(grid.origin_mm[2]),
               float(grid.voxel_mm[0]), float(grid.voxel_mm[1]), float(grid.voxel_mm[2])};
    dim3 block(8, 8, 4);
    for (int z0 = 0; z0 < grid.dims[2]; z0 += slab) {
      int n = std::min(slab, grid.dims[2] - z0);
      dim3 blocks((g.nx + 7) / 8, (g.ny + 7) / 8, (n + 3) / 4);
      voxelize_slab<<<blocks, block>>>(shapes.data(), static_cast<int>(phantom.shapes.size()), g, z0, n, s,
                                       volume.data());
      TOMO_CUDA_CHECK_LAST();
      TOMO_CUDA_CHECK(cudaDeviceSynchronize());
      on_slab(z0 + n);
    }
    VolumeF out(grid);
    volume.download(out.data.data());
    return out;
  }
};

const BackendRegistrar<Voxelizer> kRegisterCuda({"cuda", kPriorityCuda, cuda::cuda_availability,
                                            [] { return std::make_unique<CudaVoxelizer>(); }});

}  // namespace
}  // namespace tomo::demo
