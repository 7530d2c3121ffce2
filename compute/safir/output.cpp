// 4D NIfTI: the core writer's 3D file of nz·T slices (the same bytes: t is the slowest axis),
// then its dim/pixdim/units fields set to 4D in place.
#include "compute/safir/output.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>

#include "compute/core/error.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/png.hpp"

namespace tomo::safir {

void write_frames_nifti(const std::filesystem::path& path, const Grid3& grid,
                        const std::vector<std::vector<double>>& frames, double frame_s) {
  if (frames.empty()) throw Error("safir: no frames to write");
  const std::size_t per = grid.count();
  Grid3 g = grid;
  g.dims[2] = grid.dims[2] * static_cast<int>(frames.size());
  VolumeF v(g);
  for (std::size_t f = 0; f < frames.size(); ++f)
    for (std::size_t i = 0; i < per; ++i) v.data[f * per + i] = static_cast<float>(frames[f][i]);
  if (frames.size() > 32767) throw Error("safir: more than 32767 frames for one NIfTI file");
  write_nifti(path, v);
  if (frames.size() == 1) return;
  std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
  const std::int16_t dim[8] = {4, static_cast<std::int16_t>(grid.dims[0]), static_cast<std::int16_t>(grid.dims[1]),
                               static_cast<std::int16_t>(grid.dims[2]), static_cast<std::int16_t>(frames.size()), 1, 1, 1};
  io.seekp(40);  // dim[8] (nifti1.h)
  io.write(reinterpret_cast<const char*>(dim), sizeof dim);
  const float dt = static_cast<float>(frame_s);
  io.seekp(76 + 4 * 4);  // pixdim[4]
  io.write(reinterpret_cast<const char*>(&dt), 4);
  const char units = 2 | 8;  // NIFTI_UNITS_MM | NIFTI_UNITS_SEC
  io.seekp(123);
  io.write(&units, 1);
  if (!io) throw Error("safir: cannot set the 4D header of " + path.string());
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
