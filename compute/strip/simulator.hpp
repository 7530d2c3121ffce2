// Independent Monte-Carlo simulator of the two-strip detector (it never uses the kernel):
// emission points from the phantom density, isotropic 2D emission angles, the exact hit
// positions z_u, z_d and Δl of eq. (1) for pairs hitting both strips, then Gaussian smearing.
#pragma once
#include <cstdint>
#include <vector>

#include "compute/strip/geometry.hpp"
#include "compute/strip/phantom.hpp"

namespace tomo::pet {
class AttenuationMap;
}

namespace tomo::strip {

struct StripEfficiency;

struct SimulationStats {
  std::uint64_t emissions = 0;  // emitted pairs (accepted emission points)
  std::uint64_t detected = 0;   // pairs hitting both strips (= events returned)
};

// The exact (unsmeared) measurement of a pair emitted at (y, z) with angle θ, tan θ = t:
// z_u = z + (R − y)t, z_d = z − (R + y)t and Δl by eq. (1). Returns false unless both hits lie on the strips.
bool exact_hits(double R, double L, double y, double z, double t, double& z_u, double& z_d, double& dl);

// `count` detected events from the phantom. Deterministic for a given seed whatever the thread count
// (work is cut into fixed chunks, each with its own generator).
// With `mu`, each pair survives with exp(−∫μ) along its line (attenuation.hpp) or is lost; with
// `efficiency`, each is detected with ε_u(z_u)·ε_d(z_d) (normalisation.hpp) or is lost.
std::vector<Event> simulate_phantom(const StripGeometry& g, const Resolution& res, const StripPhantom& phantom,
                                    std::uint64_t count, std::uint64_t seed, SimulationStats* stats = nullptr,
                                    const pet::AttenuationMap* mu = nullptr,
                                    const StripEfficiency* efficiency = nullptr);

// Events from `emissions` pairs emitted at one point (y, z); only detected pairs are returned.
std::vector<Event> simulate_point(const StripGeometry& g, const Resolution& res, double y, double z,
                                  std::uint64_t emissions, std::uint64_t seed);

}  // namespace tomo::strip
