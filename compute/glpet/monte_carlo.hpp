// Independent Monte-Carlo simulator of glpet measurements (never uses the projector):
// photon pairs emitted from an activity source with isotropic directions, both module
// planes intersected analytically, kept with probability exp(−∫σ_t) from an exact
// voxel traversal, counted per LOR; optional Poisson scaling to a total count.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "compute/core/enum_name.hpp"
#include "compute/multi/process_share.hpp"

#include "compute/glpet/geometry.hpp"
#include "compute/glpet/mc_history.hpp"

namespace tomo::glpet {

// Where photon pairs are born, as the shared history reads it (mc_history.hpp).
class EmissionSource {
 public:
  virtual ~EmissionSource() = default;
  // Points into this object: valid while it lives.
  virtual mc::Source view() const = 0;
};

class PointSource final : public EmissionSource {
 public:
  explicit PointSource(const Vec3& p) : p_(p) {}
  mc::Source view() const override;

 private:
  Vec3 p_;
};

// Voxel chosen with probability ∝ activity, position uniform inside it.
class VoxelSource final : public EmissionSource {
 public:
  explicit VoxelSource(const VolumeF& activity);  // InputError when negative/NaN or all zero
  mc::Source view() const override;
  double total() const { return total_; }
  // The voxel of cumulative activity u in [0, total()): the first with cdf > u.
  std::size_t voxel_of(double u) const;

 private:
  Grid3 grid_;
  std::vector<double> cdf_;  // cumulative activity over voxels with activity > 0
  std::vector<std::size_t> guide_;
  std::vector<std::size_t> index_;
  double total_ = 0;
};

// Upper bound of McOptions::histories: LOR histograms are 32-bit (and 4·10⁹ pairs already take
// minutes on 16 cores; raise statistics with total_counts instead).
inline constexpr std::int64_t kMaxHistories = 4'000'000'000;

struct McOptions {
  std::int64_t histories = 1'000'000;  // emitted photon pairs, at most kMaxHistories
  std::uint64_t seed = 1;
  double total_counts = 0;  // > 0: scale the histogram to this total and draw Poisson counts
};

struct McResult {
  std::vector<float> counts;  // per LOR, atlases concatenated (Scanner::lor_offset)
  std::int64_t histories = 0;
  std::int64_t geometric = 0;  // pairs whose line hits both modules of some pair
  std::int64_t detected = 0;   // ... and survived attenuation (= Σ histogram)
  // counts = scale × (expected counts of `histories` emissions): multiply emissions by it.
  double scale = 1.0;
};

// Where the histories run: this process's cores (OpenMP), or CUDA devices — `gpus` as the --gpus
// text (empty: the current device; under mpirun this process's devices), the histories' chunks
// dealt to them in turn. Both draw the same numbers (mc_history.hpp).
enum class McDevice { automatic, host, cuda };
inline constexpr std::array<EnumName<McDevice>, 3> kMcDeviceNames{
    {{"auto", McDevice::automatic}, {"host", McDevice::host}, {"cuda", McDevice::cuda}}};
struct McPlace {
  McDevice device = McDevice::host;  // automatic is resolved before (resolve_mc_device)
  std::string gpus;
};
// auto: cuda when the reconstruction's backend is cuda, else host.
McDevice resolve_mc_device(McDevice asked, const std::string& backend);

// Deterministic for a given seed, whatever the number of threads, devices or processes: history
// h draws CounterRng stream h; chunks of kMcChunk histories are the unit of the process split,
// of progress and of interruption.
inline constexpr std::int64_t kMcChunk = 1 << 16;
McResult simulate(const Scanner& scanner, const VolumeF& sigma_t, const EmissionSource& source,
                  const McOptions& options, const McPlace& place = {});

// The scanner, source and σ_t as the shared history reads them; scene and source point into
// this object and the EmissionSource (not copyable, so the pointers stay valid).
struct McTables {
  std::vector<mc::Module> modules;
  std::vector<mc::Pair> pairs;
  std::vector<float> sigma;  // empty: no attenuation
  mc::Scene scene{};
  mc::Source source{};
  std::size_t lor_count = 0;
  McTables() = default;
  McTables(const McTables&) = delete;
  McTables& operator=(const McTables&) = delete;
};
void make_tables(McTables& t, const Scanner& scanner, const VolumeF& sigma_t, const EmissionSource& source);

// One process's share of the histories: its chunks' LOR histogram and pair counts.
struct McTally {
  std::vector<double> hist;
  std::int64_t geometric = 0, detected = 0;
};
// The refusal every generator makes first: histories outside [1, kMaxHistories] (InputError).
void check_histories(const McOptions& options);

// A generator of this process's share of the histories (the chunks `share` names) on a backend:
// "cpu" (this process's cores, OpenMP; compute/glpet/cpu_mc_generator.cpp, the reference) and
// "cuda" (cuda/glpet/cuda_mc_generator.cpp: the chunks dealt to the devices of `gpus`, the --gpus
// text, empty: the current device). Both draw the same numbers (mc_history.hpp).
class McGenerator {
 public:
  virtual ~McGenerator() = default;
  virtual McTally tally(const McTables& t, const McOptions& options, const std::string& gpus,
                        const ProcessShare& share) = 0;
  virtual std::string describe() const = 0;
  // tally() returns the histogram on the host: nothing is left queued to wait for.
  virtual void synchronize() {}
};

// The cpu generator's work: the share's histories on this process's cores (`gpus` is not used).
McTally tally_on_host(const McTables& t, const McOptions& options, const ProcessShare& share);

// Whether this binary has a "cuda" McGenerator (a build with CUDA; a device may still be absent).
bool cuda_generator_built();

}  // namespace tomo::glpet
