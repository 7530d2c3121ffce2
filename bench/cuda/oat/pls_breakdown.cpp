// PLS-int iteration breakdown for bench_oat (see pls_breakdown.hpp).
#include "bench/cuda/oat/pls_breakdown.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "compute/core/registry.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/pls.hpp"
#include "cuda/core/event.hpp"
#include "cuda/oat/model_device.hpp"

namespace tomo::oat {
namespace {
template <class F>
double wall_ms(int reps, F&& f) {
  double best = 1e300;
  for (int r = 0; r < std::max(1, reps); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}
}  // namespace

PlsBreakdown time_pls_breakdown(const OatGeometry& g, std::span<const double> alpha, std::span<const double> u,
                                int reps, int iterations) {
  PlsBreakdown b;
  b.iterations = std::max(1, iterations);
  {
    ModelDevice dev(g, ModelOptions{});
    dev.upload_alpha(alpha);
    b.forward_kernels_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.forward(); });
    dev.upload_data(u);
    b.adjoint_kernels_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.adjoint(); });
    dev.synchronize();
  }
  auto model = BackendRegistry<Model>::instance().create("cuda");
  model->configure(g, ModelOptions{});
  std::vector<double> h_alpha(g.data_size()), ht_u(g.grid.count());
  model->forward(alpha, h_alpha);  // warm-up
  b.forward_call_ms = wall_ms(reps, [&] {
    model->forward(alpha, h_alpha);
    model->synchronize();
  });
  b.adjoint_call_ms = wall_ms(reps, [&] {
    model->adjoint(u, ht_u);
    model->synchronize();
  });
  auto run = [&](int n) {
    PlsOptions o;
    o.iterations = n;
    return wall_ms(1, [&] {
      (void)run_pls(*model, g.grid, u, o, [](const PlsIteration&) {});  // with the report, as the CLI
      model->synchronize();
    });
  };
  const double none = run(0), some = run(b.iterations);
  b.iteration_ms = (some - none) / b.iterations;
  const double share = static_cast<double>(b.iterations - 1) / b.iterations;
  b.cg_host_ms = b.iteration_ms - b.adjoint_call_ms - share * b.forward_call_ms;
  b.steady_iteration_ms = b.forward_call_ms + b.adjoint_call_ms + b.cg_host_ms;
  return b;
}

}  // namespace tomo::oat
