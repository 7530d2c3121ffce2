// The raw-stack path on the GPU (label gpu): the cuda (cuFFT) filter with the weights of an orbit
// fitted to users' matrices (listed angles, columns against the rotation, off-centre central ray)
// against the cpu filter, and the cuda back-projection of the result against cpu. Data: the
// analytic sphere of tests/fdk/carm_stack.hpp.
#include <gtest/gtest.h>

#include <cstdio>

#include "compute/core/registry.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/orbit.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/projection_filter.hpp"
#include "cuda/core/device.hpp"
#include "tests/fdk/carm_stack.hpp"

using namespace tomo;
using namespace tomo::fdk;
using namespace tomo::fdk::test;

namespace {

ProjectionStack filtered(const std::string& filter, const FittedOrbit& f) {
  auto op = BackendRegistry<ProjectionFilter>::instance().create(filter);
  op->setup(f.geometry, {});
  return preprocess_raw(sphere_line_integrals(), f.matrices, f.geometry, *op, nullptr, {}, 13);
}

VolumeF backproject(const std::string& backend, const ProjectionStack& p) {
  auto op = BackendRegistry<ConeBeamBackprojector>::instance().create(backend);
  BackprojectorOptions o;
  o.interpolation = Interpolation::exact;
  op->configure(o);
  return reconstruct(*op, rabbit_grid(48, 144.0), p, 16);
}

}  // namespace

TEST(FdkRawStackGpu, CudaFilterAndBackprojectionMatchCpuOnAFittedOrbit) {
  if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
  const FittedOrbit f = fit_orbit(carm_matrices(), Carm::cols, Carm::rows, true, "test C-arm");
  EXPECT_FALSE(f.geometry.u_along_rotation);
  const ProjectionStack ref = filtered("cpu", f);
  const ProjectionStack gpu = filtered("cuda", f);
  const double proj_err = relative_l2(gpu.pixels, ref.pixels);
  const VolumeF v_ref = backproject("cpu", ref);
  const VolumeF v_gpu = backproject("cuda", gpu);
  const double vol_err = relative_l2(v_gpu.data, v_ref.data);
  std::printf("raw stack, fitted orbit: cuda filter vs cpu rel. L2 %.3e; cuda filter + cuda exact vs all-cpu %.3e\n",
              proj_err, vol_err);
  EXPECT_LT(proj_err, 1e-5);
  EXPECT_LT(vol_err, 1e-4);
}
