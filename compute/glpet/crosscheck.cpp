// glpet cross-check: every available backend vs cpu in the common table
// (compute/core/crosscheck.hpp); exit status 1 above tolerance (docs/glpet.md §5 justifies the tolerances).
#include "compute/glpet/crosscheck.hpp"

#include <algorithm>
#include <cmath>

#include "compute/core/crosscheck.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/memory.hpp"
#include "compute/core/report.hpp"
#include "compute/core/scene.hpp"
#include "compute/glpet/memory.hpp"
#include "compute/glpet/config.hpp"

namespace tomo::glpet {

CrosscheckInput make_crosscheck_input(const SystemModel& sys, const VolumeF& activity, Projector& cpu) {
  CrosscheckInput in;
  in.system = sys;
  float amax = 0;
  for (float a : activity.data) amax = std::max(amax, a);
  in.x.resize(sys.voxel_count());
  for (std::size_t v = 0; v < in.x.size(); ++v) in.x[v] = activity.data[v] + 0.05f * std::max(amax, 1.0f);
  cpu.configure(sys);
  const std::vector<float> yt = forward_host(cpu, in.x);
  in.y.resize(yt.size());
  for (std::size_t l = 0; l < yt.size(); ++l) in.y[l] = yt[l] * float(1.0 + 0.3 * std::sin(0.37 * double(l)));
  const auto& d = sys.grid.dims;
  for (int c = 0; c < 9; ++c) {  // centre and the 8 octant centres
    const int i = c == 0 ? d[0] / 2 : ((c - 1) & 1 ? 3 * d[0] / 4 : d[0] / 4);
    const int j = c == 0 ? d[1] / 2 : ((c - 1) & 2 ? 3 * d[1] / 4 : d[1] / 4);
    const int k = c == 0 ? d[2] / 2 : ((c - 1) & 4 ? 3 * d[2] / 4 : d[2] / 4);
    in.probes.push_back(sys.grid.centre(i, j, k));
  }
  return in;
}

CrosscheckResult compare(Projector& cpu, Projector& other, const CrosscheckInput& in) {
  CrosscheckResult r;
  r.backend = other.describe();
  cpu.configure(in.system);
  other.configure(in.system, in.options);
  const std::vector<float> yc = forward_host(cpu, in.x), yo = forward_host(other, in.x);
  r.atlas_rel_l2 = relative_l2(yo, yc);
  // Ratio back-projection on the same y and ỹ (the cpu's) for both.
  auto run_ratio = [&](Projector& op, std::vector<float>& b, std::vector<float>& s) {
    auto by = op.make_lors(), bt = op.make_lors();
    auto bb = op.make_image(), bs = op.make_image();
    by->upload(in.y);
    bt->upload(yc);
    op.back_ratio(*by, *bt, *bb, bs.get());
    b = download(*bb);
    s = download(*bs);
  };
  std::vector<float> bc, sc, bo, so;
  run_ratio(cpu, bc, sc);
  run_ratio(other, bo, so);
  r.back_rel_l2 = relative_l2(bo, bc);
  r.sens_rel_l2 = relative_l2(so, sc);
  std::size_t diff = 0, total = 0;
  bool exposed = true;
  for (std::size_t p = 0; p < in.system.scanner.pairs.size() && exposed; ++p)
    for (const Vec3& v : in.probes) {
      std::vector<CorrespondencePixel> a, b;
      cpu.correspondence_image(p, v, a);
      if (!other.correspondence_image(p, v, b)) {
        exposed = false;
        break;
      }
      if (a.size() != b.size()) throw Error("glpet crosscheck: correspondence images differ in size");
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].r < 0 && b[i].r < 0) continue;  // both miss: not a line
        ++total;
        if (a[i].r != b[i].r || a[i].s != b[i].s) ++diff;
      }
    }
  if (exposed) {
    r.lines_compared = total;
    r.line_diff_fraction = total ? double(diff) / double(total) : 0.0;
  }
  return r;
}

int run_crosscheck(CrosscheckContext& ctx) {
  const Scene& s = ctx.scene;
  require_host_memory(estimate_memory(s, true), "glpet crosscheck");
  GlpetScene g = read_glpet_scene(s);
  // The cpu reference needs seconds, not hours: the grid is resampled to at most
  // `crosscheck.voxels` per axis over the same field of view (geometry, R, N, K kept).
  const int nmax = g.crosscheck.voxels;
  const double tol = g.crosscheck.tolerance, tol_raster = g.crosscheck.tolerance_raster;
  const double tol_lines = g.crosscheck.line_tolerance, tol_lines_raster = g.crosscheck.line_tolerance_raster;
  SystemModel sys = g.system;
  std::array<int, 3> dims;
  std::array<double, 3> vox;
  for (int a = 0; a < 3; ++a) {
    dims[a] = std::min(nmax, sys.grid.dims[a]);
    vox[a] = sys.grid.voxel_mm[a] * sys.grid.dims[a] / dims[a];
  }
  sys.grid = Grid3::centred(dims, vox);
  sys.sigma_t = g.attenuation.shapes.empty() ? VolumeF(sys.grid, 0.0f) : g.attenuation.voxelize(sys.grid, g.supersampling);
  for (float& v : sys.sigma_t.data) v = std::max(v, 0.0f);
  VolumeF act = g.activity.voxelize(sys.grid, g.supersampling);
  for (float& v : act.data) v = std::max(v, 0.0f);

  auto& reg = BackendRegistry<Projector>::instance();
  auto cpu = reg.create("cpu");
  CrosscheckInput in = make_crosscheck_input(sys, act, *cpu);
  in.options = g.projector;
  CrosscheckTable table("glpet", str_cat(dims[0], "x", dims[1], "x", dims[2], " voxels, ", sys.lor_count(),
                                         " LORs, R=", sys.R, " N=", sys.N, " K=", sys.K));
  run_backends<Projector>(table, [&](const std::string& name) {
    const bool raster = name == "gl";  // the raster path is held to its own tolerances
    const double t = raster ? tol_raster : tol, tl = raster ? tol_lines_raster : tol_lines;
    table.run(name, "", [&] {
      auto op = reg.create(name);
      const CrosscheckResult r = compare(*cpu, *op, in);
      CrosscheckErrors e{{"atlas_rel_l2", r.atlas_rel_l2, t}, {"back_rel_l2", r.back_rel_l2, t},
                         {"sens_rel_l2", r.sens_rel_l2, t}};
      if (r.line_diff_fraction >= 0) {  // only when the backend exposes its correspondence image
        e.push_back({"line_diff_fraction", r.line_diff_fraction, tl});
        e.push_back({"lines_compared", double(r.lines_compared)});
      }
      return e;
    });
  });
  return table.finish(ctx.report);
}

}  // namespace tomo::glpet
