// Interfile images as STIR and CASToR write them: a text header (`.hv`, `.hdr`) of `key := value`
// lines naming a raw data file. Written with STIR's keys (float32, little-endian, `.hv` + `.v`);
// read tolerant of both tools' spellings (case, spaces, optional `!`, CASToR's aliases), with
// the data file's size checked against the header before anything is allocated.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "compute/core/volume.hpp"
#include "compute/io/nifti.hpp"

namespace tomo {

// Raw voxel types of an Interfile data file (`!number format` and `!number of bytes per pixel`).
enum class InterfileType { u8, i8, u16, i16, u32, i32, f32, f64 };

// What a header says, checked: everything needed to read its data file.
struct InterfileHeader {
  std::filesystem::path data_file;  // resolved against the header's folder
  std::array<int, 3> dims{1, 1, 1};
  std::array<double, 3> voxel_mm{1.0, 1.0, 1.0};
  std::array<double, 3> origin_mm{};  // centre of the first voxel, in our frame
  InterfileType type = InterfileType::f32;
  int bytes = 4;
  bool big_endian = true;  // the Interfile default when `imagedata byte order` is absent
  int frames = 1;
  std::vector<std::uint64_t> frame_offset;  // byte offset of each frame in the data file
  std::vector<double> frame_scale;          // multiplier of each frame's raw values
  double intercept = 0.0;                   // added after scaling (CASToR's rescale intercept)
  double frame_s = 0.0;                     // `image duration (sec)` of the first frame, 0 if absent
  std::string version_of_keys;              // e.g. "STIR6.0", "CASToRv3.1"
  std::string originating_system;
  std::string quantity, unit;  // from our own "; tomoraster quantity:" comment, when present
};

// Parses header text; `name` prefixes messages ("Interfile header 'a.hv'"), `folder` resolves a
// relative data file name. InputError for what cannot be honoured: no `!INTERFILE :=` first, no
// data file, a number format or byte order it does not know, projection data, more than three
// spatial dimensions, axes other than x, y, z, a size, voxel size or offset that is not a
// finite positive (or finite) number, more than 2^29 voxels over all frames.
InterfileHeader parse_interfile_header(std::string_view text, const std::string& name,
                                       const std::filesystem::path& folder);

// A 3-D image (one frame; a dynamic header is refused naming read_interfile_series). The data
// file must hold every byte the header declares; values are scaled and must be finite.
VolumeF read_interfile(const std::filesystem::path& header);
VolumeF read_interfile(const std::filesystem::path& header, NiftiMeta& meta);
// Every frame (`number of time frames`), on one grid; frame_s from `image duration (sec)`.
NiftiSeries read_interfile_series(const std::filesystem::path& header);

// `header` (conventionally `.hv`) and its data file beside it, named by the header with the
// extension `.v` (STIR's pair), written atomically: float32, little-endian. A series of more
// than one frame is one data file with STIR's per-frame keys.
std::filesystem::path interfile_data_path(const std::filesystem::path& header);
void write_interfile(const std::filesystem::path& header, const VolumeF& volume, const NiftiMeta& meta = NiftiMeta{});
void write_interfile(const std::filesystem::path& header, const NiftiSeries& series,
                     const NiftiMeta& meta = NiftiMeta{});

}  // namespace tomo
