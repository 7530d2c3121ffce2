// The attenuation map of the PET forward model: μ in cm⁻¹ (the unit of CASToR's and STIR's
// μ-maps) on a voxel grid, and the survival probability a = exp(−∫μ dl) of a photon pair along
// a line of response, from exact voxel path lengths on the host (docs/pet.md).
#pragma once
#include <array>
#include <filesystem>
#include <string>

#include "compute/core/volume.hpp"

namespace tomo::pet {

class AttenuationMap {
 public:
  // μ in cm⁻¹, finite and ≥ 0 (InputError naming `what` and the voxel otherwise).
  AttenuationMap(VolumeF mu_per_cm, const std::string& what);
  // A NIfTI or Interfile μ-map (cm⁻¹), in the world frame of its header.
  static AttenuationMap read(const std::filesystem::path& path, const std::string& key);

  // ∫μ dl along the segment p0 → p1 (points in mm), dimensionless: the sum over the voxels the
  // segment crosses of μ times the length inside the voxel (voxels are boxes around their centres).
  double line_integral(const std::array<double, 3>& p0, const std::array<double, 3>& p1) const;
  // exp(−line_integral): both photons of a pair emitted anywhere on the line survive with this
  // probability, whatever the emission point.
  double survival(const std::array<double, 3>& p0, const std::array<double, 3>& p1) const;

  const VolumeF& volume() const { return mu_; }

 private:
  VolumeF mu_;
};

}  // namespace tomo::pet
