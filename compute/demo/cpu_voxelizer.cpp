// `cpu` backend of the demo problem: the phantom's own voxelisation, slab by slab.
#include "compute/core/registry.hpp"
#include "compute/demo/voxelizer.hpp"

namespace tomo::demo {
namespace {

class CpuVoxelizer final : public Voxelizer {
 public:
  std::string describe() const override { return "CPU (OpenMP, double accumulation)"; }
  void synchronize() override {}
  VolumeF voxelize(const Phantom& phantom, const Grid3& grid, int s, int slab,
                   const std::function<void(int)>& on_slab) override {
    VolumeF out(grid);
    const std::size_t plane = static_cast<std::size_t>(grid.dims[0]) * grid.dims[1];
    for (int z0 = 0; z0 < grid.dims[2]; z0 += slab) {
      Grid3 sub = grid;
      sub.dims[2] = std::min(slab, grid.dims[2] - z0);
      sub.origin_mm[2] = grid.origin_mm[2] + z0 * grid.voxel_mm[2];
      VolumeF part = phantom.voxelize(sub, s);
      std::copy(part.data.begin(), part.data.end(), out.data.begin() + static_cast<std::ptrdiff_t>(z0 * plane));
      on_slab(z0 + sub.dims[2]);
    }
    return out;
  }
};

const BackendRegistrar<Voxelizer> kRegisterCpu({"cpu", kPriorityCpu, nullptr, [] { return std::make_unique<CpuVoxelizer>(); }});

}  // namespace

std::vector<float> pack_shapes(const Phantom& phantom) {
  std::vector<float> out;
  for (const Shape& sh : phantom.shapes) {
    float kind = sh.kind == Shape::Kind::Ellipsoid ? 0.f : 1.f;
    const float v[kFloatsPerShape] = {
        float(sh.centre[0]), float(sh.centre[1]), float(sh.centre[2]), kind,
        float(sh.semi_axes[0]), float(sh.semi_axes[1]), float(sh.semi_axes[2]), float(sh.value),
        float(sh.axes[0][0]), float(sh.axes[0][1]), float(sh.axes[0][2]), 0.f,
        float(sh.axes[1][0]), float(sh.axes[1][1]), float(sh.axes[1][2]), 0.f,
        float(sh.axes[2][0]), float(sh.axes[2][1]), float(sh.axes[2][2]), 0.f};
    out.insert(out.end(), v, v + kFloatsPerShape);
  }
  return out;
}

}  // namespace tomo::demo
