// glpet GL pass timings (gl_pass_timings.hpp).
#include "bench/gl/gl_pass_timings.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/reduction.hpp"
#include "renderer/glpet/gl_projector.hpp"
#include "compute/glpet/line_set.hpp"

namespace tomo::glpet {

namespace {

using PassMs = std::array<double, 5>;  // by RasterPassKind
double at(const PassMs& ms, RasterPassKind pass) { return ms[std::size_t(pass)]; }

// Device time of each raster pass of `gl`, summed while on: a GL_TIME_ELAPSED query around
// each pass, installed as the projector's observer (its result is waited for: a stall per pass).
class PassTimer final : public RasterPassObserver {
 public:
  bool on = false;
  PassMs ms{};

  void begin(RasterPassKind) override {
    if (!on) return;
    query_ = gl::Query::create(GL_TIME_ELAPSED);
    TOMO_GL_CHECK(glBeginQuery(GL_TIME_ELAPSED, query_.id()));
  }
  void end(RasterPassKind pass) override {
    if (!on) return;
    TOMO_GL_CHECK(glEndQuery(GL_TIME_ELAPSED));
    ms[std::size_t(pass)] += double(query_.result_u64()) * 1e-6;
  }

 private:
  gl::Query query_;
};

template <class F>
double wall_ms(Projector& op, F&& f) {
  op.synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  op.synchronize();
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
                                          const std::vector<std::string>& backends, std::size_t first_voxel,
                                          std::size_t voxel_count) {
  if (repeats < 1) throw InputError("gl_pass_timings: repeats must be >= 1");
  if (voxel_count > 0 && first_voxel + voxel_count > sys.voxel_count())
    throw InputError("gl_pass_timings: voxel range outside the grid");
  std::vector<GlPassTiming> rows;
  const double all = double(sys.voxel_count());
  const double nvox = voxel_count > 0 ? double(voxel_count) : all;
  const double part = nvox / all;  // work of the processed voxels
  const double lines = lines_per_call(sys) * part;
  auto add = [&](const std::string& be, const std::string& pass, double total_ms, double work, const char* unit) {
    const double ms = total_ms / repeats;
    rows.push_back({be, pass, ms, ms / (pass == "update" ? all : nvox), work, unit});
  };
  auto& reg = BackendRegistry<Projector>::instance();
  PassTimer timer;
  auto configure = [&](Projector& op, const std::string& be) {
    op.configure(sys);
    if (voxel_count > 0 && !op.restrict_voxels(first_voxel, voxel_count))
      throw Error("gl_pass_timings: backend " + be + " cannot time a voxel range");
  };
  for (const std::string& be : backends) {
    if (!reg.available(be).ok) continue;
    // `gl` as the registry makes it (default options), with the pass timer looking on.
    const bool raster = be == "gl";
    std::unique_ptr<Projector> op =
        raster ? std::make_unique<GlRasterProjector>(GlRasterOptions{.observer = &timer}) : reg.create(be);
    configure(*op, be);
    auto bx = op->make_image(), bb = op->make_image(), bs = op->make_image();
    auto by = op->make_lors(), bt = op->make_lors();
    bx->upload(x);
    by->upload(y_measured);
    op->forward(*bx, *bt);  // warm-up: compiles the programs
    op->back_ratio(*by, *bt, *bb, bs.get());
    double f = 0, br = 0, up = 0, se = 0;
    timer.ms = {};
    timer.on = raster;
    for (int r = 0; r < repeats; ++r) f += wall_ms(*op, [&] { op->forward(*bx, *bt); });
    const PassMs fwd = timer.ms;
    timer.ms = {};
    for (int r = 0; r < repeats; ++r) br += wall_ms(*op, [&] { op->back_ratio(*by, *bt, *bb, bs.get()); });
    const PassMs back = timer.ms;
    timer.on = false;
    for (int r = 0; r < repeats; ++r) se += wall_ms(*op, [&] { op->sensitivity(*bs); });
    auto bx2 = op->make_image();
    for (int r = 0; r < repeats; ++r) {
      bx2->upload(x);
      up += wall_ms(*op, [&] { op->mlem_update(*bx2, *bb, *bs); });
    }
    if (raster) {
      // [Toth2010]'s hardware-filtered σ_t variant of pass 1 (not the fp32 contract).
      GlRasterProjector hw({.sigma_fetch = SigmaFetch::Hardware, .observer = &timer});
      configure(hw, be);
      auto hx = hw.make_image(), ht = hw.make_lors();
      hx->upload(x);
      hw.forward(*hx, *ht);  // compiles the variant
      timer.ms = {};
      timer.on = true;
      for (int r = 0; r < repeats; ++r) hw.forward(*hx, *ht);
      timer.on = false;
      add(be, "correspondence_hw", at(timer.ms, RasterPassKind::Correspondence), lines, "fragments");
      add(be, "correspondence", at(fwd, RasterPassKind::Correspondence), lines, "fragments");
      add(be, "atlas", at(fwd, RasterPassKind::Atlas), lines, "points");
      add(be, "terms", at(back, RasterPassKind::Terms), lines, "fragments");
      add(be, "reduction", at(back, RasterPassKind::Reduction), reduction_bytes(sys) * part, "bytes");
      add(be, "collect", at(back, RasterPassKind::Collect), nvox * (16.0 * sys.N + 16.0), "bytes");
    }
    add(be, "forward", f, lines, "lines");
    add(be, "back_ratio", br, lines, "lines");
    add(be, "sensitivity", se, lines, "lines");
    add(be, "update", up, all * 16.0, "bytes");
  }
  return rows;
}

LineWork line_work(const SystemModel& sys) {
  LineWork w;
  const auto& d = sys.grid.dims;
  const Vec3 origin = sys.grid.origin_mm;
  const Vec3 inv{1.0 / sys.grid.voxel_mm[0], 1.0 / sys.grid.voxel_mm[1], 1.0 / sys.grid.voxel_mm[2]};
  const Vec3 off = sample_offsets(sys.N).front();
  long hits = 0;
  double samples = 0;
  auto lattice = [](int n) { return std::min(n, 4); };
  for (const ModulePair& pair : sys.scanner.pairs)
    for (int c = 0; c < lattice(d[2]); ++c)
      for (int b = 0; b < lattice(d[1]); ++b)
        for (int a = 0; a < lattice(d[0]); ++a) {
          const int i = int((a + 0.5) * d[0] / lattice(d[0])), j = int((b + 0.5) * d[1] / lattice(d[1])),
                    k = int((c + 0.5) * d[2] / lattice(d[2]));
          const Correspondence corr(pair, sample_position(sys.grid, i, j, k, off), sys.R);
          for (int Y = 0; Y < corr.height; ++Y)
            for (int X = 0; X < corr.width; ++X) {
              ++w.probed_lines;
              const Line l = corr.trace(X, Y, nullptr, sys.K);
              if (!l.hit) continue;
              ++hits;
              // The clip of shaders/glpet/correspondence.frag.glsl and line_set.glsl: samples
              // t_k = (k+½)/K of y2 + t(y1 − y2) inside the grid grown by one voxel.
              double t0 = 0, t1 = 1;
              bool outside = false;
              for (int ax = 0; ax < 3; ++ax) {
                const double g0 = (l.y2[ax] - origin[ax]) * inv[ax], dg = (l.y1[ax] - l.y2[ax]) * inv[ax];
                if (dg == 0) {
                  outside = outside || g0 <= -1.0 || g0 >= d[ax];
                  continue;
                }
                const double ta = (-1.0 - g0) / dg, tb = (d[ax] - g0) / dg;
                t0 = std::max(t0, std::min(ta, tb));
                t1 = std::min(t1, std::max(ta, tb));
              }
              if (outside || t0 >= t1) continue;
              const int k0 = std::max(0, int(std::floor(t0 * sys.K - 0.5)));
              const int k1 = std::min(sys.K - 1, int(std::ceil(t1 * sys.K - 0.5)));
              samples += std::max(0, k1 - k0 + 1);
            }
        }
  w.hit_fraction = w.probed_lines > 0 ? double(hits) / double(w.probed_lines) : 0.0;
  w.samples_per_hit = hits > 0 ? samples / double(hits) : 0.0;
  return w;
}

}  // namespace tomo::glpet
