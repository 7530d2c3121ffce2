// The turn-symmetric candidates of B (Variant::sym; bench_fdk --b-variants): on a circular orbit
// whose views n and n + N/k see the grid turned by 360°/k (compute/fdk/orbit_symmetry.hpp), the
// k views' weighted detectors share one texel of a k-channel layered texture (RG16F, RG32F for
// half-turn pairs; RGBA16F, RGBA32F for quarter-turn quads), and each thread owns the k columns of
// one orbit of the turn: one filtered fetch at view n's (u, v) of column C feeds view n to C and
// view n + r·N/k to the column that the turn takes into C. k times fewer fetches than one per
// voxel and view, if the texture unit filters the wider texel at the same rate.
#pragma once
#include <cuda_runtime_api.h>

#include "bench/cuda/fdk/back_voxel_args.hpp"
#include "bench/cuda/fdk/back_voxel_variants.hpp"

namespace tomo::bench::fdk_b {

// x = B y with variant v (v.sym: 2 or 4; v.texel: half or f32): packs the weighted stack into a
// k-channel layered array (made on first use) and gathers. Returns false where the host found no
// such symmetry (in.half_turn, in.quarter_sense).
bool run_sym(const Variant& v, const Inputs& in, const Args& a, cudaStream_t s);
// Frees the packed array (before the CUDA runtime goes: the bench calls it after each case).
void release_sym();

}  // namespace tomo::bench::fdk_b
