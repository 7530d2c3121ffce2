// The glpet `cpu` backend: the double-precision reference of the line set (OpenMP over
// voxels; per-thread atlases for the scatter of the forward projection).
#pragma once
#include "compute/glpet/line_set.hpp"
#include "compute/glpet/projector.hpp"

namespace tomo::glpet {

// Visits every hitting line of every sample of voxel (i,j,k) for every pair:
// f(global LOR index, weight / N). The elementary voxel→LOR correspondence of [Toth2010] §II.
template <class F>
void for_each_line(const SystemModel& sys, const Extinction& ext, const std::vector<Vec3>& offsets, int i, int j,
                   int k, F&& f) {
  const double inv_n = 1.0 / double(offsets.size());
  std::size_t pair_offset = 0;
  for (const ModulePair& pair : sys.scanner.pairs) {
    for (const Vec3& off : offsets) {
      const Correspondence c(pair, sample_position(sys.grid, i, j, k, off), sys.R);
      for (int Y = 0; Y < c.height; ++Y)
        for (int X = 0; X < c.width; ++X) {
          const Line L = c.trace(X, Y, &ext, sys.K);
          if (L.hit) f(pair_offset + L.lor, L.weight * inv_n);
        }
    }
    pair_offset += pair.lor_count();
  }
}

class CpuProjector final : public Projector {
 public:
  std::string describe() const override { return "cpu"; }
  void configure(const SystemModel& system, const ProjectorOptions& options = {}) override;
  std::unique_ptr<BackendBuffer> make_image() override;
  std::unique_ptr<BackendBuffer> make_lors() override;
  void forward(const BackendBuffer& x, BackendBuffer& ytilde) override;
  void back(const BackendBuffer& z, BackendBuffer& b) override;
  void back_ratio(const BackendBuffer& y, const BackendBuffer& ytilde, BackendBuffer& b, BackendBuffer* sens) override;
  void sensitivity(BackendBuffer& sens) override;
  void mlem_update(BackendBuffer& x, const BackendBuffer& b, const BackendBuffer& sens) override;
  bool correspondence_image(std::size_t pair, const Vec3& v, std::vector<CorrespondencePixel>& out) override;
  bool restrict_voxels(std::size_t first, std::size_t count) override;

  // A forward or back-projection pass estimated to take longer than this on the cpu (about 2e8
  // line samples per core-second) draws a bar of its own: a GPU-sized grid takes minutes per pass.
  double bar_after_s = 20;

 private:
  SystemModel sys_;
  std::vector<Vec3> offsets_;
  std::size_t first_ = 0, count_ = 0;  // the voxel range (restrict_voxels; count 0: all)
  long begin() const;
  long end() const;
};

}  // namespace tomo::glpet
