// The additive terms of the two-strip detector (docs/pet.md): randoms and scatter, simulated
// (the Monte-Carlo effects the terms are tested against) and as the per-event additive counts of
// the forward model. Randoms are pairs of uncorrelated hits: z_u and z_d uniform over the strips,
// Δl uniform in the coincidence window [−2R, 2R]. Scatter is a simple model, documented as such:
// one photon of an annihilation is detected along its direction, the other leaves the
// annihilation point in a new uniform direction (a smooth background, no Compton physics).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "compute/strip/geometry.hpp"
#include "compute/strip/phantom.hpp"

namespace tomo::strip {

// Adds randoms and scattered pairs to `trues` so that they make up these shares of the result
// (f_r + f_s < 1), smeared like the trues, then shuffles every event (deterministic for a seed).
std::vector<Event> add_background(const StripGeometry& g, const Resolution& res, const StripPhantom& phantom,
                                  std::vector<Event> trues, double randoms_fraction, double scatter_fraction,
                                  std::uint64_t seed);

// Volume of the (z_u, z_d, Δl) space the randoms fill: L² · 4R (mm³).
inline double event_space_volume(const StripGeometry& g) { return g.L * g.L * 4.0 * g.R; }

// The forward model's additive count of each event in the units of the backends' forward
// projection Σ_i P(ẽ|i) ρ'_i: a density d_e (events per mm³ of event space) times the
// sensitivity s at the event's reconstructed position ([Bialas2015] eq. (2)), since ρ' = sρ makes
// the projection s times the density of detected events there. 0 outside the image.
std::vector<double> additive_counts(const StripGeometry& g, std::span<const Event> events,
                                    std::span<const double> density, std::span<const double> sensitivity);

}  // namespace tomo::strip
