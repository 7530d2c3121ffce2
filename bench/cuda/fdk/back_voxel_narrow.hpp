// The 16-bit texel candidates of B (Variant::texel; bench_fdk --b-variants): the product's gather
// on a weighted detector stored as half floats or as signed normalised 16-bit integers with one
// scale per view (max |value| of the view), to see whether the texture unit's rate depends on the
// bytes a texel holds, and at which accuracy. It does not: half floats run as fast as fp32
// (docs/perf/fdk.md).
#pragma once
#include <cuda_runtime_api.h>

#include "bench/cuda/fdk/back_voxel_args.hpp"
#include "bench/cuda/fdk/back_voxel_variants.hpp"

namespace tomo::bench::fdk_b {

// x = B y with variant v (v.texel: Texel::half or Texel::snorm16): weights the stack into
// `in.padded` (scratch), converts it into a 16-bit layered array made on first use, and gathers.
bool run_narrow(const Variant& v, const Inputs& in, const Args& a, cudaStream_t s);

}  // namespace tomo::bench::fdk_b
