// Images of the safir problem as files: 3D and 4D (x, y, z, frame) NIfTI and Interfile, PNG previews.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "compute/core/volume.hpp"

namespace tomo {
class OutputDir;
}

namespace tomo::safir {

// Frames of one grid as one NIfTI-1 file: 3D for one frame, 4D (t = frame, pixdim[4] = frame_s
// seconds) otherwise.
void write_frames_nifti(const std::filesystem::path& path, const Grid3& grid,
                        const std::vector<std::vector<double>>& frames, double frame_s);
// The same as `stem` in the run's output formats (compute/io/image_output.hpp).
void write_frames(OutputDir& out, const std::string& stem, const Grid3& grid,
                  const std::vector<std::vector<double>>& frames, double frame_s);
// The central z slice of an image as a preview (compute/io/preview: title, window, colour bar).
void write_slice_png(const std::filesystem::path& path, const Grid3& grid, const std::vector<double>& image);

}  // namespace tomo::safir
