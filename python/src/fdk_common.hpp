// tomoraster.fdk's bindings in four files: fdk.cpp (the FDK back-projector and pre-processing),
// fdk_geometry.cpp (matrices from orbits, ASTRA and TIGRE; projection stacks and flat fields),
// fdk_cone.cpp (the iterative projector pair), fdk_pipeline.cpp (FDK of a whole stack on the GPU).
// The helpers they share.
#pragma once
#include <string>
#include <vector>

#include "compute/core/volume.hpp"
#include "compute/fdk/matrix.hpp"
#include "python/src/arrays.hpp"

namespace tomo::py {

// (N, 3, 4) float64 → matrices; ValueError on another shape.
std::vector<fdk::Mat34> mats_of(const AnyArray& matrices);
DoubleArray matrices_array(const std::vector<fdk::Mat34>& mats);
// A grid from (x, y, z) triples; ValueError out of range.
Grid3 grid_of(const std::vector<int>& voxels, const std::vector<double>& voxel_mm, const std::vector<double>& origin_mm);

void bind_fdk_geometry(nb::module_& m);
void bind_fdk_cone(nb::module_& m);
void bind_fdk_pipeline(nb::module_& m);

}  // namespace tomo::py
