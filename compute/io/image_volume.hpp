// One reader for the images a run takes as input (μ-maps, initial images): NIfTI (.nii, .nii.gz)
// or Interfile (.hv, .hdr header), chosen by the name's extension, returned as a volume in our
// frame (grid: shape, voxel size, origin); and the fit of such an image to a problem's grid.
#pragma once
#include <filesystem>
#include <string>

#include "compute/core/volume.hpp"

namespace tomo {

// InputError naming the file for an extension it does not know (and everything the format's
// reader refuses).
VolumeF read_image_volume(const std::filesystem::path& path);

// How an image on another grid is brought onto the problem's grid.
enum class GridFit {
  exact,      // the grids must agree (shape, and voxel size and origin within 1e-4 mm): else refused
  trilinear,  // sampled at every target voxel centre by trilinear interpolation; 0 outside the image
};

// "64x64x47 voxels of 2 x 2 x 3.27 mm, first voxel at (-63, -63, 0) mm".
std::string grid_text(const Grid3& g);

// `image` on `target`: as it is when the grids agree; otherwise refused (exact), naming `what`
// (e.g. "glpet.attenuation_map 'mu.nii'") and both grids, or resampled (trilinear).
VolumeF fit_to_grid(const VolumeF& image, const Grid3& target, GridFit fit, const std::string& what);

// read_image_volume, then fit_to_grid.
VolumeF read_image_on_grid(const std::filesystem::path& path, const Grid3& target, GridFit fit, const std::string& what);

}  // namespace tomo
