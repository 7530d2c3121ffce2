// The FDK pipeline with the `cuda` ProjectionFilter (cuFFT, float) vs the `cpu` one (FFTW, double;
// label gpu): pre-processed projections within 1e-5 relative L2, and the volumes back-projected
// from them (cpu reference back-projector, and cuda exact) within 1e-5 of each other / 1e-4 of the
// all-cpu pipeline. Data: the analytic Shepp–Logan stack of the backend tests' geometry.
#include <gtest/gtest.h>

#include "cuda/core/device.hpp"
#include "compute/core/registry.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/projection_filter.hpp"
#include "compute/fdk/simulate.hpp"

using namespace tomo;
using namespace tomo::fdk;

namespace {

CArmGeometry small_geometry() {  // as tests/fdk/small_stack.hpp
  CArmGeometry g;
  g.projections = 62;
  g.sx = 156;
  g.sy = 120;
  g.pixel_mm = 2.56;
  return g;
}

ProjectionStack preprocess(const std::string& filter, const CArmGeometry& g, int chunk) {
  auto op = BackendRegistry<ProjectionFilter>::instance().create(filter);
  op->setup(g, {});
  return simulate_preprocessed(shepp_logan_3d(), g, *op, nullptr, {}, chunk);
}

VolumeF backproject(const std::string& backend, const ProjectionStack& p, Interpolation interp) {
  auto op = BackendRegistry<ConeBeamBackprojector>::instance().create(backend);
  BackprojectorOptions o;
  o.interpolation = interp;
  op->configure(o);
  return reconstruct(*op, rabbit_grid(64), p, 16);
}

}  // namespace

TEST(FdkFilterPipeline, CudaFilterMatchesCpuFilterThroughTheBackprojection) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const CArmGeometry g = small_geometry();
  EXPECT_EQ(resolve_filter_backend("auto", "cuda"), "cuda");
  const ProjectionStack ref = preprocess("cpu", g, 16);
  const ProjectionStack gpu = preprocess("cuda", g, 13);  // chunks that are not a multiple of 8
  const double proj_err = relative_l2(gpu.pixels, ref.pixels);
  std::printf("cuda filter vs cpu filter: projections rel. L2 %.3e\n", proj_err);
  EXPECT_LT(proj_err, 1e-5);

  const VolumeF v_ref = backproject("cpu", ref, Interpolation::exact);
  const VolumeF v_gpu_filter = backproject("cpu", gpu, Interpolation::exact);
  const VolumeF v_all_gpu = backproject("cuda", gpu, Interpolation::exact);
  const double vol_err = relative_l2(v_gpu_filter.data, v_ref.data);
  const double all_err = relative_l2(v_all_gpu.data, v_ref.data);
  std::printf("volume (cpu back-projection) cuda filter vs cpu filter: rel. L2 %.3e; cuda filter + cuda exact "
              "back-projection vs all-cpu: %.3e\n",
              vol_err, all_err);
  EXPECT_LT(vol_err, 1e-5);
  EXPECT_LT(all_err, 1e-4);
}
