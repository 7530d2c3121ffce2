// The fdk problem's iterative path: line integrals → ConeBeamProjector of the run's backend →
// SIRT / OS-SART / CGLS / TV, with a progress bar per iteration and timings in the report.
#pragma once
#include <span>
#include <string>

#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/fdk/iterative.hpp"

namespace tomo::fdk {

// The projector backend for the run's `backend` ("auto", or a name): that backend's projector,
// or cpu (with a warning) where the backend has none yet. `work`: what "auto" falling back to the
// cpu says to expect.
std::string resolve_projector_backend(const std::string& backend, const WorkEstimate& work = {});

// Reconstructs with `o.algorithm` on projector `backend` (resolved); reports the projector, the
// iterations and their time. `progress`: a bar per iteration on stderr.
VolumeF run_iterative(const std::string& backend, const ConeGeometry& g, std::span<const float> line_integrals,
                      const IterativeOptions& o, const ProjectorOptions& projector, RunReport& report, bool progress);

}  // namespace tomo::fdk
