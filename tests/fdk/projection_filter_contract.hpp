// The fdk::ProjectionFilter contract every backend passes (included by
// projection_filter_contract_test.cpp for cpu and projection_filter_contract_gpu_test.cpp for
// cuda): chunked, in-place filtering equals FdkFilter per projection (cpu bit-identical, cuda
// within 1e-5 relative L2: float vs double), and projections outside the scan are refused.
#pragma once
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/projection_filter.hpp"
#include "compute/fdk/simulate.hpp"
#include "tests/support/backend_contract.hpp"

namespace tomo::fdk::test {

// RabbitCT distances and arc, 20 views of 64×48 at 4.8 mm.
inline CArmGeometry filter_geometry() {
  CArmGeometry g;
  g.projections = 20;
  g.sx = 64;
  g.sy = 48;
  g.pixel_mm = 4.8;
  return g;
}

class FdkProjectionFilterContract : public tomo::test::BackendContract<ProjectionFilter> {};

TEST_P(FdkProjectionFilterContract, ChunksInPlaceMatchFdkFilter) {
  const CArmGeometry g = filter_geometry();
  const std::vector<float> raw = simulate_projections(shepp_logan_3d(), g);
  const std::size_t image = static_cast<std::size_t>(g.sx) * g.sy;
  const FdkFilter ref_filter(g, {});
  std::vector<float> ref(raw.size());
  for (int n = 0; n < g.projections; ++n) ref_filter.apply(n, raw.data() + n * image, ref.data() + n * image);

  auto op = BackendRegistry<ProjectionFilter>::instance().create(backend());
  op->setup(g, {});
  std::vector<float> inplace = raw;
  op->apply(3, 11, inplace.data() + 3 * image, inplace.data() + 3 * image);  // projections 3..13
  op->apply(0, 3, inplace.data(), inplace.data());
  op->apply(14, 6, inplace.data() + 14 * image, inplace.data() + 14 * image);
  if (is_cpu()) {
    // The cpu entry IS FdkFilter: bit-identical.
    for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(inplace[i], ref[i]) << i;
  } else {
    const double err = relative_l2(inplace, ref);
    std::printf("%s filter vs FdkFilter: relative L2 %.3e\n", backend().c_str(), err);
    EXPECT_LT(err, 1e-5);
  }
  EXPECT_THROW(op->apply(15, 6, inplace.data(), inplace.data()), Error);
}

}  // namespace tomo::fdk::test
