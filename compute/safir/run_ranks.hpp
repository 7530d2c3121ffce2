// safir on several ranks (--gpus N, mpirun; docs/multigpu.md, "safir and strip"): the sensitivity's
// crystal pairs and every frame's events dealt to the ranks, the ranks' sums joined in global rank
// order (images after every subset), so each frame's image is one rank's up to the order of the
// float sums. Every algorithm of compute/pet and the correction terms run unchanged on top.
#pragma once
#include <array>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "compute/core/report.hpp"
#include "compute/multi/ranks.hpp"
#include "compute/safir/config.hpp"
#include "compute/safir/corrections.hpp"
#include "compute/safir/mlem.hpp"

namespace tomo::safir {

struct RanksInput {
  const SafirConfig& config;
  const std::string& backend;
  std::span<const Event> events;  // acquisition order
  std::uint64_t delayed = 0;
  const std::vector<Frame>& frames;
  const Corrections& corrections;
  const std::vector<double>& start;  // the start image (flat 1 or safir.initial_image)
};

struct RanksFrame {
  std::vector<double> image;
  std::vector<std::vector<double>> saved;  // the images after safir.save_iterations, in its order
  std::array<std::size_t, 4> labels{};     // summed over the ranks
  double reconstruction_ms = 0;
};

struct RanksOutput {
  std::vector<double> sensitivity;  // s over every crystal pair (before the field-of-view mask)
  std::vector<RanksFrame> frames;
};

// Runs the sensitivity and every frame's reconstruction on `ranks` (a team). Rank 0 records the
// timings configure, sensitivity and upload into `report` (they count to their stages while the
// caller waits in its scope) and calls `step` after every subset (progress).
RanksOutput reconstruct_on_ranks(const Ranks& ranks, const RanksInput& in, RunReport& report,
                                 const std::function<void(std::size_t frame, const pet::Step&)>& step);

// The one-line refusals of what does not compose with several ranks yet (InputError, exit 2).
void check_ranks_compose(const SafirConfig& c);

}  // namespace tomo::safir
