// Iterative cone-beam reconstruction from line integrals with a ConeBeamProjector pair (A, Aᵀ):
// SIRT, OS-SART, CGLS and total-variation regularised least squares (FISTA-TV in SIRT's
// metric), the algorithms
// where FDK fails (few views, a limited arc, noise). Backend-free: every backend's projector works.
#pragma once
#include <array>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "compute/core/enum_name.hpp"
#include "compute/core/volume.hpp"
#include "compute/fdk/forward_projector.hpp"

namespace tomo::fdk {

// fdk.algorithm: fdk filters and back-projects; the others iterate with the projector pair.
enum class Algorithm { fdk, sirt, cgls, os_sart, tv };
inline constexpr std::array<EnumName<Algorithm>, 5> kAlgorithmNames{{{"fdk", Algorithm::fdk},
                                                                      {"sirt", Algorithm::sirt},
                                                                      {"cgls", Algorithm::cgls},
                                                                      {"os-sart", Algorithm::os_sart},
                                                                      {"tv", Algorithm::tv}}};
inline std::string to_string(Algorithm a) { return std::string(enum_name(kAlgorithmNames, a)); }

// fdk.cgls.backprojector: CGLS's transpose. `exact` is Aᵀ (a matched pair: CGLS's theory holds);
// `voxel` is B ≈ Aᵀ, as ASTRA's CGLS3D_CUDA uses its voxel-driven BP3D: a gather, as fast as
// SIRT's step, but the normal equations BAx = Bb are no longer symmetric, so the search
// directions are only nearly conjugate (see docs/fdk.md for the effect on convergence).
enum class CglsBack { exact, voxel };
inline constexpr std::array<EnumName<CglsBack>, 2> kCglsBackNames{
    {{"exact", CglsBack::exact}, {"voxel", CglsBack::voxel}}};
inline std::string to_string(CglsBack b) { return std::string(enum_name(kCglsBackNames, b)); }

struct IterativeOptions {
  Algorithm algorithm = Algorithm::sirt;
  int iterations = 50;       // outer iterations (OS-SART: passes over all subsets)
  int subsets = 10;          // OS-SART: views split into this many interleaved subsets
  double tv_lambda = 2e-5;   // TV weight in the volume's units (mm⁻¹), see fista_tv
  int tv_inner = 20;         // iterations of the TV proximal step (warm-started)
  bool nonnegative = true;   // sirt, os-sart, tv: clamp at 0 after every update; cgls ignores it
  CglsBack cgls_back = CglsBack::exact;  // cgls: Aᵀ or B
  // fdk.initial_image: the start (grid order, x fastest); empty: zeros. The algorithms carry
  // only the image between iterations where they can: SIRT and OS-SART resumed from their
  // image after k iterations take the same steps as straight through; CGLS restarts its search
  // directions (r = b − Ax₀) and FISTA-TV its momentum (t = 1).
  std::vector<float> initial{};
  // fdk.save_iterations (sorted): on_image gets the image after each of these iterations.
  std::vector<int> save_iterations{};
  std::function<void(int iteration, std::vector<float> image)> on_image{};
};

// Called after each outer iteration with its number (1-based) and ‖Ax − b‖ / ‖b‖ where the
// algorithm has it at no extra cost (else NaN).
using IterationCallback = std::function<void(int iteration, double relative_residual)>;

// A projector that runs the algorithms with volume and projections on its own device (no host
// round trip of the arrays per iteration) implements this too; reconstruct_iterative hands it
// the work. It runs the same steps (iterative_steps.hpp) as the host path.
class ResidentIterative {
 public:
  virtual ~ResidentIterative() = default;
  virtual VolumeF reconstruct_resident(const ConeGeometry& g, std::span<const float> line_integrals,
                                       const IterativeOptions& options, const IterationCallback& on_iteration) = 0;
};

// Reconstructs from `line_integrals` (n-major, view n at n·sx·sy, as the projector's geometry)
// with `A` already set up. Starts from zero. Returns the volume on the projector's grid.
VolumeF reconstruct_iterative(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> line_integrals,
                              const IterativeOptions& options, const IterationCallback& on_iteration = {});

// The pieces, for tests and other algorithms.
VolumeF sirt(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> b, const IterativeOptions& o,
             const IterationCallback& cb);
VolumeF os_sart(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> b, const IterativeOptions& o,
                const IterationCallback& cb);
VolumeF cgls(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> b, const IterativeOptions& o,
             const IterationCallback& cb);
VolumeF fista_tv(ConeBeamProjector& A, const ConeGeometry& g, std::span<const float> b, const IterativeOptions& o,
                 const IterationCallback& cb);

// argmin_x ½‖x − z‖² + mu·TV(x) (isotropic, forward differences, x ≥ 0 when `nonnegative`) by
// the fast gradient projection on the dual ([Beck2009] eq. (4.9) with the 3D constant 1/12);
// `dual` (3 per voxel) is the warm start and is updated.
void tv_prox(const Grid3& grid, std::span<const float> z, double mu, int iterations, bool nonnegative,
             std::vector<float>& dual, std::span<float> x);

}  // namespace tomo::fdk
