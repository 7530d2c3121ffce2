// NIfTI-1 single-file writer (.nii, and .nii.gz through zlib): float32, voxel sizes in mm, the
// origin in qform and sform, "quantity [unit]" in descrip and the data range in cal_min/cal_max.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/io/atomic_file.hpp"
#include "compute/io/gzip.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/nifti_layout.hpp"

namespace tomo {
namespace {

using namespace nifti_layout;

// Finite min and max (0, 0 when there is none).
std::pair<float, float> finite_range(const std::vector<float>& data) {
  float mn = std::numeric_limits<float>::infinity(), mx = -mn;
  for (float x : data)
    if (std::isfinite(x)) mn = std::min(mn, x), mx = std::max(mx, x);
  return mn <= mx ? std::pair{mn, mx} : std::pair{0.0f, 0.0f};
}

// "quantity [unit]" in at most 79 bytes (descrip is 80, NUL-terminated).
std::string descrip_text(const NiftiMeta& meta) {
  std::string d = meta.quantity.empty() ? "tomoraster" : meta.quantity;
  if (!meta.unit.empty()) d += " [" + meta.unit + "]";
  return d.substr(0, 79);
}

// The writer of both forms: `frames` volumes of `g` in `data` (t slowest); 4-D when frames > 1.
void write_series(const std::filesystem::path& path, const Grid3& g, const std::vector<float>& data, int frames,
                  double frame_s, const NiftiMeta& meta) {
  for (int a = 0; a < 3; ++a) {
    if (g.dims[a] < 1 || g.dims[a] > std::numeric_limits<std::int16_t>::max())
      throw Error("write_nifti '" + path.string() + "': dimension " + std::to_string(a) + " = " +
                  std::to_string(g.dims[a]) + " is outside 1..32767");
    if (!(g.voxel_mm[a] > 0) || !std::isfinite(g.voxel_mm[a]))
      throw Error("write_nifti '" + path.string() + "': voxel size must be finite and > 0");
  }
  if (frames < 1 || frames > std::numeric_limits<std::int16_t>::max())
    throw Error("write_nifti '" + path.string() + "': " + std::to_string(frames) + " frames is outside 1..32767");
  if (frames > 1 && !(frame_s >= 0 && std::isfinite(frame_s)))
    throw Error("write_nifti '" + path.string() + "': frame length must be finite and >= 0");
  if (data.size() != g.count() * static_cast<std::size_t>(frames))
    throw Error("write_nifti '" + path.string() + "': volume has " + std::to_string(data.size()) +
                " samples, its grid says " + std::to_string(g.count() * static_cast<std::size_t>(frames)));

  HeaderBytes h;
  h.put<std::int32_t>(kOffSizeofHdr, static_cast<std::int32_t>(kHeaderSize));
  std::int16_t dim[8] = {3, 1, 1, 1, 1, 1, 1, 1};
  for (int a = 0; a < 3; ++a) dim[a + 1] = static_cast<std::int16_t>(g.dims[a]);
  if (frames > 1) dim[0] = 4, dim[4] = static_cast<std::int16_t>(frames);
  for (int i = 0; i < 8; ++i) h.put<std::int16_t>(kOffDim + 2 * i, dim[i]);
  h.put<std::int16_t>(kOffDatatype, kFloat32);
  h.put<std::int16_t>(kOffBitpix, 32);
  float pixdim[8] = {1.0f, 0, 0, 0, 0, 0, 0, 0};  // pixdim[0] = qfac
  for (int a = 0; a < 3; ++a) pixdim[a + 1] = static_cast<float>(g.voxel_mm[a]);
  if (frames > 1) pixdim[4] = static_cast<float>(frame_s);
  for (int i = 0; i < 8; ++i) h.put<float>(kOffPixdim + 4 * i, pixdim[i]);
  h.put<float>(kOffVoxOffset, static_cast<float>(kVoxOffset));
  h.put<float>(kOffSclSlope, 1.0f);
  h.put<float>(kOffSclInter, 0.0f);
  h.b[kOffXyztUnits] = frames > 1 ? 2 | 8 : 2;  // NIFTI_UNITS_MM (| NIFTI_UNITS_SEC for a series)
  const auto [mn, mx] = finite_range(data);  // viewers' default display window
  h.put<float>(kOffCalMax, mx);
  h.put<float>(kOffCalMin, mn);
  const std::string descrip = descrip_text(meta);
  std::memcpy(h.b.data() + kOffDescrip, descrip.data(), descrip.size());
  h.put<std::int16_t>(kOffQformCode, 1);  // NIFTI_XFORM_SCANNER_ANAT
  h.put<std::int16_t>(kOffSformCode, 1);
  for (int i = 0; i < 3; ++i) h.put<float>(kOffQuatern + 4 * i, 0.0f);  // identity rotation
  for (int i = 0; i < 3; ++i) h.put<float>(kOffQoffset + 4 * i, static_cast<float>(g.origin_mm[i]));
  for (int r = 0; r < 3; ++r)  // srow = [diag(voxel) | origin]
    for (int c = 0; c < 4; ++c)
      h.put<float>(kOffSrow + 16 * r + 4 * c,
                   c == 3 ? static_cast<float>(g.origin_mm[r]) : (c == r ? static_cast<float>(g.voxel_mm[r]) : 0.0f));
  std::memcpy(h.b.data() + kOffMagic, "n+1\0", 4);
  // Bytes 348..351 stay zero: no extensions.

  const bool gz = path.extension() == ".gz";
  write_file_atomic(path, [&](std::ostream& os) {
    const auto* bytes_in = reinterpret_cast<const char*>(data.data());
    const std::size_t bytes = data.size() * sizeof(float);
    if (!gz) {
      os.write(reinterpret_cast<const char*>(h.b.data()), static_cast<std::streamsize>(h.b.size()));
      os.write(bytes_in, static_cast<std::streamsize>(bytes));
      return;
    }
    GzipWriter z(os);
    z.write(h.b.data(), h.b.size());
    z.write(bytes_in, bytes);
    z.finish();
  });
}

}  // namespace

void write_nifti(const std::filesystem::path& path, const VolumeF& volume) { write_nifti(path, volume, NiftiMeta{}); }

void write_nifti(const std::filesystem::path& path, const VolumeF& volume, const NiftiMeta& meta) {
  write_series(path, volume.grid, volume.data, 1, 0.0, meta);
}

void write_nifti(const std::filesystem::path& path, const NiftiSeries& series, const NiftiMeta& meta) {
  write_series(path, series.grid, series.data, series.frames, series.frame_s, meta);
}

}  // namespace tomo
