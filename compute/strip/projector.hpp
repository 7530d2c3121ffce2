// The operator of the strip problem: one list-mode ML-EM iteration of [Bialas2015] eq. (5)
// over events resident in the backend. CPU, CUDA and GL implementations share it and are
// chosen by name through tomo::BackendRegistry<ListModeProjector>.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "compute/core/enum_name.hpp"
#include "compute/strip/geometry.hpp"

namespace tomo::strip {

// CUDA / GL: one event per thread, or one event per warp ([Bialas2015] §4.2).
enum class Granularity { thread, warp };
inline constexpr std::array<EnumName<Granularity>, 2> kGranularityNames{
    {{"thread", Granularity::thread}, {"warp", Granularity::warp}}};

inline std::string to_string(Granularity g) { return std::string(enum_name(kGranularityNames, g)); }

struct ProjectorOptions {
  Granularity granularity = Granularity::warp;  // CUDA / GL
  int threads = 0;                   // CPU: OpenMP threads, 0 = all
  double nsigma = 3.0;               // ellipse cut bC⁻¹b <= nsigma² ([Bialas2015]: 3σ)
  bool portable = false;             // gl-compute: ignore float-atomic and subgroup extensions (test the fallbacks)
};

class ListModeProjector {
 public:
  virtual ~ListModeProjector() = default;

  // The backend's name and, once configured, its device ("cpu: 2 threads", "CUDA 0: NVIDIA H200 ...").
  virtual std::string describe() const = 0;
  // Waits for the backend's queued work (timings). iterate() already returns when done, so this
  // only matters for work a backend queues on its own.
  virtual void synchronize() = 0;

  // Geometry, resolution and options; must come first. Clears events and image.
  virtual void configure(const StripGeometry& geometry, const Resolution& resolution,
                         const ProjectorOptions& options) = 0;
  // Copies the events into the backend (onto the GPU for GPU backends); they stay for all iterations.
  virtual void set_events(std::span<const Event> events) = 0;
  // Sets ρ' (pixel index order of StripGeometry::index).
  virtual void set_image(std::span<const double> rho_prime) = 0;
  // ρ'(l) ← Σ_j P(ẽ_j|l) ρ'(l) / Σ_i P(ẽ_j|i) ρ'(i)   ([Bialas2015] eq. (5)); returns when done.
  virtual void iterate() = 0;
  // The current ρ' (a download for GPU backends).
  virtual std::vector<double> image() const = 0;
  // ρ' ← the ρ' of `from`, a projector of the same backend (OSEM's subsets on projectors of their
  // own), without a trip through the host; false where the backend cannot: the caller then moves
  // image() into set_image().
  virtual bool take_image(ListModeProjector& from) {
    (void)from;
    return false;
  }

  // The system matrix of eq. (7) on its own, over the events of set_events (the image is left
  // as it is). forward: y_e = Σ_i P(ẽ_e|i) x_i over the 3σ ellipse of event e, in event order;
  // back: b_i = Σ_e P(ẽ_e|i) w_e, its transpose.
  virtual std::vector<double> forward(std::span<const double> x) = 0;
  virtual std::vector<double> back(std::span<const double> w) = 0;
};

}  // namespace tomo::strip
