// A LOR-driven line projector for PET: Joseph's ray-driven model (compute/pet/joseph.hpp has the
// math and its convention) on arbitrary line end points over a voxel grid, non-TOF. Backends:
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

class LineProjector {
 public:
  virtual ~LineProjector() = default;
  virtual std::string describe() const = 0;
  // The grid and the lines: 6 values per line, (x, y, z) of p1 then of p2 in mm.
  virtual void configure(const LineGrid& grid, std::span<const double> endpoints) = 0;
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

// The line projector of `backend` ("cpu", "cuda" or "auto"), configured: InputError for an
// unknown name, for the GL backends (not implemented for this operator) and for bad input;
// UnavailableError when cuda is not available here.
std::unique_ptr<LineProjector> make_line_projector(const std::string& backend, const LineGrid& grid,
                                                   std::span<const double> endpoints);

}  // namespace tomo::pet
