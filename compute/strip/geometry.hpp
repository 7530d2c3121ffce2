// Two-strip J-PET geometry ([Bialas2015] Fig. 1): strips at y = ±R of length L along z, the
// (y, z) pixel grid, measured events (z̃u, z̃d, Δl̃) and the sensitivity s(y, z) of eq. (4).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "compute/core/volume.hpp"
#include "compute/strip/kernel_math.hpp"

namespace tomo::strip {

// One measured event: z̃u, z̃d on the upper (y = +R) and lower (y = −R) strip and Δl̃ (mm).
// The default constructor leaves the values unset (as a plain float does): a vector of 10⁸
// events is then not zero-filled by one thread before the simulator's threads write it (0.6 s of
// a GPU run's 0.9 s simulation on the H200 machine).
struct Event {
  float z_u, z_d, dl;
  Event() noexcept {}  // NOLINT: deliberately no member initialisers
  constexpr Event(float u, float d, float l) noexcept : z_u(u), z_d(d), dl(l) {}
};
static_assert(sizeof(Event) == 12 && std::is_trivially_copyable_v<Event>, "Event is three packed float32");

struct StripGeometry {
  double R = 130.0;       // half-distance between the strips (mm)
  double L = 300.0;       // strip length (mm)
  double pixel_y = 4.0;   // pixel size across the strips (mm)
  double pixel_z = 4.0;   // pixel size along the strips (mm)
  int n_y = 65;           // pixels across: the grid is centred on (0, 0)
  int n_z = 75;           // pixels along

  // A grid covering y ∈ [−R, R], z ∈ [−L/2, L/2] with square pixels of `pixel` mm.
  static StripGeometry covering(double R, double L, double pixel);

  std::size_t pixel_count() const { return static_cast<std::size_t>(n_y) * n_z; }
  double y_centre(int j) const { return -0.5 * (n_y - 1) * pixel_y + j * pixel_y; }
  double z_centre(int k) const { return -0.5 * (n_z - 1) * pixel_z + k * pixel_z; }
  std::size_t index(int j, int k) const { return static_cast<std::size_t>(j) * n_z + k; }

  template <class T>
  GridParams<T> grid() const {
    return {T(y_centre(0)), T(z_centre(0)), T(pixel_y), T(pixel_z), n_y, n_z};
  }
  // Grid3 for NIfTI output: x = z (fastest), y = y; same memory order as index().
  Grid3 grid3() const;
  // Throws InputError (prefixed by `where`) unless R, L, pixels > 0 and the grid is non-empty.
  void validate(const char* where) const;
};

// Resolution of the detector ([Bialas2015] §3): σ of z̃u, z̃d and of Δl̃ (mm).
struct Resolution {
  double sigma_z = 10.0;
  double sigma_dl = 40.0;
};

// [Bialas2015] eq. (4): the probability that a pair emitted isotropically (2D) at (y, z) hits both strips.
double sensitivity(double R, double L, double y, double z);
// s at every pixel centre (index order of StripGeometry::index).
std::vector<double> sensitivity_image(const StripGeometry& g);

// Per pixel (index order), 1 where the centre lies outside the strips' field of view — farther
// than R from the axis between them or beyond their ends (|z| > L/2) — else 0.
std::vector<std::uint8_t> outside_field_of_view(const StripGeometry& g);

// Direct reconstruction (eq. 2) of every event, histogrammed into the pixel grid (seed Fig. 3b).
std::vector<double> direct_reconstruction(const StripGeometry& g, const std::vector<Event>& events);

}  // namespace tomo::strip
