// The quarter-turn symmetry of an oat geometry for H_srt: when the transducer array and the voxel
// grid are both invariant under the quarter turn R about the z axis through the grid's centre,
// transducer R^k·d's shells are transducer d's turned by R^k, so one patch's position and trilinear
// weights serve the four transducers of an orbit {d, Rd, R²d, R³d} (voxel (i, j, k) turned to
// (n − 1 − j, i, k)). Each transducer's frame (params.hpp shell_frames) picks its u from the axis
// least aligned with e, which is not z-symmetric: a member's frame turned back by R^−k is d's frame,
// its negative (u, v → −u, −v: the azimuths shifted by a half turn), or, where |e_x| = |e_y| ties,
// another rotation about e. A pass is one frame in d's coordinates and the members whose patches it
// lays out: a ring of an even patch count has the same patches under a frame and its negative (as
// a set: patch j ↔ j + n/2), an odd one does not, so members of the negative frame take odd rings
// from their own pass.
#pragma once
#include <string>
#include <vector>

#include "compute/oat/geometry.hpp"
#include "compute/oat/kernel_math.hpp"

namespace tomo::oat {

inline constexpr int kSymmetryFold = 4;

// One pass of an orbit: `frame` in the orbit's first member's coordinates (position and e of that
// member, u and v of the pass), q[k] = the transducer R^k·d, and which members it serves on rings of
// an even (mask_even) and an odd (mask_odd) patch count (bit k: member k).
template <class T>
struct SymmetryPass {
  ShellFrame<T> frame;
  int q[kSymmetryFold];
  unsigned mask_even, mask_odd;
};

struct SrtSymmetry {
  bool ok = false;
  std::string why;           // why not, when !ok
  int n = 0;                 // voxels along x and y (even)
  int orbits = 0;            // Q / 4
  std::vector<SymmetryPass<double>> passes;  // grouped by orbit
  std::vector<int> orbit_first;              // passes of orbit o: [orbit_first[o], orbit_first[o + 1])
};

// Checks the geometry (square grid of an even side with equal x/y spacing and its centre on the
// array's axis, every transducer's quarter turn another transducer's position to rel. `tol` of its
// distance from the axis, orbits of four) and builds the passes from the frames of shell_frames.
SrtSymmetry plan_srt_symmetry(const OatGeometry& g, double tol = 1e-6);

// The passes in float.
std::vector<SymmetryPass<float>> symmetry_passes_float(const SrtSymmetry& s);

}  // namespace tomo::oat
