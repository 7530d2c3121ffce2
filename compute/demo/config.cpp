// [demo] of a scene (config.hpp).
#include "compute/demo/config.hpp"

#include <array>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"

namespace tomo::demo {

DemoConfig DemoConfig::from_scene(const Scene& scene) {
  DemoConfig d;
  auto n = scene.get<std::array<int, 3>>("demo.size", {64, 64, 64});
  for (int a = 0; a < 3; ++a)
    if (n[a] < 1 || n[a] > 2048) throw InputError(scene.where("demo.size") + " entries must be in [1, 2048]");
  auto vox = scene.get<std::array<double, 3>>("demo.voxel_mm", {1.0, 1.0, 1.0});
  for (int a = 0; a < 3; ++a)
    if (!(vox[a] > 0)) throw InputError(scene.where("demo.voxel_mm") + " entries must be > 0");
  d.grid = Grid3::centred(n, vox);
  d.supersampling = scene.get_int_in_range("demo.supersampling", 3, 1, 16);
  d.slab = scene.get_int_in_range("demo.slab", 8, 1, 4096);
  d.phantom = Phantom::from_scene(scene, "demo.phantom");
  if (d.phantom.shapes.empty()) throw InputError(scene.where("demo.phantom") + " needs at least one shape");
  return d;
}

}  // namespace tomo::demo
