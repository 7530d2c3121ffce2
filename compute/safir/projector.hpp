// The operator of the safir problem: list-mode forward/back projection with the slice-wise system
// matrix of [Locans2017] eq. (12), the ML-EM step of eq. (10) and the sphere sums of the image
// analysis (eqs. 13–14), over events and an image resident in the backend (on the GPU for GPU
// backends, for all iterations and frames). cpu, gl-compute and cuda implement it and are chosen
// by name through tomo::BackendRegistry<ListModeOperator>.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "compute/core/enum_name.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/safir/scanner.hpp"

namespace tomo::safir {

// The ML-EM pass of the GPU backends (safir.pass).
enum class Pass {
  automatic,  // resolve_pass chooses
  tiled,      // image tiles in shared memory, one global atomic per touched tile voxel
  fused,      // one thread per event, a global atomicAdd per walked voxel ([Locans2017]'s scheme)
};
inline constexpr std::array<EnumName<Pass>, 3> kPassNames{
    {{"auto", Pass::automatic}, {"tiled", Pass::tiled}, {"fused", Pass::fused}}};

// The pass a GPU backend runs. Tiled wherever the GPU has on-chip shared memory: the fused
// pass's global atomics hold it at the atomics ceiling. Fused on a software GL renderer
// (llvmpipe), where shared memory is plain memory and walking each event once per tile only
// costs. An explicit choice is kept (tests and the benchmark run both).
inline Pass resolve_pass(Pass requested, bool software_renderer) {
  if (requested != Pass::automatic) return requested;
  return software_renderer ? Pass::fused : Pass::tiled;
}

struct ProjectorOptions {
  int threads = 0;        // cpu: OpenMP threads, 0 = all
  bool portable = false;  // gl-compute: ignore the float-atomic extension (test the CAS fallback)
  Pass pass = Pass::automatic;
  int tile_blocks_per_sm = 2;  // cuda tiled pass: resident blocks per SM, each a share of its shared memory
};

// Per-voxel sums of the analysis: inner sphere (voxel centres within r_in) and shell
// (r_in < distance <= r_out), with the in-image voxel counts of each.
struct SphereSums {
  std::vector<double> inner, shell, n_inner, n_shell;
};

class ListModeOperator {
 public:
  virtual ~ListModeOperator() = default;

  virtual std::string describe() const = 0;
  // Waits for the backend's queued work (timings).
  virtual void synchronize() = 0;

  // Scanner, image box and options; first. Clears events, image and sensitivity.
  virtual void configure(const Scanner& scanner, const ImageBox& box, const ProjectorOptions& options) = 0;
  // The configured scanner's crystal count: event ids are below it. Error before configure().
  virtual std::uint32_t crystal_count() const = 0;
  // The events in acquisition order, copied into the backend once (crystal ids < crystal_count()).
  virtual void set_events(std::span<const Event> events) = 0;
  // The ordered pairs (a, b) with b ≠ a of each a in `first` (ids < crystal_count(), else
  // InputError), b in increasing order: the sensitivity's lines as one event list, as set_events
  // takes it. GPU backends make them where they keep their events instead of receiving them.
  virtual void set_pair_events(std::span<const std::uint32_t> first) {
    const std::uint32_t n = crystal_count();
    for (const std::uint32_t a : first)
      if (a >= n) throw InputError(str_cat("safir: pair crystal ", a, " beyond the scanner's ", n));
    std::vector<Event> pairs;
    pairs.reserve(first.size() * (n - 1));
    for (const std::uint32_t a : first)
      for (std::uint32_t b = 0; b < n; ++b)
        if (b != a) pairs.push_back({a, b});
    set_events(pairs);
  }
  // Events [first, first + count) take part from now on: labelled (0 skip, 1 x, 2 y, 3 z) and
  // sorted by label ([Locans2017] §5.3.1). A frame is a window; code sample 4's halving is a shorter one.
  virtual void set_window(std::size_t first, std::size_t count) = 0;
  // Sorted-order label counts of the window: [skip, x, y, z].
  virtual std::array<std::size_t, 4> label_counts() const = 0;

  virtual void set_image(std::span<const double> f) = 0;
  virtual std::vector<double> image() const = 0;
  // Σ_i a_ij over all crystal pairs (computed by sensitivity.hpp); voxels with s = 0 stay 0.
  virtual void set_sensitivity(std::span<const double> s) = 0;
  // Mean randoms per LOR (n_i of eq. (9)), the same for every LOR.
  virtual void set_randoms_per_lor(double n) = 0;

  // ȳ_l = Σ_j a_lj f_j + n of every window event, in window (acquisition) order; 0 for label 0.
  virtual std::vector<double> forward() = 0;
  // Σ_l a_lj v_l over the window (v in window order; empty = all ones).
  virtual std::vector<double> back(std::span<const double> v) = 0;
  // One ML-EM step, eq. (10): f_j ← f_j / s_j · Σ_l a_lj / ȳ_l, image kept in the backend.
  virtual void iterate() = 0;

  // Analysis sums at every voxel of the current image (eqs. 13–14, docs/safir.md).
  virtual SphereSums sphere_sums(double r_in_mm, double r_out_mm) = 0;
};

}  // namespace tomo::safir
