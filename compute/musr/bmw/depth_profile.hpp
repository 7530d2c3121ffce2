// musrfit's PDepthProfile (libPDepthProfile): a fraction that changes step-wise with depth,
// weighted by the muons' stopping distribution at the run's implantation energy (the x of a
// fittype-8 run, keV), from TRIM.SP profiles (compute/musr/rge_profiles.hpp):
//   f(E) = f1·P(0, x1) + f2·P(x1, x2) + … + fn·P(x_{n−1}, z_max),  params f1…fn, x1…x_{n−1} (nm).
// P(a, b) = C(b) − C(a), C the profile's cumulative stopping fraction; the profile is the first
// whose energy lies within 900 eV of E (else f = 0), as musrfit picks it. Each P is a table over
// E built on the host per parameter set (TableKind::depth_fraction), which every backend reads.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>

#include "compute/musr/kt_tables.hpp"
#include "compute/musr/rge_profiles.hpp"

namespace tomo::musr {

class ProgramBuilder;
struct UserFunction;

// The table's energy grid: 10 eV steps (E in keV), exact for energies at least 10 eV inside a
// profile's ±900 eV window; the ramp across a window's edge spans one step.
inline constexpr double kDepthTableStepKeV = 0.01;

// The profile set's handle for a table argument: sets with the same contents share one.
int register_depth_profiles(std::vector<RgeProfile> profiles);
const std::vector<RgeProfile>& depth_profiles(int id);

// C(z) of one profile: musrfit reads cfd at the first depth ≥ z, a staircase in z whose
// fitted boundaries MINUIT leaves on a step; here C is the monotone cubic (PCHIP) through the
// staircase's cell midpoints (equal to musrfit's value there), constant outside them. Its slope
// is continuous, so χ² is smooth in the boundaries: a boundary may end anywhere, not only on a
// node where a piecewise-linear C would put a kink the minimiser cannot converge on.
double depth_cumulative(const RgeProfile& p, double z);
double depth_density(const RgeProfile& p, double z);  // dC/dz of that curve

// The table of P(a, b) over E for set `id` (dv[0] = ∂/∂a, dv[1] = ∂/∂b when `differences`).
KtTable depth_fraction_table(double a, double b, double id, unsigned differences);

// The native user function PDepthProfile for the startup file `startup` (2n − 1 arguments).
std::shared_ptr<const UserFunction> depth_profile_function(const std::filesystem::path& startup);

}  // namespace tomo::musr
