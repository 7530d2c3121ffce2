// Per-pass timings of the glpet GL backends for bench_glpet (bench code, not in the product):
// every raster pass (device time from GL_TIME_ELAPSED queries) and each operator call of `gl`
// and `gl-compute` (wall time around glFinish), with the work each did so the bench can set
// it beside the ceiling it is bound by and the 8800 GTX figures of [Toth2010].
#pragma once
#include <span>
#include <string>
#include <vector>

#include "compute/glpet/geometry.hpp"

namespace tomo::glpet {

struct GlPassTiming {
  std::string backend;  // "gl" or "gl-compute"
  std::string pass;     // see gl_pass_timings()
  double ms = 0;        // per call (mean over repeats)
  double ms_per_voxel = 0;
  double work = 0;      // amount of `unit` per call
  std::string unit;     // "fragments", "points", "bytes", "lines"
};

// Runs, `repeats` times each, on `sys` (use a slab of the full grid and scale per voxel for
// big scenes; every voxel is processed: x > 0 everywhere is assumed by the callers):
//  gl:  "correspondence" (pass 1, fragments = lines drawn, in forward), "correspondence_hw"
//       (pass 1 with [Toth2010]'s hardware-filtered σ_t), "atlas" (pass 2,
//       points), "terms" (pass 3a, fragments), "reduction" (pass 3b, bytes read by all
//       halving levels), "collect" (3c, bytes: N RGBA32F texels read, b and s read and
//       written per voxel), and whole calls "forward", "back_ratio", "sensitivity" (lines) and
//       "update" (bytes: x, b, s read, x written per voxel);
//  gl-compute: "forward", "back_ratio", "sensitivity" (work = lines traced), "update" (bytes).
// `backends` selects ("gl", "gl-compute"); an unavailable backend is skipped with no row.
// `voxel_count` > 0: the passes process only voxels [first_voxel, first_voxel + voxel_count)
// of the full grid (Projector::restrict_voxels) — the lines keep the whole σ_t volume — and
// ms_per_voxel and work are per processed voxel (update still runs over the whole grid).
std::vector<GlPassTiming> gl_pass_timings(const SystemModel& sys, std::span<const float> x,
                                          std::span<const float> y_measured, int repeats = 1,
                                          const std::vector<std::string>& backends = {"gl", "gl-compute"},
                                          std::size_t first_voxel = 0, std::size_t voxel_count = 0);

// What the lines of `sys` cost beyond their count, from the line set itself (double, host):
// the fraction of the R·N_a × R·N_t pixels per voxel sample whose line hits the secondary
// (the fragments pass 1 shades, the points pass 2 blends, the lines the twins ray-march),
// and the mean number of the K σ_t samples of a hit line that fall inside the grid grown by
// one voxel (the ones the passes fetch; the others read 0 without a fetch). Probes a 4×4×4
// lattice of voxels (fewer on small grids), every pair, sample offset 0.
struct LineWork {
  double hit_fraction = 0;
  double samples_per_hit = 0;
  long probed_lines = 0;
};
LineWork line_work(const SystemModel& sys);

}  // namespace tomo::glpet
