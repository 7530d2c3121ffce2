// The turn-symmetric candidates of B (see back_voxel_sym.hpp).
#include "bench/cuda/fdk/back_voxel_sym.hpp"

#include <cuda_runtime.h>

#include "cuda/core/check.hpp"
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/surface.hpp"
#include "cuda/core/texture.hpp"
#include "cuda/fdk/voxel_back_turn.cuh"

namespace tomo::bench::fdk_b {
namespace {

namespace cd = tomo::fdk::cuda_detail;

// The fp32 texel store the bench times against the product's half floats (cd::HalfTexelStore):
// RG32F / RGBA32F texels, 8 or 16 bytes, which the texture unit filters at half or quarter rate.
struct F32TexelStore {
  __device__ __forceinline__ void operator()(cudaSurfaceObject_t surf, int i, int j, int n, const float (&v)[2]) const {
    surf2DLayeredwrite(make_float2(v[0], v[1]), surf, i * 8, j, n);
  }
  __device__ __forceinline__ void operator()(cudaSurfaceObject_t surf, int i, int j, int n, const float (&v)[4]) const {
    surf2DLayeredwrite(make_float4(v[0], v[1], v[2], v[3]), surf, i * 16, j, n);
  }
};

// The k-channel layered array (N/k layers), its surface and linear-filtered texture; remade when
// the stack's size or the format changes, released by release_sym.
struct Packed {
  cuda::CudaArray array;
  cuda::SurfaceObject surf;
  cuda::TextureObject tex;
  cuda::DeviceBuffer<unsigned> max_bits{1};  // max |y| of the call (the packing's power of two)
  int sx = 0, sy = 0, layers = 0, channels = 0;
  bool half = false;
};
Packed g_packed;

void ensure(int sx, int sy, int layers, int channels, bool half) {
  Packed& p = g_packed;
  if (p.array.get() && p.sx == sx && p.sy == sy && p.layers == layers && p.channels == channels && p.half == half)
    return;
  release_sym();
  const cudaChannelFormatDesc desc = channels == 2 ? (half ? cudaCreateChannelDescHalf2() : cudaCreateChannelDesc<float2>())
                                                   : (half ? cudaCreateChannelDescHalf4() : cudaCreateChannelDesc<float4>());
  p.array = cuda::CudaArray(desc, {std::size_t(sx), std::size_t(sy), std::size_t(layers)},
                            cudaArrayLayered | cudaArraySurfaceLoadStore);
  p.surf = cuda::SurfaceObject(p.array);
  p.tex = cuda::TextureObject(p.array, cuda::TextureOptions::linear_clamp().with_address(cudaAddressModeBorder));
  p.sx = sx;
  p.sy = sy;
  p.layers = layers;
  p.channels = channels;
  p.half = half;
}

}  // namespace

void release_sym() { g_packed = Packed{}; }

bool run_sym(const Variant& v, const Inputs& in, const Args& a, cudaStream_t s) {
  const bool half = v.texel == Texel::half;
  if (v.sym == 2 && !in.half_turn) return false;
  if (v.sym == 4 && in.quarter_sense == 0) return false;
  if ((v.sym != 2 && v.sym != 4) || (v.texel != Texel::half && v.texel != Texel::f32)) return false;
  const bool inv = v.zmode == ZMode::invariant;
  if (inv && !z_invariant(in.mats, in.views)) return false;
  ensure(in.sx, in.sy, in.views / v.sym, v.sym, half);
  // As the product's B: x zeroed, the packing pass, the gather adding into x.
  TOMO_CUDA_CHECK(cudaMemsetAsync(a.x, 0, sizeof(float) * a.nx * a.ny * a.nz, s));
  const float* inv_c2 = v.sym == 2 ? in.half_inv_c2 : in.quarter_inv_c2;
  const float wmax = v.sym == 2 ? in.half_weight_max : in.quarter_weight_max;
  unsigned* mb = g_packed.max_bits.data();
  const cudaSurfaceObject_t surf = g_packed.surf.get();
  if (v.sym == 2 && half)
    cd::launch_turn_pack<2, cd::HalfTexelStore>(in.y, in.weights, inv_c2, in.views, in.sx, in.sy, mb, wmax, surf, s);
  else if (v.sym == 2)
    cd::launch_turn_pack<2, F32TexelStore>(in.y, in.weights, inv_c2, in.views, in.sx, in.sy, mb, wmax, surf, s);
  else if (half)
    cd::launch_turn_pack<4, cd::HalfTexelStore>(in.y, in.weights, inv_c2, in.views, in.sx, in.sy, mb, wmax, surf, s);
  else
    cd::launch_turn_pack<4, F32TexelStore>(in.y, in.weights, inv_c2, in.views, in.sx, in.sy, mb, wmax, surf, s);
  TOMO_CUDA_CHECK_LAST();
  cd::VoxelBack l;
  l.x = a.x;
  l.nx = a.nx;
  l.ny = a.ny;
  l.nz = a.nz;
  l.origin[0] = a.ox;
  l.origin[1] = a.oy;
  l.origin[2] = a.oz;
  l.voxel[0] = a.vx;
  l.voxel[1] = a.vy;
  l.voxel[2] = a.vz;
  l.block = dim3(v.bx, v.by, 1);
#define TOMO_SYM_CASE(C, KZ, INV)                                                   \
  if (v.sym == C && v.kz == KZ && inv == INV) {                                     \
    cd::launch_turn_back<C, KZ, INV>(l, g_packed.tex.get(), in.mats, in.views, in.quarter_sense, mb, wmax, s); \
    TOMO_CUDA_CHECK_LAST();                                                         \
    return true;                                                                    \
  }
  TOMO_SYM_CASE(2, 16, false)
  TOMO_SYM_CASE(2, 16, true)
  TOMO_SYM_CASE(2, 8, false)
  TOMO_SYM_CASE(2, 8, true)
  TOMO_SYM_CASE(4, 16, false)
  TOMO_SYM_CASE(4, 16, true)
  TOMO_SYM_CASE(4, 8, false)
  TOMO_SYM_CASE(4, 8, true)
#undef TOMO_SYM_CASE
  return false;
}

}  // namespace tomo::bench::fdk_b
