// A LOR-driven line projector for PET: Joseph's ray-driven model (compute/pet/joseph.hpp has the
// math and its convention) on arbitrary line end points over a voxel grid, non-TOF or with one
// time-of-flight bin per line (list mode, parallelproj's joseph3d_tof_lm convention). Backends:
// cpu (double accumulation, OpenMP) and cuda (float32), through
// tomo::BackendRegistry<pet::LineProjector>; make_line_projector checks the input and refuses the
// GL backends. docs/pet.md.
#pragma once
#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace tomo::pet {

// The voxel grid: dims (x fastest in memory: a (z, y, x) array), voxel sides and the centre of
// voxel (0, 0, 0), all in (x, y, z) order and mm.
struct LineGrid {
  std::array<int, 3> dims{1, 1, 1};
  std::array<double, 3> voxel_mm{1, 1, 1};
  std::array<double, 3> origin_mm{0, 0, 0};
  std::size_t count() const { return std::size_t(dims[0]) * dims[1] * dims[2]; }
};

// Time of flight in list mode (compute/pet/joseph.hpp has the kernel and its convention): each
// line's TOF bin, the number of bins (their centres are symmetric about each line's midpoint),
// the bin width and σ of the Gaussian along the line (mm), the bins' centre offset (mm) and where
// the kernel is cut (num_sigmas·σ). sigma_mm and center_offset_mm hold one value for every line
// or one per line. The names are parallelproj's (tof_bin_index, num_tof_bins, tof_bin_width,
// tof_sigma, tof_center_offset, num_sigmas).
struct LineTof {
  std::span<const int> bin_index;
  int num_bins = 0;
  double bin_width_mm = 0;
  std::span<const double> sigma_mm;
  std::span<const double> center_offset_mm;
  double num_sigmas = 3;
  double sigma_of(std::size_t line) const { return sigma_mm.size() == 1 ? sigma_mm[0] : sigma_mm[line]; }
  double offset_of(std::size_t line) const {
    return center_offset_mm.empty() ? 0.0 : center_offset_mm.size() == 1 ? center_offset_mm[0] : center_offset_mm[line];
  }
};

class LineProjector {
 public:
  virtual ~LineProjector() = default;
  virtual std::string describe() const = 0;
  // The grid and the lines: 6 values per line, (x, y, z) of p1 then of p2 in mm; with `tof`
  // (nullptr: non-TOF) each line's value is its TOF bin's (the spans are read here, not kept).
  virtual void configure(const LineGrid& grid, std::span<const double> endpoints, const LineTof* tof) = 0;
  virtual std::size_t line_count() const = 0;
  // lines[i] = Σ_j a_ij image[j] (one value per line, in the order of the end points).
  virtual void forward(std::span<const double> image, std::span<double> lines) = 0;
  // image[j] = Σ_i a_ij lines[i] (overwritten): the exact adjoint of forward.
  virtual void back(std::span<const double> lines, std::span<double> image) = 0;
  // The same on float32 arrays in the backend's device memory (cuda only: Error elsewhere). Each
  // waits for the device's queued work first (the caller's writes on any stream) and returns when
  // its output is written.
  virtual void forward_device(const float* image, float* lines);
  virtual void back_device(const float* lines, float* image);
};

// The checks of every backend: dims ≥ 1, voxel sides > 0 and finite, a finite origin, a multiple
// of 6 end-point values, all finite; InputError naming the first bad value (line index for end
// points).
void check_line_input(const LineGrid& grid, std::span<const double> endpoints);

// The checks of the TOF data for `lines` lines: one bin index per line, each in [0, num_bins);
// num_bins ≥ 1; bin width, σ (1 or one per line) and num_sigmas finite and > 0; the centre
// offset (empty, 1 or one per line) finite; a kernel window of at most 10⁶ planes. InputError
// naming the first bad value (line index for per-line values).
void check_line_tof(const LineGrid& grid, std::size_t lines, const LineTof& tof);

// The line projector of `backend` ("cpu", "cuda" or "auto"), configured (TOF when `tof` is given):
// InputError for an unknown name, for the GL backends (not implemented for this operator) and for
// bad input; UnavailableError when cuda is not available here.
std::unique_ptr<LineProjector> make_line_projector(const std::string& backend, const LineGrid& grid,
                                                   std::span<const double> endpoints, const LineTof* tof = nullptr);

}  // namespace tomo::pet
