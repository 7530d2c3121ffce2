// B through an FDK back-projector (see voxel_back_fdk.hpp).
#include "compute/fdk/voxel_back_fdk.hpp"

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/fdk/ray_model.hpp"

namespace tomo::fdk {

bool every_voxel_in_front(const ConeGeometry& g) {
  for (int n = 0; n < g.views(); ++n) {
    const VoxelView v = voxel_view(g.grid, g.matrices[n], n);
    for (int corner = 0; corner < 8; ++corner) {
      double x[3];
      for (int a = 0; a < 3; ++a)
        x[a] = g.grid.origin_mm[a] + ((corner >> a) & 1 ? g.grid.dims[a] - 1 : 0) * g.grid.voxel_mm[a];
      const double t = v.p[8] * x[0] + v.p[9] * x[1] + v.p[10] * x[2] + v.p[11];
      if (!(t > 0)) return false;
    }
  }
  return true;
}

void VoxelBackThroughFdk::setup(const ConeGeometry& g) {
  g_ = g;
  matrices_.assign(g.views(), Mat34{});
  weights_.assign(g.views() * g.image_size(), 0.0);
  for (int n = 0; n < g.views(); ++n) {
    const VoxelView v = voxel_view(g.grid, g.matrices[n], n);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) matrices_[n].at(r, c) = v.p[4 * r + c];
    double* w = weights_.data() + n * g.image_size();
    for (int j = 0; j < g.sy; ++j)
      for (int i = 0; i < g.sx; ++i)
        w[static_cast<std::size_t>(j) * g.sx + i] =
            pixel_weight(v.du_mm.data(), v.dv_mm.data(), v.d1_mm.data(), v.scale, double(i), double(j));
  }
  covers_ = every_voxel_in_front(g);
}

void VoxelBackThroughFdk::run(std::span<const float> y, std::span<float> x, std::span<const int> views,
                              Interpolation interpolation) {
  if (!covers_) throw Error("fdk voxel back-projection: a voxel lies behind a source; use the cpu's B");
  const std::size_t image = g_.image_size();
  const int count = views.empty() ? g_.views() : static_cast<int>(views.size());
  weighted_.resize(static_cast<std::size_t>(count) * image);
  batch_.resize(count);
  for (int k = 0; k < count; ++k) {
    const int n = views.empty() ? k : views[k];
    batch_[k] = matrices_.at(n);
    const double* w = weights_.data() + static_cast<std::size_t>(n) * image;
    const float* src = y.data() + static_cast<std::size_t>(k) * image;
    float* dst = weighted_.data() + static_cast<std::size_t>(k) * image;
    for (std::size_t p = 0; p < image; ++p) dst[p] = static_cast<float>(w[p] * src[p]);
  }
  if (!bp_) bp_ = BackendRegistry<ConeBeamBackprojector>::instance().create(backend_);
  bp_->configure({.interpolation = interpolation});
  bp_->reset(g_.grid);
  const ProjectionView view{g_.sx, g_.sy, count, batch_.data(), weighted_.data()};
  bp_->prepare(view);
  bp_->backproject(view);
  const VolumeF v = bp_->volume();
  std::copy(v.data.begin(), v.data.end(), x.begin());
}

}  // namespace tomo::fdk
