// The safir images as files: frames through compute/io's 3-D/4-D NIfTI writer, a slice preview.
#include "compute/safir/output.hpp"

#include "compute/core/error.hpp"
#include "compute/io/image_output.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/preview.hpp"

namespace tomo::safir {

namespace {

NiftiSeries frames_series(const Grid3& grid, const std::vector<std::vector<double>>& frames, double frame_s) {
  if (frames.empty()) throw Error("safir: no frames to write");
  if (frames.size() > 32767) throw Error("safir: more than 32767 frames for one NIfTI file");
  const std::size_t per = grid.count();
  NiftiSeries series{.grid = grid, .data = std::vector<float>(per * frames.size()),
                     .frames = static_cast<int>(frames.size()), .frame_s = frame_s};
  for (std::size_t f = 0; f < frames.size(); ++f)
    for (std::size_t i = 0; i < per; ++i) series.data[f * per + i] = static_cast<float>(frames[f][i]);
  return series;
}

}  // namespace

void write_frames_nifti(const std::filesystem::path& path, const Grid3& grid,
                        const std::vector<std::vector<double>>& frames, double frame_s) {
  write_nifti(path, frames_series(grid, frames, frame_s));
}

void write_frames(OutputDir& out, const std::string& stem, const Grid3& grid,
                  const std::vector<std::vector<double>>& frames, double frame_s) {
  write_image(out, stem, frames_series(grid, frames, frame_s));
}

void write_slice_png(const std::filesystem::path& path, const Grid3& g, const std::vector<double>& image) {
  VolumeF v(g);
  for (std::size_t i = 0; i < v.data.size(); ++i) v.data[i] = static_cast<float>(image[i]);
  write_preview(path, {slice_panel(v, 2, g.dims[2] / 2)}, {"activity (ML-EM)", "a.u.", "central z slice", ColorMap::Gray, 0, 0});
}

}  // namespace tomo::safir
