// The glpet `cpu` backend: the double-precision reference of the line set (OpenMP over
// voxels; per-thread atlases for the scatter of the forward projection).
#pragma once
#include "glpet/line_set.hpp"
#include "glpet/projector.hpp"

namespace tomo::glpet {

// Visits every hitting line of every sample of voxel (i,j,k) for every pair:
// f(global LOR index, weight / N). The elementary voxel→LOR correspondence of seed §II.
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
  std::string backend() const override { return "cpu"; }
  void configure(const SystemModel& system) override;
  std::unique_ptr<DeviceBuffer> make_image() override;
  std::unique_ptr<DeviceBuffer> make_lors() override;
  void forward(const DeviceBuffer& x, DeviceBuffer& ytilde) override;
  void back(const DeviceBuffer& z, DeviceBuffer& b) override;
  void back_ratio(const DeviceBuffer& y, const DeviceBuffer& ytilde, DeviceBuffer& b, DeviceBuffer* sens) override;
  void sensitivity(DeviceBuffer& sens) override;
  void mlem_update(DeviceBuffer& x, const DeviceBuffer& b, const DeviceBuffer& sens) override;
  bool correspondence_image(std::size_t pair, const Vec3& v, std::vector<CorrespondencePixel>& out) override;

 private:
  SystemModel sys_;
  std::vector<Vec3> offsets_;
};

}  // namespace tomo::glpet
