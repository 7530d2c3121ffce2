// Independent Monte-Carlo simulator of glpet measurements (never uses the projector):
// photon pairs emitted from an activity source with isotropic directions, both module
// planes intersected analytically, kept with probability exp(−∫σ_t) from an exact
// voxel traversal, counted per LOR; optional Poisson scaling to a total count.
#pragma once
#include <cstdint>
#include <vector>

#include "compute/glpet/geometry.hpp"

namespace tomo::glpet {

// xoshiro256** seeded through splitmix64: small, fast, reproducible per chunk.
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next();
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)

 private:
  std::uint64_t s_[4];
};

// Where photon pairs are born.
class EmissionSource {
 public:
  virtual ~EmissionSource() = default;
  virtual Vec3 sample(Rng& rng) const = 0;
};

class PointSource final : public EmissionSource {
 public:
  explicit PointSource(const Vec3& p) : p_(p) {}
  Vec3 sample(Rng&) const override { return p_; }

 private:
  Vec3 p_;
};

// Voxel chosen with probability ∝ activity, position uniform inside it.
class VoxelSource final : public EmissionSource {
 public:
  explicit VoxelSource(const VolumeF& activity);  // InputError when negative/NaN or all zero
  Vec3 sample(Rng& rng) const override;
  double total() const { return total_; }

 private:
  std::size_t find(double u) const;
  Grid3 grid_;
  std::vector<double> cdf_;  // cumulative activity over voxels with activity > 0
  std::vector<std::size_t> guide_;
  std::vector<std::size_t> index_;
  double total_ = 0;
};

// Upper bound of McOptions::histories: per-thread LOR histograms are 32-bit (and 4·10⁹ pairs
// already take minutes on 16 cores; raise statistics with total_counts instead).
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

// Deterministic for a given seed, whatever the number of threads (fixed chunks).
McResult simulate(const Scanner& scanner, const VolumeF& sigma_t, const EmissionSource& source,
                  const McOptions& options);

}  // namespace tomo::glpet
