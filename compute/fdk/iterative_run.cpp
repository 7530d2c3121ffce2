// The iterative path of the fdk problem (see iterative_run.hpp).
#include "compute/fdk/iterative_run.hpp"

#include <chrono>
#include <cstdio>
#include <optional>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/progress.hpp"
#include "compute/core/registry.hpp"

namespace tomo::fdk {

std::string resolve_projector_backend(const std::string& backend, const WorkEstimate& work) {
  auto& registry = BackendRegistry<ConeBeamProjector>::instance();
  if (backend == "auto") return registry.resolve("auto", work);
  try {
    return registry.resolve(backend);
  } catch (const InputError&) {
    log_warn("fdk: backend '", backend, "' has no forward projector yet; the iterative algorithm runs on cpu");
    return registry.resolve("cpu");
  }
}

VolumeF run_iterative(const std::string& backend, const ConeGeometry& g, std::span<const float> b,
                      const IterativeOptions& o, const ProjectorOptions& projector, RunReport& report, bool progress) {
  auto op = BackendRegistry<ConeBeamProjector>::instance().create(backend);
  op->configure(projector);
  op->setup(g);
  report.add_device(op->describe());
  std::optional<Progress> bar;
  const std::string label = to_string(o.algorithm) + " [" + backend + "]";
  if (progress) bar.emplace(label, o.iterations);
  double last = 0;
  const auto t0 = std::chrono::steady_clock::now();
  VolumeF v = reconstruct_iterative(*op, g, b, o, [&](int, double residual) {
    last = residual;
    if (bar) {
      char note[48];
      std::snprintf(note, sizeof note, "residual %.4g", residual);
      bar->step(1, note);  // polls interrupts
    }
  });
  op->synchronize();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (bar) bar->finish();
  report.add_timing("iterate:" + backend, ms);
  report.set_metric("iterations", o.iterations);
  report.set_metric("iterate_ms", ms);
  report.set_metric("ms_per_iteration", ms / o.iterations);
  if (last == last) report.set_metric("relative_residual", last);
  log_info(label, ": ", o.iterations, " iterations in ", ms, " ms, relative residual ", last);
  return v;
}

}  // namespace tomo::fdk
