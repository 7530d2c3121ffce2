// strip's list-mode data as the reconstruction layer's SubsetPrimitives (compute/pet/): event i
// in subset i mod S (interleaved in acquisition order). The image is ρ' = sρ, the variable of
// [Bialas2015] eq. (5), whose sensitivity is 1 per pixel: a subset's is 1/S. Eq. (5)'s step is
// homogeneous of degree 0 in ρ', so the backend's iterate() over a subset gives the OSEM step
// divided by S; the factor is applied when the image is read.
#pragma once
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "compute/pet/corrections.hpp"
#include "compute/pet/reconstruct.hpp"
#include "compute/strip/projector.hpp"

namespace tomo::strip {

class EventSubsets final : public pet::SubsetPrimitives {
 public:
  // With one subset the events must already be in the backend (set_events); with more the
  // backend gets each subset's events when it is visited, unless `more` is given: it makes a
  // further configured projector of the same backend, and each subset's events then stay in a
  // projector of their own (uploaded once: an OSEM iteration moves only the image, a few
  // thousand pixels, between them, instead of every event).
  // `terms` (per event of `events`; background.hpp): with additive counts c the EM ratio is
  // m/(m·F + c) over the backend's forward projection F, formed on the host (m: the per-event
  // survival and efficiency, which no longer cancel; empty: 1).
  // `acceptance` (normalisation.hpp; empty: none): the acceptance c of each pixel weighted by the
  // survival and/or the strips' efficiency, the sensitivity of ρ' with those terms. The per-event factors cancel in the EM ratio, so the step
  // is eq. (5)'s divided by c/S, applied on the host after the backend's pass.
  EventSubsets(ListModeProjector& op, std::span<const Event> events, int subsets, std::size_t pixels,
               std::vector<double> acceptance = {},
               const std::function<std::unique_ptr<ListModeProjector>()>& more = {}, const pet::ForwardTerms& terms = {});

  int subset_count() const override { return int(subsets_.size()); }
  std::size_t voxel_count() const override { return pixels_; }
  void set_image(std::span<const double> x) override;
  std::vector<double> image() override;
  std::vector<double> sensitivity(int subset) override;
  void em_step(int subset) override;
  std::vector<double> back_ratio(int subset) override;

 private:
  void select(int subset);
  ListModeProjector& at(int subset) { return resident_.empty() ? op_ : *resident_[std::size_t(subset)]; }
  ListModeProjector& op_;
  // Resident subsets: the projector of subset k (k = 0: op_), and the one holding the image.
  std::vector<ListModeProjector*> resident_;
  std::vector<std::unique_ptr<ListModeProjector>> own_;
  int holder_ = 0;
  std::vector<std::vector<Event>> subsets_;  // empty vectors when there is one subset
  std::size_t pixels_;
  int active_ = -1;
  double scale_ = 1;  // the image is scale_ × the backend's
  std::vector<double> acceptance_;
  std::vector<pet::ForwardTerms> terms_;  // per subset; empty without additive counts
};

}  // namespace tomo::strip
