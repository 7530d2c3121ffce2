// glpet's reconstruction ([Toth2010] eq. (3) ML-EM, and the reconstruction layer's OSEM and MAP,
// compute/pet/) against the glpet Projector interface: the sensitivity (of every LOR subset) is
// computed once and kept; x, y, ỹ live on the backend between iterations.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "compute/core/sensitivity_mask.hpp"
#include "compute/glpet/pair_subsets.hpp"
#include "compute/glpet/projector.hpp"
#include "compute/pet/corrections.hpp"
#include "compute/pet/reconstruct.hpp"

namespace tomo {
class RunReport;
}

namespace tomo::glpet {

struct MlemOptions {
  int iterations = 10;
  // Algorithm, subsets and prior (docs/pet.md); recon.iterations is ignored (`iterations` counts).
  pet::ReconOptions recon;
  std::string prior_backend = "cpu";  // the prior's backend (pet::prior_backend_for of the run's)
  const SystemModel* system = nullptr;  // the scanner (LOR subsets) and grid (prior): needed beyond ML-EM
  // Called after every subset (progress); may be empty.
  std::function<void(const pet::Step&)> on_subset;
  // Called after every iteration with the iteration number (1-based) and the image on
  // the device (download only if you need it: that is the only host copy per iteration).
  // Returns false to stop after this iteration (the viewer's stop button), true to go on.
  std::function<bool(int, const BackendBuffer&)> on_iteration;
  RunReport* report = nullptr;  // timings "sensitivity", "forward", "back_ratio", "update"
  // Voxels with a sensitivity below this fraction of the largest are outside the field of view:
  // held at 0 (compute/core/sensitivity_mask.hpp). Scene key glpet.sensitivity_threshold.
  double sensitivity_threshold = kDefaultSensitivityThreshold;
  // Per voxel, 1 outside the scanner's field of view (outside_field_of_view): held at 0 whatever
  // its sensitivity. Empty: no voxel is outside.
  std::vector<std::uint8_t> outside_fov;
  // Per LOR: normalisation factors n and randoms + scatter counts (docs/pet.md); the forward model
  // is then ȳ = n·A x + r + s (attenuation is in A). Null or empty: ȳ = A x.
  const pet::ForwardTerms* terms = nullptr;
  // Makes a further projector of the run's backend for a subset's module pairs. With it, subsets
  // by module pair (pair_subsets) run each on its own projector: an OSEM iteration projects every
  // LOR once. Without it each subset's passes project every LOR (the other subsets' counted 0).
  ProjectorFactory make_projector;
};

struct MlemResult {
  std::vector<float> x;            // final image
  std::vector<float> sensitivity;  // Σ_l A_lv (unmasked)
  std::size_t masked = 0;          // voxels with 0 < s_v below the threshold or outside the field of view, held at 0
  std::vector<float> estimate;     // ỹ = A x of the last image that was back-projected (pair subsets: of x)
  int iterations = 0;              // iterations run: fewer than asked when on_iteration stopped
};

// The LOR subsets of a scanner ([Hudson1994]): whole module pairs (pair_subsets) when there are
// at least as many pairs as subsets; else LORs ranked by the transaxial azimuth of the line
// between their detector centres, interleaved by angle (pet::angular_subsets, module pair as the
// tie-break). Returns the subset of every LOR (Scanner::lor_offset order).
std::vector<int> lor_subsets(const Scanner& scanner, int subsets);

// x0 empty: start from x_v = 1 where the sensitivity is > 0.
MlemResult run_mlem(Projector& op, std::span<const float> y, std::span<const float> x0, const MlemOptions& opt);

// The start of ML-EM on the backend, shared by run_mlem and the multi-device driver: voxels
// whose sensitivity s (already on the backend) is below the threshold fraction of the largest
// or whose `outside` entry is 1 are masked to 0 in s, and x is set to x0 (or 1) inside the field
// of view, 0 outside.
struct MaskedStart {
  std::vector<float> sensitivity;  // as computed, unmasked
  std::size_t masked = 0;
};
MaskedStart mask_and_start(BackendBuffer& s, BackendBuffer& x, std::span<const float> x0, double threshold,
                           std::span<const std::uint8_t> outside = {});

}  // namespace tomo::glpet
