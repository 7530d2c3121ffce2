// The operators of the oat problem ([Wang2013]), one implementation per backend chosen by name
// through tomo::BackendRegistry<Model> / BackendRegistry<Fbp>: the imaging model H (forward
// u = Hα and its matched adjoint Hᵀ) and the fused filtered back-projection. Host vectors are
// double so the cpu reference meets the 1e-12 adjoint identity; GPU backends convert to float.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "compute/core/enum_name.hpp"
#include "compute/oat/geometry.hpp"

namespace tomo::oat {

// interpolation: H_int = H_eir·D·H_srt (trilinear voxels, spherical shells cut into patches).
// sph: the spherical-voxel model in the temporal-frequency domain (sph_model.hpp, its own
// registry: complex data); a Model backend asked for it throws UnavailableError from configure().
enum class ModelKind { interpolation, sph };
inline constexpr std::array<EnumName<ModelKind>, 2> kModelKindNames{
    {{"interpolation", ModelKind::interpolation}, {"sph", ModelKind::sph}}};

// GPU trilinear fetches: hardware = the texture unit (8-bit weights, fast, adjoint not exactly
// matched); exact = eight point fetches with fp32 weights (matches cpu, adjoint to fp32).
// cpu ignores it (always exact, double).
enum class Interpolation { hardware, exact };
inline constexpr std::array<EnumName<Interpolation>, 2> kInterpolationNames{
    {{"hardware", Interpolation::hardware}, {"exact", Interpolation::exact}}};

inline std::string to_string(ModelKind k) { return std::string(enum_name(kModelKindNames, k)); }
inline std::string to_string(Interpolation i) { return std::string(enum_name(kInterpolationNames, i)); }

struct ModelOptions {
  ModelKind kind = ModelKind::interpolation;
  Interpolation interpolation = Interpolation::exact;
  int threads = 0;            // cpu: OpenMP threads, 0 = all
  double patch_factor = 1.0;  // H_srt patch edge = patch_factor·Δs ([Wang2013]: ≈ Δs)
  bool portable = false;      // gl-compute: ignore the float-atomic extension (test the fallback)
  // cuda: H_intᵀ by the fixed-point gather, the same bits on every run, instead of the symmetric
  // scatter (float atomics: the same image to float rounding, about 2.4× faster where the array
  // has the quarter-turn symmetry). cpu gives the same bits anyway (with as many threads);
  // gl-compute refuses it.
  bool reproducible = false;
};
// What gl-compute (and the run, before any work) says when asked for `reproducible`.
inline constexpr const char* kReproducibleOnGlCompute =
    "oat.model.reproducible: gl-compute's H_intT adds floats in an order that varies from run to run; run it on "
    "cuda or cpu, or set oat.model.reproducible = false";

class Model {
 public:
  virtual ~Model() = default;
  // Backend and device ("cpu: 2 OpenMP threads, double", "CUDA 0: NVIDIA H200").
  virtual std::string describe() const = 0;
  // Must come first; uploads what the backend keeps (geometry, EIR taps).
  virtual void configure(const OatGeometry& geometry, const ModelOptions& options) = 0;
  // u = Hα: alpha has grid.count() voxels (x fastest), pressure has Q·K samples (u[q·K + k]).
  virtual void forward(std::span<const double> alpha, std::span<double> pressure) = 0;
  // α = Hᵀu, the exact transpose of forward() (cpu: to rounding; GPU exact: to fp32).
  virtual void adjoint(std::span<const double> pressure, std::span<double> alpha) = 0;
  // Waits for queued device work (timing).
  virtual void synchronize() {}
};

// How a GPU FBP reads its data table (the same exact formula every way): automatic = the
// backend's fastest where it fits; texture = one texture fetch per voxel-transducer update; ldg =
// cuda's read-only data cache; shared = per-block time windows staged in shared memory (cuda: its
// deferred kernel). cpu ignores it; a backend without the way asked for throws UnavailableError
// from configure().
enum class FbpRead { automatic, texture, ldg, shared };
inline constexpr std::array<EnumName<FbpRead>, 4> kFbpReadNames{{{"auto", FbpRead::automatic},
                                                                 {"texture", FbpRead::texture},
                                                                 {"ldg", FbpRead::ldg},
                                                                 {"shared", FbpRead::shared}}};

struct FbpOptions {
  Interpolation interpolation = Interpolation::exact;  // GPU: texture-unit or fp32 linear in time
  int threads = 0;                                     // cpu: OpenMP threads, 0 = all
  FbpRead read = FbpRead::automatic;                   // GPU: see FbpRead
};

// The fused discrete FBP ([Wang2013]): one voxel from two samples per transducer.
class Fbp {
 public:
  virtual ~Fbp() = default;
  virtual std::string describe() const = 0;
  virtual void configure(const OatGeometry& geometry, const FbpOptions& options) = 0;
  // Pressure p[q·K + k] already free of the EIR (see deconvolve_eir) → image (grid order).
  virtual void reconstruct(std::span<const double> pressure, std::span<double> image) = 0;
  virtual void synchronize() {}
};

}  // namespace tomo::oat
