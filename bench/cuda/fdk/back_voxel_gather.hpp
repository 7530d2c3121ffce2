// The row-sharing candidate of B (Variant::gather; bench_fdk --b-variants). Where u and t do not
// depend on z (a circular orbit with an untilted detector) a thread's column of voxels samples one
// detector column pair at rows that step by dv; voxels whose bilinear footprints share a row pair
// share one four-texel gather (tld4) of the texture unit, so a column of kZ voxels costs about
// ((kZ − 1)·|dv| + 2) / 2 texture instructions instead of kZ, with fp32 weights (the exact B's).
// With ZMode::general: one gather per voxel and view, any geometry (the control). Measured slower
// than the filtered fetch: a gather costs about 1.8× one (docs/perf/fdk.md).
#pragma once
#include <cuda_runtime_api.h>

#include "bench/cuda/fdk/back_voxel_args.hpp"
#include "bench/cuda/fdk/back_voxel_variants.hpp"

namespace tomo::bench::fdk_b {

// x = B y by the gather variant over `views` views of the weighted detector `tex` (layered,
// border 0; host matrices `mats`, 12 a view, texel centres not folded in); false (nothing run)
// where it does not apply (ZMode::invariant on a geometry that is not).
bool run_gather(const Variant& v, const Args& a, cudaTextureObject_t tex, const float* mats, int views,
                cudaStream_t s);

}  // namespace tomo::bench::fdk_b
