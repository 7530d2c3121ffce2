// Measured oat data in and simulated data out: pressure traces as .npy (Q×K, with a Q×3
// positions .npy in mm), PATATO HDF5 (raw_data, GEOMETRY, fs, speedofsound) and k-Wave's HDF5
// (p, sensor_mask_index, grid); SI units converted to mm, µs, MHz. HDF5 is optional at build
// time: without it the HDF5 readers throw UnavailableError.
#pragma once
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "compute/oat/geometry.hpp"

namespace tomo::oat {

struct MeasuredData {
  std::vector<Vec3d> positions_mm;
  int samples = 0;             // K
  double fs_mhz = 0;           // 0: not in the file (the scene must give it)
  double c0_mm_per_us = 0;     // 0: not in the file
  std::vector<double> pressure;  // u[q·K + k]
};

// Pressure Q×K (any real dtype) and positions Q×3 in mm; sizes must agree.
MeasuredData read_npy_data(const std::filesystem::path& pressure, const std::filesystem::path& positions);
// Writes pressure (float32, Q×K) and positions (float64, Q×3, mm) atomically.
void write_npy_data(const std::filesystem::path& pressure, const std::filesystem::path& positions,
                    const OatGeometry& g, std::span<const double> u);

bool have_hdf5();
// PATATO: raw_data (frames, wavelengths, detectors, samples), GEOMETRY (detectors, 3) in m,
// root attributes fs (Hz) and, when present, speedofsound (m/s). One frame and wavelength.
MeasuredData read_patato(const std::filesystem::path& path, int frame = 0, int wavelength = 0);
void write_patato(const std::filesystem::path& path, const MeasuredData& d);  // one frame, one wavelength

// k-Wave (kspaceFirstOrder binaries): `p` (stored (1, Nt, Nsens)), sensor_mask_index (1-based,
// column-major into Nx×Ny×Nz), Nx, Ny, Nz, dx, dy, dz (m), dt (s) from the output file run with
// --copy_sensor_mask, or the mask and grid from `input` when given; c0 (m/s) from `input` if it
// is a scalar there. Grid point i sits at (i − ⌊N/2⌋)·d, as k-Wave's kWaveGrid places it.
MeasuredData read_kwave(const std::filesystem::path& output, const std::filesystem::path& input = {});
// A file with both (a round-trip of read_kwave): positions must lie on the grid given.
void write_kwave(const std::filesystem::path& path, const MeasuredData& d, std::array<int, 3> n, double dx_mm);

}  // namespace tomo::oat
