#version 450 core
// safir: the tiled pass, a twin of cuda/safir/tiled_pass.cu. A work group owns one tile of the
// image (TILE voxels in shared memory) and one chunk of one label's sorted events, given as line
// records (compute/safir/kernel_math.hpp: line_record, walk_record, computed on the host).
// MODE (safir::PassMode) forward: values[l] += Σ_tile a_lj f_j. back: tile += a_lj v_l by shared atomics,
// then one global atomic per touched tile voxel; v_l = 1, values[l] or 1 / (values[l] + n).
#ifdef FLOAT_ATOMICS
#extension GL_NV_shader_atomic_float : require
#endif
layout(local_size_x = 256) in;
#include "bindings/safir.glsl"
#include "tile_cursor.glsl"

layout(std430, binding = SAFIR_RECORDS) readonly buffer Records { vec4 rec[]; };
layout(std430, binding = SAFIR_IMAGE) readonly buffer Image { float f[]; };
#ifdef FLOAT_ATOMICS
layout(std430, binding = SAFIR_VALUES) buffer Values { float values[]; };
layout(std430, binding = SAFIR_ACC) buffer Acc { float acc[]; };
float value_at(uint l) { return values[l]; }
void add_value(uint l, float v) { atomicAdd(values[l], v); }
void add_acc(uint i, float v) { atomicAdd(acc[i], v); }
#else
// Exact compare-and-swap loops on the floats' bits (no float atomics in the driver).
#include "common/float_add.glsl"
layout(std430, binding = SAFIR_VALUES) buffer Values { uint values[]; };
layout(std430, binding = SAFIR_ACC) buffer Acc { uint acc[]; };
float value_at(uint l) { return uintBitsToFloat(values[l]); }
void add_value(uint l, float v) { CAS_ADD(values[l], v); }
void add_acc(uint i, float v) { CAS_ADD(acc[i], v); }
#endif

#if MODE == SAFIR_MODE_BACK && !defined(FLOAT_ATOMICS)
shared uint tile[TILE];
float tile_at(int i) { return uintBitsToFloat(tile[i]); }
void tile_set(int i, float v) { tile[i] = floatBitsToUint(v); }
void tile_add(int i, float v) { CAS_ADD(tile[i], v); }
#else
shared float tile[TILE];
float tile_at(int i) { return tile[i]; }
void tile_set(int i, float v) { tile[i] = v; }
#if MODE == SAFIR_MODE_BACK
void tile_add(int i, float v) { atomicAdd(tile[i], v); }
#endif
#endif

uniform ivec3 u_n;        // image voxels
uniform float u_md;       // m_d in voxels
uniform uint u_begin[3], u_end[3], u_chunk[3];  // per label (x, y, z): sorted events, events per group
uniform ivec3 u_ext[3], u_tiles[3];             // tile extent and tiles per image axis
uniform int u_blocks[3];                        // groups of the label: chunks × tiles
uniform int u_back_mode;                        // back mode: safir::BackWeights
uniform float u_randoms;

// kernel_math.hpp's clip_slices: the slices where c + (k − kc)·s lies in [lo − 1, hi], one slice of margin.
void clip_slices(float c, float s, int kc, int lo, int hi, inout int k_lo, inout int k_hi) {
  if (s == 0.0) {
    if (!(c >= float(lo - 1) && c <= float(hi))) k_hi = k_lo - 1;
    return;
  }
  float ka = float(kc) + (float(lo - 1) - c) / s, kb = float(kc) + (float(hi) - c) / s;
  float lo_k = min(ka, kb), hi_k = max(ka, kb);
  if (!(lo_k < float(k_hi) + 2.0)) k_hi = k_lo - 1;
  else if (lo_k > float(k_lo)) k_lo = max(k_lo, int(floor(lo_k)) - 1);
  if (!(hi_k > float(k_lo) - 2.0)) k_hi = k_lo - 1;
  else if (hi_k < float(k_hi)) k_hi = min(k_hi, int(ceil(hi_k)) + 1);
}

