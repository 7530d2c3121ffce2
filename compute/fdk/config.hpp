// Reads section [fdk] of a scene once: the volume, the source of the projections (simulated, a
// RabbitCT file, a raw stack), the C-arm, the phantom, the filter and back-projector options, the
// outputs and the small problem of `crosscheck`. Keys are listed in docs/fdk.md.
#pragma once
#include <array>
#include <filesystem>
#include <string>

#include "compute/core/enum_name.hpp"
#include "compute/core/phantom.hpp"
#include "compute/core/volume.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/filter.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/iterative.hpp"
#include "compute/fdk/raw_input.hpp"

namespace tomo {
class Scene;
}

namespace tomo::fdk {

// Where the projections come from: simulated, a RabbitCT file (pre-processed), a raw stack.
enum class Source { simulated, rabbitct, raw };

// fdk.reference: also run the cpu back-projector and report the RabbitCT metric against it.
enum class ReferenceRun { none, cpu };
inline constexpr std::array<EnumName<ReferenceRun>, 2> kReferenceRunNames{
    {{"none", ReferenceRun::none}, {"cpu", ReferenceRun::cpu}}};

// [fdk.crosscheck]: the small problem every backend is compared with cpu on.
struct CrosscheckSetup {
  int L = 32;
  CArmGeometry geometry;  // 62 projections of 156×120 at 2.56 mm unless the scene says otherwise
  double tolerance = 1e-4, hardware_tolerance = 5e-3;
};

struct FdkConfig {
  int L = 128;
  double volume_mm = 256.0;
  Grid3 grid;  // rabbit_grid(L, volume_mm)
  Source source = Source::simulated;
  std::filesystem::path input;             // fdk.input (a RabbitCT file), resolved; "" when none
  std::filesystem::path reference_volume;  // fdk.reference_volume, resolved; "" when none
  RawOptions raw;                          // [fdk.raw]
  CArmGeometry geometry;                   // [fdk.geometry]: validated even when a file is read
  double mu = 0.02;                        // the phantom's skull (mm⁻¹)
  Phantom phantom;                         // [[fdk.phantom]] or the 3D Shepp–Logan head
  std::array<float, 2> hu_scale{50000.0f, 0.0f};  // fdk.hu_scale (not with a RabbitCT file: its own)
  std::array<double, 2> window{0.0, 0.0};         // fdk.display_window (mm⁻¹)
  FilterOptions filter;
  std::string filter_backend = "auto";  // fdk.filter.backend, resolved against the back-projector
  BackprojectorOptions options;
  int batch = 16;
  bool write_raw = false, write_rct = false;
  ReferenceRun reference = ReferenceRun::none;
  CrosscheckSetup crosscheck;
  // fdk.algorithm (fdk unless the scene says otherwise), fdk.iterations, fdk.subsets,
  // fdk.tv.lambda, fdk.nonnegative: read whichever algorithm runs.
  Algorithm algorithm = Algorithm::fdk;
  IterativeOptions iterative;
  ProjectorOptions projector;  // fdk.projector.step_voxels

  bool simulated() const { return source == Source::simulated; }

  // Reads and validates every key of [fdk], whichever source runs; InputError naming the key.
  static FdkConfig from_scene(const Scene& s);
};

// The phantom of [[fdk.phantom]] (or Shepp–Logan scaled by fdk.shepp_logan_scale_mm) and fdk.mu.
Phantom phantom_from_scene(const Scene& s, double& mu);

}  // namespace tomo::fdk
