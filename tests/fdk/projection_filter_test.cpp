// The ProjectionFilter registry (the filters themselves: projection_filter_contract.hpp):
// `auto` follows the back-projection backend only where a filter of that name exists, bad names
// are an InputError, and the chunked pipeline equals the per-projection one.
#include <gtest/gtest.h>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/projection_filter.hpp"
#include "compute/fdk/simulate.hpp"

using namespace tomo;
using namespace tomo::fdk;

namespace {
CArmGeometry small_geometry() {
  CArmGeometry g;  // RabbitCT distances and arc, 20 views of 64×48 at 4.8 mm
  g.projections = 20;
  g.sx = 64;
  g.sy = 48;
  g.pixel_mm = 4.8;
  return g;
}
}  // namespace

TEST(FdkProjectionFilter, ChunkedPipelineEqualsPerProjectionPipeline) {
  const CArmGeometry g = small_geometry();
  const ProjectionStack ref = simulate_preprocessed(shepp_logan_3d(), g, FilterOptions{});
  auto op = BackendRegistry<ProjectionFilter>::instance().create("cpu");
  op->setup(g, {});
  PreprocessTiming t;
  int seen = 0;
  const ProjectionStack p = simulate_preprocessed(shepp_logan_3d(), g, *op, &t, [&](int) { ++seen; }, 7);
  EXPECT_EQ(seen, g.projections);
  EXPECT_EQ(p.pixels, ref.pixels);
  ASSERT_EQ(p.count(), ref.count());
  for (int n = 0; n < p.count(); ++n) EXPECT_EQ(p.matrices[n].a, ref.matrices[n].a);
  EXPECT_GT(t.filter_ms, 0.0);
  EXPECT_GT(t.simulate_ms, 0.0);
}

TEST(FdkProjectionFilter, AutoFollowsTheBackprojectorWhereAFilterExists) {
  EXPECT_EQ(resolve_filter_backend("auto", "cpu"), "cpu");
  EXPECT_EQ(resolve_filter_backend("auto", "gl"), "cpu");
  EXPECT_EQ(resolve_filter_backend("auto", "gl-compute"), "cpu");
  EXPECT_EQ(resolve_filter_backend("cpu", "cuda"), "cpu");
  auto& reg = BackendRegistry<ProjectionFilter>::instance();
  const bool cuda_ok = reg.available("cuda").ok;
  EXPECT_EQ(resolve_filter_backend("auto", "cuda"), cuda_ok ? "cuda" : "cpu");
  EXPECT_THROW(resolve_filter_backend("fftw", "cpu"), InputError);
}
