// The oat FBP on several ranks (--gpus): each rank reconstructs one z-slab of the voxels from the
// whole data. The fused formula is a gather per voxel, so a slab needs nothing from the others:
// the slabs are written in place into the one image (grid order, z slowest), nothing is summed,
// and the result is one device's up to the rounding of the voxel positions (a slab's grid has
// its own origin).
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "compute/oat/geometry.hpp"
#include "compute/oat/model.hpp"

namespace tomo::oat {

struct ZSlab {
  int z0 = 0;  // first z index of the slab
  int nz = 0;  // its planes (0 for a rank beyond the grid's planes)
};

// Rank `rank` of `ranks`: contiguous slabs whose plane counts differ by at most one.
ZSlab z_slab(int planes, int rank, int ranks);

// The geometry with the grid cut to the slab (the same voxel centres, the same support ball).
OatGeometry slab_geometry(const OatGeometry& g, ZSlab s);

// A backend's FBP over the ranks: `make(rank)` creates the rank's Fbp and `enter(rank)` prepares
// the rank's thread (a device selection) before each of its calls; both run on the rank's thread.
struct FbpRanks {
  int ranks = 1;
  std::string describe;  // "cuda on devices 0, 1", …
  std::function<std::unique_ptr<Fbp>(int rank)> make;
  std::function<void(int rank)> enter = [](int) {};
};
std::unique_ptr<Fbp> make_slab_fbp(FbpRanks ranks);

// Several devices: a backend registers how it makes its ranks from the --gpus text.
using FbpMultiFactory = std::function<FbpRanks(const std::string& gpus)>;
void register_fbp_multi(const std::string& backend, FbpMultiFactory factory);

// The backend's FBP ("auto" resolved by the caller), on several ranks when `gpus` is not empty
// (UnavailableError when the backend cannot).
std::unique_ptr<Fbp> make_fbp(const std::string& backend, const std::string& gpus);

}  // namespace tomo::oat
