// The LOR partition of the multi-GPU ML-EM ([Toth2010] §V): the LOR vector y is broken into
// G shares y_g, each with its minor matrix A_g. Module pairs are cut into row blocks (both
// modules of a pair into k blocks of their N_t rows, k² sub-pairs of equal detector counts,
// so every backend runs a share as an ordinary scanner) only where there are fewer pairs than
// shares, and the pieces are dealt to the shares largest first by their estimated non-zeros (docs/multigpu.md).
#pragma once
#include <cstddef>
#include <vector>

#include "compute/glpet/geometry.hpp"

namespace tomo::glpet {

struct LorShare {
  Scanner scanner;                  // this share's sub-pairs: a scanner of its own
  std::vector<std::size_t> global;  // global LOR index of each LOR of `scanner`, in its order
  double nonzeros = 0;              // estimated non-zeros of A_g (the balancing weight)
};

// Estimated non-zeros of a pair's rows of A: Σ over its LORs of the voxels the detector
// centre line crosses, from a sample of at most 8×8 detectors per module.
double estimate_nonzeros(const ModulePair& pair, const Grid3& grid);

// Splits sys's LORs into `shares` shares (1 ≤ shares). Every global LOR is in exactly one
// share. Whole pairs when there are enough, else pairs cut into the fewest row blocks (a power
// of two dividing every pair's N_t) that give every share a piece.
std::vector<LorShare> partition_lors(const SystemModel& sys, int shares);

// y_g = y[global] and its inverse: scatter a share's LOR vector into the global one.
std::vector<float> gather_share(const LorShare& share, const std::vector<float>& y);
void scatter_share(const LorShare& share, const std::vector<float>& y_share, std::vector<float>& y);

}  // namespace tomo::glpet
