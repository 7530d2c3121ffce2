// A regular 3D grid (2D images are nz = 1) and a volume of samples on it.
// Index order is x fastest: i + nx*(j + ny*k); origin is the centre of voxel (0,0,0) in mm.
#pragma once
#include <array>
#include <cstddef>
#include <vector>

namespace tomo {

struct Grid3 {
  std::array<int, 3> dims{1, 1, 1};
  std::array<double, 3> voxel_mm{1.0, 1.0, 1.0};
  std::array<double, 3> origin_mm{0.0, 0.0, 0.0};

  std::size_t count() const {
    return static_cast<std::size_t>(dims[0]) * dims[1] * dims[2];
  }
  std::size_t index(int i, int j, int k) const {
    return static_cast<std::size_t>(i) + static_cast<std::size_t>(dims[0]) *
                                             (static_cast<std::size_t>(j) + static_cast<std::size_t>(dims[1]) * k);
  }
  // World position (mm) of a voxel centre.
  std::array<double, 3> centre(int i, int j, int k) const {
    return {origin_mm[0] + i * voxel_mm[0], origin_mm[1] + j * voxel_mm[1], origin_mm[2] + k * voxel_mm[2]};
  }
  // A grid of n[0]×n[1]×n[2] voxels centred on the world origin.
  static Grid3 centred(std::array<int, 3> n, std::array<double, 3> voxel) {
    Grid3 g{n, voxel, {}};
    for (int a = 0; a < 3; ++a) g.origin_mm[a] = -0.5 * (n[a] - 1) * voxel[a];
    return g;
  }
  bool operator==(const Grid3&) const = default;
};

template <class T>
struct Volume {
  Grid3 grid;
  std::vector<T> data;

  Volume() = default;
  explicit Volume(const Grid3& g, T fill = T{}) : grid(g), data(g.count(), fill) {}

  T& at(int i, int j, int k) { return data[grid.index(i, j, k)]; }
  const T& at(int i, int j, int k) const { return data[grid.index(i, j, k)]; }
  std::size_t size() const { return data.size(); }
};

using VolumeF = Volume<float>;
using VolumeD = Volume<double>;

}  // namespace tomo
