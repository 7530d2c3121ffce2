// Per-pass timings of the glpet GL backends for bench/glpet_bench.cpp: every raster pass
// (device time from GL_TIME_ELAPSED queries) and each operator call of `gl` and
// `gl-compute` (wall time around glFinish), with the work each did so the bench can set
// it beside the ceiling it is bound by and the seed's 8800 GTX figures.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "glpet/geometry.hpp"

namespace tomo::glpet {

struct GlPassTiming {
  std::string backend;  // "gl" or "gl-compute"
  std::string pass;     // see gl_pass_timings()
  double ms = 0;        // per call (mean over repeats)
  double ms_per_voxel = 0;
  double work = 0;      // amount of `unit` per call
  std::string unit;     // "fragments", "points", "bytes", "lines", "voxels"
};

// Runs, `repeats` times each, on `sys` (use a slab of the full grid and scale per voxel for
// big scenes; every voxel is processed: x > 0 everywhere is assumed by the callers):
//  gl:  "correspondence" (pass 1, fragments = lines drawn, in forward), "correspondence_hw"
//       (pass 1 with the seed's hardware-filtered σ_t), "atlas" (pass 2,
//       points), "terms" (pass 3a, fragments), "reduction" (pass 3b, bytes read by all
//       halving levels), "collect" (3c), and whole calls "forward", "back_ratio", "update";
//  gl-compute: "forward", "back_ratio", "sensitivity", "update" (work = lines traced).
// `backends` selects ("gl", "gl-compute"); an unavailable backend is skipped with no row.
std::vector<GlPassTiming> gl_pass_timings(const SystemModel& sys, std::span<const float> x,
                                          std::span<const float> y_measured, int repeats = 1,
                                          const std::vector<std::string>& backends = {"gl", "gl-compute"});

}  // namespace tomo::glpet
