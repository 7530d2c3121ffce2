// glpet's LOR subsets by module pair ([Hudson1994] subsets; docs/pet.md): with at least as many
// module pairs as subsets, each subset is a set of whole pairs spread over the half turn, and its
// forward and back-projections run on a projector configured with those pairs only, so an OSEM
// iteration (all subsets) projects every LOR once, as one ML-EM iteration does. The update of a
// subset runs on the host (one image down and up per subset): voxels its pairs do not see keep
// their value.
#pragma once
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "compute/glpet/projector.hpp"
#include "compute/pet/corrections.hpp"
#include "compute/pet/reconstruct.hpp"

namespace tomo {
class RunReport;
}

namespace tomo::glpet {

// The subset of every module pair: pairs ranked by the azimuth of the line between their module
// centres (in [0, π), pair index as the tie-break), rank r in subset r mod S, so each subset's
// pairs lie far apart in angle. Empty when the scanner has fewer pairs than subsets.
std::vector<int> pair_subsets(const Scanner& scanner, int subsets);

// The system model of one subset: `system` with only the pairs of `subset` (in their order).
SystemModel subset_system(const SystemModel& system, std::span<const int> subset_of_pair, int subset);

// Makes a projector of the run's backend configured with a subset's system model.
using ProjectorFactory = std::function<std::unique_ptr<Projector>(const SystemModel&)>;

// The layer's primitives over pair subsets, one projector per subset. x, b and the full
// sensitivity s (already masked to the field of view) are buffers of the run's projector `op`;
// y (per LOR of the whole scanner, Scanner::lor_offset order) and the terms are split per subset.
class PairSubsets final : public pet::SubsetPrimitives {
 public:
  PairSubsets(Projector& op, const SystemModel& system, std::span<const int> subset_of_pair, int subsets,
              const ProjectorFactory& make, std::span<const float> y, const BackendBuffer& s, BackendBuffer& x,
              BackendBuffer& b, RunReport* report, const pet::ForwardTerms* terms = nullptr);

  int subset_count() const override { return int(parts_.size()); }
  std::size_t voxel_count() const override { return x_.size(); }
  void set_image(std::span<const double> x) override;
  std::vector<double> image() override;
  std::vector<double> sensitivity(int k) override;
  void em_step(int k) override;
  std::vector<double> back_ratio(int k) override;

 private:
  struct Part {
    std::unique_ptr<Projector> op;
    std::unique_ptr<BackendBuffer> y, t, s;  // the subset's counts, estimate and sensitivity
    std::vector<float> hs;                   // s on the host (the update runs there)
    std::vector<std::size_t> lors;           // the subset's LORs in the whole scanner's order
    std::vector<double> hy;                  // with terms: the subset's counts on the host
    pet::ForwardTerms terms;                 // with terms: the subset's share
  };
  void ratio(int k);
  Projector& op_;
  BackendBuffer &x_, &b_;
  RunReport* report_;
  bool terms_ = false;
  std::vector<Part> parts_;
  std::vector<float> hx_;  // x, mirrored on the host where the backend has no subset_update
  bool hx_stale_ = false;  // the device's subset_update moved x past hx_
};

}  // namespace tomo::glpet
