// FDK pipeline helpers (see pipeline.hpp).
#include "compute/fdk/pipeline.hpp"

#include <algorithm>
#include <chrono>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/fdk/simulate.hpp"

namespace tomo::fdk {

ProjectionStack simulate_preprocessed(const Phantom& phantom, const CArmGeometry& g, const FilterOptions& filter,
                                      const std::function<void(int)>& on_projection) {
  FdkFilter f(g, filter);
  ProjectionStack p;
  p.sx = g.sx;
  p.sy = g.sy;
  p.matrices = g.matrices();
  p.pixels.resize(p.image_size() * g.projections);
  std::vector<float> raw(p.image_size());
  for (int n = 0; n < g.projections; ++n) {
    simulate_projection(phantom, g, n, raw.data());
    f.apply(n, raw.data(), p.image(n));
    if (on_projection) on_projection(n);
  }
  return p;
}

ProjectionStack simulate_preprocessed(const Phantom& phantom, const CArmGeometry& g, ProjectionFilter& filter,
                                      PreprocessTiming* timing, const std::function<void(int)>& on_projection,
                                      int chunk) {
  using clock = std::chrono::steady_clock;
  chunk = std::max(1, chunk);
  ProjectionStack p;
  p.sx = g.sx;
  p.sy = g.sy;
  p.matrices = g.matrices();
  p.pixels.resize(p.image_size() * g.projections);
  PreprocessTiming t;
  for (int n0 = 0; n0 < g.projections; n0 += chunk) {
    const int cnt = std::min(chunk, g.projections - n0);
    const auto t0 = clock::now();
    for (int n = n0; n < n0 + cnt; ++n) simulate_projection(phantom, g, n, p.image(n));
    const auto t1 = clock::now();
    filter.apply(n0, cnt, p.image(n0), p.image(n0));  // in place
    const auto t2 = clock::now();
    t.simulate_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
    t.filter_ms += std::chrono::duration<double, std::milli>(t2 - t1).count();
    if (on_projection)
      for (int n = n0; n < n0 + cnt; ++n) on_projection(n);
  }
  if (timing) *timing = t;
  return p;
}

ProjectionStack preprocess_raw(std::vector<float> line_integrals, std::vector<Mat34> matrices, const CArmGeometry& g,
                               ProjectionFilter& filter, PreprocessTiming* timing,
                               const std::function<void(int)>& on_projection, int chunk) {
  using clock = std::chrono::steady_clock;
  ProjectionStack p;
  p.sx = g.sx;
  p.sy = g.sy;
  p.matrices = std::move(matrices);
  p.pixels = std::move(line_integrals);
  if (p.count() != g.projections || p.pixels.size() != p.image_size() * g.projections)
    throw Error(str_cat("preprocess_raw: ", p.count(), " matrices and ", p.pixels.size(), " pixels for ",
                        g.projections, " projections of ", g.sx, "x", g.sy));
  chunk = std::max(1, chunk);
  PreprocessTiming t;
  for (int n0 = 0; n0 < g.projections; n0 += chunk) {
    const int cnt = std::min(chunk, g.projections - n0);
    const auto t0 = clock::now();
    filter.apply(n0, cnt, p.image(n0), p.image(n0));  // in place
    t.filter_ms += std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    if (on_projection)
      for (int n = n0; n < n0 + cnt; ++n) on_projection(n);
  }
  if (timing) *timing = t;
  return p;
}

Grid3 rabbit_grid(int L, double volume_mm) {
  const double r = volume_mm / L;
  return Grid3::centred({L, L, L}, {r, r, r});
}

VolumeF reconstruct(ConeBeamBackprojector& op, const Grid3& grid, const ProjectionStack& p, int batch,
                    BackprojectTiming* timing, const std::function<void(int)>& on_batch) {
  using clock = std::chrono::steady_clock;
  batch = std::max(1, batch);
  op.reset(grid);
  op.prepare(ProjectionView{p.sx, p.sy, p.count(), p.matrices.data(), p.pixels.data()});
  op.synchronize();
  double ms = 0;
  for (int n0 = 0; n0 < p.count(); n0 += batch) {
    const int cnt = std::min(batch, p.count() - n0);
    ProjectionView v{p.sx, p.sy, cnt, p.matrices.data() + n0, p.image(n0)};
    const auto t0 = clock::now();
    op.backproject(v);
    if (n0 + cnt >= p.count()) op.synchronize();
    ms += std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    if (on_batch) on_batch(cnt);
  }
  if (timing) {
    timing->total_ms = ms;
    timing->ms_per_projection = ms / p.count();
    timing->gups = static_cast<double>(grid.count()) * p.count() / (ms * 1e6);
  }
  return op.volume();
}

}  // namespace tomo::fdk
