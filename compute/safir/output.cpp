// The safir images as files: frames through compute/io's 3-D/4-D NIfTI writer, a slice preview.
#include "compute/safir/output.hpp"

#include "compute/core/error.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/png.hpp"

namespace tomo::safir {

void write_frames_nifti(const std::filesystem::path& path, const Grid3& grid,
                        const std::vector<std::vector<double>>& frames, double frame_s) {
  if (frames.empty()) throw Error("safir: no frames to write");
  if (frames.size() > 32767) throw Error("safir: more than 32767 frames for one NIfTI file");
  const std::size_t per = grid.count();
  NiftiSeries series{.grid = grid, .data = std::vector<float>(per * frames.size()),
                     .frames = static_cast<int>(frames.size()), .frame_s = frame_s};
  for (std::size_t f = 0; f < frames.size(); ++f)
    for (std::size_t i = 0; i < per; ++i) series.data[f * per + i] = static_cast<float>(frames[f][i]);
  write_nifti(path, series);
}

void write_slice_png(const std::filesystem::path& path, const Grid3& g, const std::vector<double>& image) {
  const int k = g.dims[2] / 2;
  Image2D out{g.dims[0], g.dims[1], std::vector<float>(static_cast<std::size_t>(g.dims[0]) * g.dims[1])};
  for (int j = 0; j < g.dims[1]; ++j)
    for (int i = 0; i < g.dims[0]; ++i)  // y up
      out.pixels[static_cast<std::size_t>(g.dims[1] - 1 - j) * g.dims[0] + i] = static_cast<float>(image[g.index(i, j, k)]);
  write_png(path, out, ColorMap::Gray);
}

}  // namespace tomo::safir
