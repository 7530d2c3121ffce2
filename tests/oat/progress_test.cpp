// oat's long cpu stages report progress: the FBP over its voxels, PLS over every application of
// H or Hᵀ (1 + 2 per iteration), so a cpu fallback does not sit silent for minutes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/pls.hpp"
#include "compute/oat/pls_progress.hpp"
#include "tests/oat/small_geometry.hpp"

namespace tomo::oat {
namespace {

struct StderrWithProgress {
  bool was = runtime_options().progress;
  StderrWithProgress() {
    runtime_options().progress = true;
    ::testing::internal::CaptureStderr();
  }
  std::string take() {
    runtime_options().progress = was;
    return ::testing::internal::GetCapturedStderr();
  }
};

TEST(OatProgress, CpuFbpReportsItsVoxels) {
  const OatGeometry g = test::small_geometry();  // 12³ voxels
  auto fbp = BackendRegistry<Fbp>::instance().create("cpu");
  fbp->configure(g, {});
  std::vector<double> p(g.data_size(), 1.0), img(g.grid.count());
  StderrWithProgress capture;
  fbp->reconstruct(p, img);
  const std::string err = capture.take();
  EXPECT_NE(err.find("oat FBP (cpu) [####################] 1728/1728"), std::string::npos) << err;
}

TEST(OatProgress, PlsCountsEveryOperatorApplication) {
  const OatGeometry g = test::small_geometry();
  auto model = BackendRegistry<Model>::instance().create("cpu");
  model->configure(g, {});
  std::vector<double> x(g.grid.count(), 0.0), u(g.data_size());
  for (std::size_t v = 0; v < x.size(); v += 7) x[v] = 1.0;  // data of some image: PLS has work to do
  model->forward(x, u);
  PlsOptions o;
  o.iterations = 3;
  StderrWithProgress capture;
  {
    Progress progress("PLS", pls_applications(o.iterations));
    ProgressModel counted(*model, progress);
    (void)run_pls(counted, g.grid, u, o, {});
    progress.finish();
  }
  const std::string err = capture.take();
  EXPECT_NE(err.find("PLS [####################] 7/7"), std::string::npos) << err;
}

}  // namespace
}  // namespace tomo::oat
