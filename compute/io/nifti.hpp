// NIfTI-1 single-file (.nii) images and volumes: float32 written with voxel sizes
// (mm) and origin in both qform and sform; reading accepts the common scalar types
// and either byte order, and rejects files whose size does not match the header.
#pragma once
#include <filesystem>

#include "compute/core/volume.hpp"

namespace tomo {

void write_nifti(const std::filesystem::path& path, const VolumeF& volume);
VolumeF read_nifti(const std::filesystem::path& path);

}  // namespace tomo
