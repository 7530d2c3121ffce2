// The GL programs of the safir gl-compute backend (gl_compute_projector.cpp) with their uniforms:
// one struct per compute shader of shaders/safir/, and the modes those shaders are built in.
#pragma once
#include <string>

#include "renderer/gl/objects.hpp"
#include "renderer/gl/shader_library.hpp"
#include "renderer/gl/uniform.hpp"
#include "renderer/safir/bindings.hpp"

namespace tomo::safir::gl_passes {

constexpr int kMaxGroups = 65535;

// The MODE of project.comp.glsl and tiled.comp.glsl (tiled: Forward and Back only).
enum class PassMode : int { Forward = binding::kModeForward, Back = binding::kModeBack, Mlem = binding::kModeMlem };
// The v_l that tiled.comp.glsl's back mode spreads (u_back_mode).
enum class BackWeights : int { Ones = binding::kBackOnes, Values = binding::kBackValues, Ratio = binding::kBackRatio };

inline gl::Defines with_mode(gl::Defines d, PassMode mode) {
  d.emplace_back("MODE", std::to_string(int(mode)));
  return d;
}

// project.comp.glsl: one invocation per event (raytrace.glsl's walk).
struct EventPass {
  const gl::Program& program;
  gl::Uniform<gl::Vec3f> origin;
  gl::Uniform<float> voxel, md, randoms;
  gl::Uniform<gl::Vec3i> n;
  gl::Uniform<unsigned> count;
  explicit EventPass(const gl::Program& p)
      : program(p), origin(p, "u_origin"), voxel(p, "u_voxel"), md(p, "u_md"), randoms(p, "u_randoms"), n(p, "u_n"),
        count(p, "u_count") {}
};

// tiled.comp.glsl: one tile of the image and one chunk of one label's events per group; the
// per-label uniforms are arrays of 3 (labels x, y, z).
struct TiledPass {
  const gl::Program& program;
  gl::Uniform<gl::Vec3i> n, ext, tiles;
  gl::Uniform<float> md, randoms;
  gl::Uniform<int> back_mode, blocks;
  gl::Uniform<unsigned> begin, end, chunk;
  explicit TiledPass(const gl::Program& p)
      : program(p), n(p, "u_n"), ext(p, "u_ext"), tiles(p, "u_tiles"), md(p, "u_md"), randoms(p, "u_randoms"),
        back_mode(p, "u_back_mode"), blocks(p, "u_blocks"), begin(p, "u_begin"), end(p, "u_end"), chunk(p, "u_chunk") {}
};

// update.comp.glsl: f ← f · c / s, c ← 0 and values[0, u_values) ← 0.
struct UpdatePass {
  const gl::Program& program;
  gl::Uniform<unsigned> voxels, values;
  explicit UpdatePass(const gl::Program& p) : program(p), voxels(p, "u_voxels"), values(p, "u_values") {}
};

// spheres.comp.glsl: sphere and shell sums per voxel.
struct SpheresPass {
  const gl::Program& program;
  gl::Uniform<gl::Vec3i> n;
  gl::Uniform<int> offsets;
  explicit SpheresPass(const gl::Program& p) : program(p), n(p, "u_n"), offsets(p, "u_offsets") {}
};

}  // namespace tomo::safir::gl_passes
