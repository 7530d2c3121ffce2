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
#include "compute/oat/pls_report.hpp"
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

// The split of a PLS stage report.json records: CG's n iterations make Hᵀu, the scale's H·Hᵀu, then
// Hᵀ in every iteration and H in every one after the first; their seconds and the rest add up to
// the stage.
TEST(OatProgress, PlsTimesEveryOperatorCall) {
  const OatGeometry g = test::small_geometry();
  auto model = BackendRegistry<Model>::instance().create("cpu");
  model->configure(g, {});
  std::vector<double> x(g.grid.count(), 0.0), u(g.data_size());
  for (std::size_t v = 0; v < x.size(); v += 7) x[v] = 1.0;
  model->forward(x, u);
  PlsOptions o;
  o.iterations = 3;
  Progress progress("PLS", pls_applications(o.iterations));
  ProgressModel counted(*model, progress);
  (void)run_pls(counted, g.grid, u, o, {});
  EXPECT_EQ(counted.forward_time().calls, 3);  // the scale's H·b, then iterations 2 and 3
  EXPECT_EQ(counted.adjoint_time().calls, 4);  // Hᵀu, then one per iteration
  EXPECT_GT(counted.forward_time().seconds, 0.0);
  EXPECT_GT(counted.adjoint_time().seconds, 0.0);
  const double total = counted.forward_time().seconds + counted.adjoint_time().seconds + 0.25;
  const nlohmann::json j = pls_time_json(counted.forward_time(), counted.adjoint_time(), total);
  EXPECT_EQ(j.at("forward_calls").get<long>(), 3);
  EXPECT_EQ(j.at("adjoint_calls").get<long>(), 4);
  EXPECT_NEAR(j.at("other_s").get<double>(), 0.25, 1e-12);
  EXPECT_DOUBLE_EQ(j.at("total_s").get<double>(), total);
}

}  // namespace
}  // namespace tomo::oat
