// The demo::Voxelizer contract every backend passes (included by voxelizer_contract_test.cpp
// for cpu/gl-compute and voxelizer_contract_gpu_test.cpp for cuda): the supersampled
// voxelisation equals the cpu's within 1e-5 relative L2 (the demo cross-check's tolerance:
// float vs double sums of s³ 0/1 samples), slab by slab with a partial last slab.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "compute/core/metrics.hpp"
#include "compute/demo/voxelizer.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::demo::test {

// A rotated cylinder with a cold ellipsoid inside: oblique surfaces cut many voxels.
inline Phantom contract_phantom() {
  Phantom p;
  Shape body;
  body.kind = Shape::Kind::Cylinder;
  body.semi_axes = {9, 6, 8};
  body.axes = rotation_zyx_deg(20, 35, -10);
  body.value = 1.0;
  p.shapes.push_back(body);
  Shape cold;
  cold.centre = {2, -1, 1.5};
  cold.semi_axes = {3, 4, 2.5};
  cold.axes = rotation_zyx_deg(-40, 10, 60);
  cold.value = -0.5;
  p.shapes.push_back(cold);
  return p;
}

inline double rel_l2(const VolumeF& a, const VolumeF& ref) { return tomo::relative_l2(a.data, ref.data); }

// The one place a backend is made and run for the contract; records the slab callbacks.
inline VolumeF contract_voxelize(const std::string& backend, const Grid3& grid, std::vector<int>& slabs_done) {
  auto op = BackendRegistry<Voxelizer>::instance().create(backend);
  return op->voxelize(contract_phantom(), grid, 3, 5, [&](int z_done) { slabs_done.push_back(z_done); });
}

class DemoVoxelizerContract : public tomo::test::BackendContract<Voxelizer> {};

TEST_P(DemoVoxelizerContract, MatchesCpuSlabBySlab) {
  const Grid3 grid = Grid3::centred({24, 20, 18}, {1.0, 1.1, 1.2});  // 18 slices: slabs of 5, 5, 5, 3
  std::vector<int> ref_slabs, slabs;
  const VolumeF ref = contract_voxelize("cpu", grid, ref_slabs);
  const VolumeF v = contract_voxelize(backend(), grid, slabs);
  ASSERT_EQ(v.size(), ref.size());
  const double err = rel_l2(v, ref);
  std::printf("%s voxelisation vs cpu: relative L2 %.3e\n", backend().c_str(), err);
  EXPECT_LE(err, 1e-5);
  EXPECT_EQ(slabs, (std::vector<int>{5, 10, 15, 18}));
  double mass = 0;
  for (float x : ref.data) mass += x;
  EXPECT_GT(mass, 100.0);  // not trivially empty
}

}  // namespace tomo::demo::test
