// glpet GL pass timings (gl_pass_timings.hpp).
#include "glpet/gl_pass_timings.hpp"

#include <chrono>
#include <memory>

#include "core/error.hpp"
#include "core/registry.hpp"
#include "gl/reduction.hpp"
#include "glpet/gl_raster_projector.hpp"

namespace tomo::glpet {

namespace {

template <class F>
double wall_ms(Projector& op, F&& f) {
  op.finish();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  op.finish();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Lines (pixels) of all correspondence images of one call, over pairs and samples.
double lines_per_call(const SystemModel& sys) {
  double l = 0;
  for (const ModulePair& p : sys.scanner.pairs) l += double(sys.R) * p.n_a() * sys.R * p.n_t();
  return l * double(sys.voxel_count()) * sys.N;
}

// Bytes the halving levels read: Σ over levels of the source level's size, 16 B per texel.
double reduction_bytes(const SystemModel& sys) {
  double b = 0;
  for (const ModulePair& p : sys.scanner.pairs) {
    int w = sys.R * p.n_a(), h = sys.R * p.n_t();
    for (int lv = 0; lv + 1 < gl::reduction_levels(sys.R * p.n_a(), sys.R * p.n_t()); ++lv) {
      b += 16.0 * w * h;
      w = std::max(1, w / 2);
      h = std::max(1, h / 2);
    }
  }
  return b * double(sys.voxel_count()) * sys.N;
}

}  // namespace

std::vector<GlPassTiming> gl_pass_timings(const SystemModel& sys, std::span<const float> x,
                                          std::span<const float> y_measured, int repeats,
                                          const std::vector<std::string>& backends) {
  if (repeats < 1) throw InputError("gl_pass_timings: repeats must be >= 1");
  std::vector<GlPassTiming> rows;
  const double nvox = double(sys.voxel_count()), lines = lines_per_call(sys);
  auto add = [&](const std::string& be, const std::string& pass, double total_ms, double work, const char* unit) {
    const double ms = total_ms / repeats;
    rows.push_back({be, pass, ms, ms / nvox, work, unit});
  };
  auto& reg = BackendRegistry<Projector>::instance();
  for (const std::string& be : backends) {
    if (!reg.available(be).ok) continue;
    std::unique_ptr<Projector> op = reg.create(be);
    auto* raster = dynamic_cast<GlRasterProjector*>(op.get());
    op->configure(sys);
    auto bx = op->make_image(), bb = op->make_image(), bs = op->make_image();
    auto by = op->make_lors(), bt = op->make_lors();
    bx->upload(x);
    by->upload(y_measured);
    op->forward(*bx, *bt);  // warm-up: compiles the programs
    op->back_ratio(*by, *bt, *bb, bs.get());
    double f = 0, br = 0, up = 0, se = 0;
    if (raster) {
      raster->set_timing(true);
      raster->reset_times();
    }
    for (int r = 0; r < repeats; ++r) f += wall_ms(*op, [&] { op->forward(*bx, *bt); });
    RasterPassTimes fwd;
    if (raster) {
      fwd = raster->times();
      raster->reset_times();
    }
    for (int r = 0; r < repeats; ++r) br += wall_ms(*op, [&] { op->back_ratio(*by, *bt, *bb, bs.get()); });
    RasterPassTimes back;
    if (raster) {
      back = raster->times();
      raster->set_timing(false);
    }
    for (int r = 0; r < repeats; ++r) se += wall_ms(*op, [&] { op->sensitivity(*bs); });
    auto bx2 = op->make_image();
    for (int r = 0; r < repeats; ++r) {
      bx2->upload(x);
      up += wall_ms(*op, [&] { op->mlem_update(*bx2, *bb, *bs); });
    }
    if (raster) {
      // The seed's hardware-filtered σ_t variant of pass 1 (not the fp32 contract).
      raster->set_hardware_filter(true);
      op->forward(*bx, *bt);  // compiles the variant
      raster->set_timing(true);
      raster->reset_times();
      for (int r = 0; r < repeats; ++r) op->forward(*bx, *bt);
      add(be, "correspondence_hw", raster->times().correspondence_ms, lines, "fragments");
      raster->set_timing(false);
      raster->set_hardware_filter(false);
      add(be, "correspondence", fwd.correspondence_ms, lines, "fragments");
      add(be, "atlas", fwd.atlas_ms, lines, "points");
      add(be, "terms", back.terms_ms, lines, "fragments");
      add(be, "reduction", back.reduction_ms, reduction_bytes(sys), "bytes");
      add(be, "collect", back.collect_ms, nvox, "voxels");
    }
    add(be, "forward", f, lines, "lines");
    add(be, "back_ratio", br, lines, "lines");
    add(be, "sensitivity", se, lines, "lines");
    add(be, "update", up, nvox, "voxels");
  }
  return rows;
}

}  // namespace tomo::glpet
