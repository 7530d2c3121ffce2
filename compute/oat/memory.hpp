// oat's host-memory estimate, made from the configuration before anything is simulated or read.
#pragma once
#include "compute/core/memory.hpp"
#include "compute/oat/config.hpp"

namespace tomo::oat {

// Dominant host buffers: 24 double volumes (CG's α, r, p, Ap, the phantom, the output images and
// one per-thread image of the cpu adjoint) and, for simulated data, 6 double data vectors of
// Q·(K + 2) samples. Data read from a file are not counted here: their size is the file's.
MemoryEstimate estimate_memory(const OatConfig& c);

}  // namespace tomo::oat
