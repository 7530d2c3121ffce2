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
#include "renderer/glpet/gl_raster_passes.hpp"

namespace tomo::glpet {

// How pass 1 reads σ_t along a line.
enum class SigmaFetch {
  Trilinear,  // fp32 trilinear from 8 texelFetch: the contract every backend meets (default)
  Hardware,   // [Toth2010]'s one hardware-filtered fetch: faster, fixed-point filter weights
};

// Fixed for the projector's life; the registered `gl` backend uses the defaults.
struct GlRasterOptions {
  // Layers (voxel samples) per batch; 0: as many as a memory budget allows (≤ 2048).
  int batch_layers = 0;
  SigmaFetch sigma_fetch = SigmaFetch::Trilinear;
  // Told of every pass (not owned; outlives the projector); null: none.
  RasterPassObserver* observer = nullptr;
};

class GlRasterProjector final : public Projector {
 public:
  explicit GlRasterProjector(const GlRasterOptions& options = {});
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
  bool subset_update(BackendBuffer& x, const BackendBuffer& b, const BackendBuffer& sens) override;
  bool correspondence_image(std::size_t pair, const Vec3& v, std::vector<CorrespondencePixel>& out) override;
  void synchronize() override;
  bool restrict_voxels(std::size_t first, std::size_t count) override;
  // Pass 1 for one sample: its correspondence image in layer 0 of the returned RGBA32F
  // array texture, left on the GPU (the viewer draws it); valid until the next pass.
  const gl::Texture& draw_correspondence_image(std::size_t pair, const Vec3& v);


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
  // Runs `f`, the GL commands of `pass`, between the observer's begin() and end().
  template <class F>
  void observed(RasterPassKind pass, F&& f);

  SystemModel sys_;
  bool sigma_empty_ = true;
  gl::Texture sigma_;
  std::vector<std::unique_ptr<PairState>> pairs_;
  std::unique_ptr<gl::HalvingReducer> reducer_;
  gl::Framebuffer fbo_;
  gl::VertexArray vao_;
  gl::Buffer dummy_;
  gl::GridBlock grid_block_;  // common/grid.glsl of the correspondence pass
  GlRasterOptions options_;
};

}  // namespace tomo::glpet
