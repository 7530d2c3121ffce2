// `gl-compute` backend of the demo problem: a compute shader writes each z-slab
// into an r32f 3D texture (imageStore); the host reads the texture once at the end.
#include "compute/core/registry.hpp"
#include "compute/demo/voxelizer.hpp"
#include "renderer/demo/bindings.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/grid_block.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/uniform.hpp"

namespace tomo::demo {
namespace {

// voxelize.comp.glsl: one z-slab of the phantom's mean values.
struct VoxelizePass {
  const gl::Program& program;
  gl::Uniform<int> z0, slab, supersampling, shape_count;
  explicit VoxelizePass(const gl::Program& p)
      : program(p), z0(p, "u_z0"), slab(p, "u_slab"), supersampling(p, "u_supersampling"),
        shape_count(p, "u_shape_count") {}
};

class GlVoxelizer final : public Voxelizer {
 public:
  std::string describe() const override { return gl::shared_context().info().summary(); }
  void synchronize() override {
    gl::shared_context().make_current();
    glFinish();
  }

  VolumeF voxelize(const Phantom& phantom, const Grid3& grid, int s, int slab,
                   const std::function<void(int)>& on_slab) override {
    gl::shared_context().make_current();
    const VoxelizePass& pass = gl::shaders().get_compute<VoxelizePass>("demo/voxelize.comp.glsl");
    auto packed = pack_shapes(phantom);
    gl::Buffer shapes = gl::Buffer::from(packed);
    gl::Texture volume = gl::Texture::create_3d(GL_R32F, grid.dims[0], grid.dims[1], grid.dims[2]);

    shapes.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kShapes);
    TOMO_GL_CHECK(glBindImageTexture(binding::kVolume, volume.id(), 0, GL_TRUE, 0, GL_WRITE_ONLY, GL_R32F));
    gl::GridBlock grid_block;
    grid_block.bind(grid);
    pass.supersampling.set(s);
    pass.shape_count.set(static_cast<int>(phantom.shapes.size()));
    for (int z0 = 0; z0 < grid.dims[2]; z0 += slab) {
      int n = std::min(slab, grid.dims[2] - z0);
      pass.z0.set(z0);
      pass.slab.set(n);
      pass.program.dispatch(grid.dims[0], grid.dims[1], n);
      glFinish();  // slabs are the progress unit; a real pass would not wait
      on_slab(z0 + n);
    }
    TOMO_GL_CHECK(glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT));
    VolumeF out(grid);
    out.data = volume.read_float(1);
    return out;
  }
};

const BackendRegistrar<Voxelizer> kRegisterGlCompute({"gl-compute", kPriorityGlCompute, [] { return gl::availability({}); },
                                          [] { return std::make_unique<GlVoxelizer>(); }});

}  // namespace
}  // namespace tomo::demo
