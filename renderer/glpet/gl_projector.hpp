// The glpet `gl` backend: the raster passes of [Toth2010] (shaders/glpet/*.{vert,frag}.glsl).
// (1) correspondence images of a batch of voxel samples as layers of an RGBA32F 2D-array
// target (instanced, gl_Layer from the vertex shader); (2) forward projection by additively
// blended points into one R32F LOR atlas per pair; (3) back-projection by a terms pass and
// the halving mip-reduction of all layers at once, then a per-voxel collect.
#pragma once
#include <memory>
#include <vector>

#include "renderer/gl/grid_block.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/reduction.hpp"
#include "renderer/glpet/gl_common.hpp"

namespace tomo::glpet {

// Device time of each raster pass, summed over a call (GL_TIME_ELAPSED queries); zero
// until timing is switched on.
struct RasterPassTimes {
  double correspondence_ms = 0, atlas_ms = 0, terms_ms = 0, reduction_ms = 0, collect_ms = 0;
  long layers = 0;  // voxel samples rendered
};

class GlRasterProjector final : public Projector {
 public:
  GlRasterProjector();
  ~GlRasterProjector() override;
  std::string describe() const override { return "gl"; }
  void configure(const SystemModel& system, const ProjectorOptions& options = {}) override;
  std::unique_ptr<BackendBuffer> make_image() override;
  std::unique_ptr<BackendBuffer> make_lors() override;
  void forward(const BackendBuffer& x, BackendBuffer& ytilde) override;
  void back(const BackendBuffer& z, BackendBuffer& b) override;
  void back_ratio(const BackendBuffer& y, const BackendBuffer& ytilde, BackendBuffer& b, BackendBuffer* sens) override;
  void sensitivity(BackendBuffer& sens) override;
  void mlem_update(BackendBuffer& x, const BackendBuffer& b, const BackendBuffer& sens) override;
  bool correspondence_image(std::size_t pair, const Vec3& v, std::vector<CorrespondencePixel>& out) override;
  void synchronize() override;
  bool restrict_voxels(std::size_t first, std::size_t count) override;
  // Pass 1 for one sample: its correspondence image in layer 0 of the returned RGBA32F
  // array texture, left on the GPU (the viewer draws it); valid until the next pass.
  const gl::Texture& draw_correspondence_image(std::size_t pair, const Vec3& v);

  // Layers (voxel samples) per batch; 0 = automatic (memory budget, ≤ 2048). For benches.
  void set_batch_layers(int layers) { batch_override_ = layers; }
  int batch_layers(std::size_t pair) const;
  // σ_t by one hardware-filtered fetch per march sample ([Toth2010]'s way, faster) instead
  // of the contract's fp32 trilinear from 8 texelFetch (default). For benches.
  void set_hardware_filter(bool on) { hardware_filter_ = on; }
  // Per-pass device timing (adds a query wait per pass: for benches, not for production).
  void set_timing(bool on) { timing_ = on; }
  const RasterPassTimes& times() const { return times_; }
  void reset_times() { times_ = {}; }

 private:
  // Records (voxel samples) the passes process: [range_first_, range_end_) of nrec.
  int record_begin() const;
  int record_end() const;
  std::size_t range_first_ = 0, range_count_ = 0;
  struct PairState;
  std::unique_ptr<PairState> make_pair_state(const ModulePair& pair) const;
  void gather(GatherMode mode, const GlBuffer* z, const GlBuffer* t, GlBuffer* b, GlBuffer* s);
  void draw_correspondences(PairState& ps, std::size_t pair, int first_record, int layers, const GlBuffer* skip_x,
                            const gl::Buffer& cams);
  template <class F>
  void timed(double RasterPassTimes::*slot, F&& f);

  SystemModel sys_;
  bool sigma_empty_ = true;
  gl::Texture sigma_;
  std::vector<std::unique_ptr<PairState>> pairs_;
  std::unique_ptr<gl::HalvingReducer> reducer_;
  gl::Framebuffer fbo_;
  gl::VertexArray vao_;
  gl::Buffer dummy_;
  gl::GridBlock grid_block_;  // common/grid.glsl of the correspondence pass
  int batch_override_ = 0;
  bool timing_ = false;
  bool hardware_filter_ = false;
  RasterPassTimes times_;
};

}  // namespace tomo::glpet
