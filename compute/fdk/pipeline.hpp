// The FDK pipeline pieces shared by the runner, tests and bench: analytic projections →
// pre-processed RabbitCT projections, and a timed back-projection over any backend.
#pragma once
#include <functional>

#include "compute/core/phantom.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/filter.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/projection_filter.hpp"
#include "compute/fdk/rabbitct_file.hpp"

namespace tomo::fdk {

// Analytic line integrals of `phantom` filtered by FdkFilter, with the geometry's matrices.
// `on_projection(n)` is called after each projection (progress); may be empty.
ProjectionStack simulate_preprocessed(const Phantom& phantom, const CArmGeometry& g, const FilterOptions& filter,
                                      const std::function<void(int)>& on_projection = {});

struct PreprocessTiming {
  double simulate_ms = 0;  // analytic line integrals (CPU)
  double filter_ms = 0;    // the ProjectionFilter's apply() calls, transfers included
};

// The same, filtered by `filter` (already set up for `g`), `chunk` projections per apply() call.
ProjectionStack simulate_preprocessed(const Phantom& phantom, const CArmGeometry& g, ProjectionFilter& filter,
                                      PreprocessTiming* timing = nullptr,
                                      const std::function<void(int)>& on_projection = {}, int chunk = 16);

// Users' raw line integrals (n-major, g.sx·g.sy each; moved in) → the pre-processed stack that
// back-projects with `matrices` (w = 1 at the isocentre), filtered in place by `filter` (set up
// for g) `chunk` projections per apply() call.
ProjectionStack preprocess_raw(std::vector<float> line_integrals, std::vector<Mat34> matrices, const CArmGeometry& g,
                               ProjectionFilter& filter, PreprocessTiming* timing = nullptr,
                               const std::function<void(int)>& on_projection = {}, int chunk = 16);

// The RabbitCT volume of side L over 256 mm: R_L = volume_mm / L, O_L = −0.5·R_L·(L−1).
Grid3 rabbit_grid(int L, double volume_mm = 256.0);

struct BackprojectTiming {
  double total_ms = 0;  // back-projection calls + final synchronise (loading excluded, RabbitCT)
  double ms_per_projection = 0;
  double gups = 0;      // voxel updates per second / 1e9
};

// reset → backproject in batches of `batch` projections → synchronize; returns the volume.
VolumeF reconstruct(ConeBeamBackprojector& op, const Grid3& grid, const ProjectionStack& p, int batch,
                    BackprojectTiming* timing = nullptr, const std::function<void(int)>& on_batch = {});

}  // namespace tomo::fdk
