// Voxel-to-world maps of image files (NIfTI qform/sform) and the resampling of volumes
// whose axes are a signed permutation of ours into our RAS frame (x right, y anterior, z up).
#pragma once
#include <array>
#include <string>
#include <vector>

#include "compute/core/volume.hpp"

namespace tomo {

// world (mm) = m · (i, j, k, 1).
struct Affine3 {
  std::array<std::array<double, 4>, 3> m{};
};

// The qform of NIfTI-1 (nifti1.h, method 2): quaternion (b, c, d), qfac = pixdim[0] (-1 or
// else 1), voxel sizes and offset.
Affine3 affine_from_quaternion(double b, double c, double d, double qfac, const std::array<double, 3>& pixdim,
                               const std::array<double, 3>& offset);

// The orientation letters of the file's axes, e.g. "RAS", "LPS"; "oblique" when an axis is not
// along one world axis (relative tolerance 1e-4) or two share one.
std::string orientation_code(const Affine3& a);

// Voxels in file order (first axis fastest) with map `a`, as a volume in our frame: the axes
// permuted and flipped so that voxel (i, j, k) lies at origin + voxel_mm · (i, j, k). An axis
// of size 1 with a zero column takes the world axis left over. InputError naming `what` when
// the map is oblique or degenerate.
VolumeF reorient_to_ras(std::vector<float> data, const std::array<int, 3>& dims, const Affine3& a,
                        const std::string& what);

}  // namespace tomo