void main() {
  int b = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x), l = 0;
  if (b >= u_blocks[0]) {
    b -= u_blocks[0];
    l = 1;
    if (b >= u_blocks[1]) {
      b -= u_blocks[1];
      l = 2;
    }
  }
  // Groups beyond the last (the rounding of the 2D dispatch) get no voxels and no events; they
  // still pass the barriers, which stay in uniform control flow.
  bool in_grid = b < u_blocks[l];
  ivec3 ext = u_ext[l], tiles = u_tiles[l];
  int ntiles = tiles.x * tiles.y * tiles.z, t = b % ntiles, chunk = b / ntiles;
  ivec3 lo = ivec3(t % tiles.x, (t / tiles.x) % tiles.y, t / (tiles.x * tiles.y)) * ext;
  ivec3 hi = min(lo + ext, u_n);
  ivec3 stride = ivec3(1, hi.x - lo.x, (hi.x - lo.x) * (hi.y - lo.y));
  int size = in_grid ? stride.z * (hi.z - lo.z) : 0;
  // The line's axes: m main, u < w the others (walk_axes).
  int m = l, u = l == 0 ? 1 : 0, w = l == 2 ? 1 : 2;
  int lo_m = lo[m], hi_m = hi[m], lo_u = lo[u], hi_u = hi[u], lo_w = lo[w], hi_w = hi[w];
  int st_m = stride[m], st_u = stride[u], st_w = stride[w], kc = u_n[m] / 2;
  uint e0 = u_begin[l] + uint(chunk) * u_chunk[l], e1 = in_grid ? min(e0 + u_chunk[l], u_end[l]) : e0;

  int first = int(gl_LocalInvocationID.x), step = int(gl_WorkGroupSize.x);
#if MODE == SAFIR_MODE_FORWARD
  TileCursor cur = tile_cursor(first, step, lo, hi, u_n);
  for (int i = first; i < size; i += step) {
    tile_set(i, f[cur.g]);
    tile_cursor_next(cur);
  }
#else
  for (int i = first; i < size; i += step) tile_set(i, 0.0);
#endif
  barrier();

  for (uint e = e0 + gl_LocalInvocationID.x; e < e1; e += gl_WorkGroupSize.x) {
#if MODE == SAFIR_MODE_BACK
    float v = 1.0;
    if (u_back_mode == SAFIR_BACK_VALUES) {
      v = value_at(e);
    } else if (u_back_mode == SAFIR_BACK_RATIO) {
      float y = value_at(e) + u_randoms;  // ȳ of eq. (9)
      if (!(y > 0.0)) continue;
      v = 1.0 / y;
    }
    if (v == 0.0) continue;
#else
    float sum = 0.0;
    bool hit = false;
#endif
    vec4 r = rec[e];  // cu, su, cw, sw
    int k0 = lo_m, k1 = hi_m - 1;
    clip_slices(r.x, r.y, kc, lo_u, hi_u, k0, k1);
    clip_slices(r.z, r.w, kc, lo_w, hi_w, k0, k1);
    float scale = sqrt(1.0 + r.y * r.y + r.w * r.w);
    for (int k = k0; k <= k1; ++k) {
      float dk = float(k - kc);
      float fu = r.x + dk * r.y, fw = r.z + dk * r.w;
      int iu = int(floor(fu)), iw = int(floor(fw));
      int base = (k - lo_m) * st_m;
      for (int q = 0; q < 4; ++q) {
        int ju = iu + (q >> 1), jw = iw + (q & 1);
        if (ju < lo_u || ju >= hi_u || jw < lo_w || jw >= hi_w) continue;
        float eu = fu - float(ju), ew = fw - float(jw);
        float a = (u_md - sqrt(eu * eu + ew * ew)) * scale;
        if (!(a > 0.0)) continue;
        int j = base + (ju - lo_u) * st_u + (jw - lo_w) * st_w;
#if MODE == SAFIR_MODE_BACK
        tile_add(j, a * v);
#else
        sum += a * tile_at(j);
        hit = true;
#endif
      }
    }
#if MODE == SAFIR_MODE_FORWARD
    if (hit) add_value(e, sum);
#endif
  }

#if MODE == SAFIR_MODE_BACK
  barrier();
  TileCursor cur = tile_cursor(first, step, lo, hi, u_n);
  for (int i = first; i < size; i += step) {
    float v = tile_at(i);
    if (v != 0.0) add_acc(cur.g, v);
    tile_cursor_next(cur);
  }
#endif
}
