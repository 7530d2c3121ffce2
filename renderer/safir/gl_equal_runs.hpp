// How many work groups of equal runs the safir gl-compute tiled pass gives a window
// (cuda/safir/tile_segments.hpp's scheme in tiled.comp.glsl): a window of a few waves of chunks
// (an OSEM subset) waits for its last wave's longest chunk; equal runs over a whole number of
// waves of resident groups end together. GL does not say how many groups are resident: the
// multiprocessor count comes from GL_NV_shader_thread_group where the driver has it (0: chunks
// as before) and the groups per multiprocessor from `groups_per_sm` (the benchmark sweeps it).
#pragma once
#include <algorithm>
#include <cmath>

#include "compute/safir/kernel_math.hpp"

namespace tomo::safir::gl_passes {

struct EqualRuns {
  int sms = 0;             // multiprocessors (0: the driver's count where it says, else chunks)
  int groups_per_sm = 4;   // resident tiled groups per multiprocessor (48 KiB tiles in 228 KiB)
  double waves = 8;        // windows of at least this many waves of min_chunk keep the chunks
  double min_chunk = 4096;
};

// The settings a new gl-compute projector takes (the benchmark changes them between runs).
inline EqualRuns& equal_runs_defaults() {
  static EqualRuns e;
  return e;
}

// 0: the plan's chunks; else the group count. Visits must fit the shader's 32-bit arithmetic.
inline int equal_run_groups(const TilePlan& p, const EqualRuns& e) {
  double visits = 0;
  for (const LabelTiles& t : p.label) visits += double(t.end - t.begin) * t.tiles[0] * t.tiles[1] * t.tiles[2];
  if (e.sms <= 0 || e.groups_per_sm <= 0 || visits <= 0 || visits >= 4294967295.0) return 0;
  const double slots = double(e.sms) * e.groups_per_sm, waves = visits / (slots * e.min_chunk);
  if (waves >= e.waves) return 0;
  const double most = std::max(1.0, std::floor(2.0 * visits / e.min_chunk));  // runs of at least min_chunk / 2
  return static_cast<int>(std::min(most, std::max(1.0, std::round(waves)) * slots));
}

}  // namespace tomo::safir::gl_passes
