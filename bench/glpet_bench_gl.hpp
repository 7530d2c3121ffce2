// bench_glpet's GL part: the ceilings measured once per run and per timed grid, and the rows of
// the gl and gl-compute backends (timed through gl_pass_timings()) set beside them.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/glpet_bench_report.hpp"
#include "compute/glpet/geometry.hpp"

namespace tomo::bench::glpet_report {

// Lines of all correspondence images of one pass, per voxel.
double lines_per_voxel(const glpet::SystemModel& sys);

// What the run knows about GL: whether it has it, whether it is a software renderer (smaller
// probes), and the ceilings measured so far.
struct Env {
  bool gl = false, software = false;
  FixedCeilings fixed;
  std::map<std::string, MarchCeilings> march;  // by grid "nx x ny x nz"
  nlohmann::json ceilings_json = nlohmann::json::array();
};

// The ceilings that do not depend on the grid, appended to `out` as JSON rows.
FixedCeilings measure_fixed(bool software, nlohmann::json& out);
// The march ceilings of `sys`'s grid, measured on first use.
const MarchCeilings& march_for(Env& env, const glpet::SystemModel& sys);

// gl / gl-compute through gl_pass_timings() on `sys` (the full grid or a slab of it).
// `slab` > 0: only the voxels of the central `slab` z-slices are processed (the lines still
// cross the whole σ_t volume), and the rows are per processed voxel.
void bench_gl_backends(Env& env, const glpet::SystemModel& sys, int n, const std::vector<std::string>& which,
                       std::vector<Row>& rows, int slab = 0);

}  // namespace tomo::bench::glpet_report
