// NIfTI-1 single-file images and volumes (.nii, and .nii.gz through zlib): float32 written
// with voxel sizes (mm), origin in qform and sform, the quantity and unit in descrip and the
// data range in cal_min/cal_max. Reading accepts the common scalar types, either byte order,
// gzip, and any qform/sform that is a signed permutation of the axes (LPS files from ITK
// among them), resampled into our RAS frame; sizes are checked before allocating.
#pragma once
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "compute/core/volume.hpp"

namespace tomo {

struct NiftiMeta {
  NiftiMeta() = default;
  NiftiMeta(std::string quantity_, std::string unit_) : quantity(std::move(quantity_)), unit(std::move(unit_)) {}

  std::string quantity;  // descrip holds "quantity [unit]" (the unit part only when set)
  std::string unit;
  // Read back from the header; the writer sets them to the data's finite min and max.
  float cal_min = 0, cal_max = 0;
  std::string descrip;       // the raw descrip field, as read
  std::string orientation;   // as stored in the file, e.g. "RAS", "LPS" (read only)
};

// A path ending in ".gz" is written gzip-compressed. Without meta, descrip is "tomoraster".
void write_nifti(const std::filesystem::path& path, const VolumeF& volume);
void write_nifti(const std::filesystem::path& path, const VolumeF& volume, const NiftiMeta& meta);

// A time series of volumes on one grid: data holds grid.count() · frames samples, x fastest and
// t slowest. More than one frame is written 4-D (dim[4] = frames, pixdim[4] = frame_s seconds,
// units mm and s); one frame is the 3-D file of the writer above.
struct NiftiSeries {
  Grid3 grid;
  std::vector<float> data;
  int frames = 1;
  double frame_s = 0.0;
};
void write_nifti(const std::filesystem::path& path, const NiftiSeries& series, const NiftiMeta& meta = NiftiMeta{});

// Gzip is recognised by its bytes, not the name. InputError naming the file for a folder or a
// non-regular file, a malformed header, more than 2^29 voxels, a size the file cannot hold (or
// gzip data that inflate to more or less than the header declares), an oblique orientation, or a non-finite value (with
// the voxel's index in the file).
// NiftiAxes::File keeps the file's index order and accepts any orientation: for arrays whose
// indices mean something else than space (projection stacks, LOR atlases).
enum class NiftiAxes { Ras, File };
VolumeF read_nifti(const std::filesystem::path& path);
VolumeF read_nifti(const std::filesystem::path& path, NiftiMeta& meta, NiftiAxes axes = NiftiAxes::Ras);

// A 1- to 4-D file as a series (the inverse of the series writer): every frame resampled into
// our RAS frame like read_nifti's volumes, frame_s from pixdim[4] in seconds (0 for a 3-D
// file, which is one frame). The same checks as read_nifti, over all frames.
NiftiSeries read_nifti_series(const std::filesystem::path& path);
NiftiSeries read_nifti_series(const std::filesystem::path& path, NiftiMeta& meta);

}  // namespace tomo
