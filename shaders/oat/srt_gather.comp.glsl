#version 450 core
// oat: H_srtᵀ as a gather, the transpose of srt.comp.glsl's EXACT pass (cuda/oat/srt_gather.hpp's
// bounds in GLSL): a work group owns a tile of 8³ voxels and sums in shared memory the patches of
// the transducers u_q_begin…u_q_end − 1 that touch it: the shells whose radius meets the tile's
// ball, the rings of each inside the ball, on each ring the azimuths where it can cross the
// tile's box (a line cut by slabs, widened by the ring's sagitta). The patches and weights are
// shell.glsl's, as the forward's. The tile is written once (u_accumulate: added to α, for passes
// over several transducer chunks): no atomics outside the work group.
layout(local_size_x = 64) in;
#include "bindings/oat.glsl"
layout(std430, binding = OAT_SHELL_FRAMES) readonly buffer Frames { float frames[]; };
layout(std430, binding = OAT_SHELL_CAPS) readonly buffer Caps { vec2 caps[]; };
layout(std430, binding = OAT_SHELL_SUMS) readonly buffer Shells { float g[]; };
layout(std430, binding = OAT_SHELL_ALPHA) buffer Alpha { float alpha[]; };
uniform vec3 u_grid0;
uniform float u_ds;
uniform ivec3 u_dims;
uniform int u_transducers, u_shells;
uniform float u_c0, u_t_min, u_dt, u_h;
uniform ivec3 u_tiles;
uniform int u_q_begin, u_q_end, u_accumulate;
uniform vec3 u_centre;  // the ball every shell is cut to
uniform float u_rho, u_margin;
#include "shell.glsl"
#include "common/float_add.glsl"

const int TILE = 8, GROUP = 64;
shared uint acc[TILE * TILE * TILE];  // float bits, added by CAS_ADD
shared int s_scan[GROUP], s_count[GROUP], s_nphi[GROUP], s_jlo[GROUP];
shared float s_sin[GROUP], s_cos[GROUP], s_w[GROUP];

struct Tile { ivec3 lo, hi; vec3 bmin, bmax, c; float r; };
struct View { float d, theta_c, sin_c, phi_c, cos_pc, sin_pc, r; vec3 lo, hi; };

Tile make_tile(ivec3 lo) {
  Tile t;
  t.lo = lo;
  t.hi = min(lo + ivec3(TILE), u_dims);
  t.bmin = u_grid0 + vec3(t.lo - ivec3(1)) * u_ds - vec3(u_margin);
  t.bmax = u_grid0 + vec3(t.hi) * u_ds + vec3(u_margin);
  t.c = 0.5 * (t.bmin + t.bmax);
  t.r = length(0.5 * (t.bmax - t.bmin));
  return t;
}

View make_view(Frame f, Tile t) {
  View v;
  vec3 rel = t.c - f.s;
  v.lo = t.bmin - f.s;
  v.hi = t.bmax - f.s;
  v.d = length(rel);
  float ce = dot(rel, f.e), cu = dot(rel, f.u), cv = dot(rel, f.v);
  float perp = sqrt(cu * cu + cv * cv);
  v.theta_c = atan(perp, ce);
  v.sin_c = v.d > 0.0 ? perp / v.d : 0.0;
  float phi = perp > 0.0 ? atan(cv, cu) : 0.0;
  v.phi_c = phi < 0.0 ? phi + 2.0 * PI : phi;
  v.cos_pc = perp > 0.0 ? cu / perp : 1.0;
  v.sin_pc = perp > 0.0 ? cv / perp : 0.0;
  v.r = t.r;
  return v;
}

// The rings [x, y] of the cap within the ball's angular radius of θ_c; a4 = (r² − (R − d)²)/(R·d).
ivec2 ring_span(View v, Cap c, out float a4) {
  a4 = 0.0;
  float dR = c.R - v.d;
  if (c.n_theta == 0 || !(c.R > 0.0) || dR * dR > v.r * v.r) return ivec2(0, -1);
  a4 = (v.r * v.r - dR * dR) / (c.R * v.d);
  float gamma = a4 >= 4.0 ? PI : 2.0 * asin(sqrt(0.25 * a4));
  float dth = c.theta_max / float(c.n_theta), nt = float(c.n_theta);
  float lo = clamp((v.theta_c - gamma) / dth - 0.5, -1.0, nt), hi = clamp((v.theta_c + gamma) / dth - 0.5, -1.0, nt);
  return ivec2(max(int(ceil(lo)), 0), min(int(floor(hi)), c.n_theta - 1));
}

// The patches of ring i that can touch the tile: (j_lo, count), j taken mod n_phi.
ivec2 ring_patches(Frame f, View v, Cap c, float a4, Ring r, int i) {
  float dth = c.theta_max / float(c.n_theta);
  float sh = sin(0.5 * ((float(i) + 0.5) * dth - v.theta_c));
  float numer = a4 - 4.0 * sh * sh;
  if (numer < 0.0) return ivec2(0, 0);
  float den = 4.0 * r.sin_t * v.sin_c;
  if (den <= numer) return ivec2(0, r.n_phi);
  float q = numer / den, sq = sqrt(q);
  float d_lo = -2.0 * asin(sq), d_hi = -d_lo;
  if (q < 0.5) {
    float rho = c.R * r.sin_t, sd = 2.0 * sq * sqrt(1.0 - q), sag = 2.0 * rho * q;
    vec3 w0 = v.cos_pc * f.u + v.sin_pc * f.v, w1 = -v.sin_pc * f.u + v.cos_pc * f.v;
    vec3 p0 = c.R * r.cos_t * f.e + rho * w0;
    vec3 widen = sag * abs(w0);
    vec3 lo = v.lo - widen - p0, hi = v.hi + widen - p0;
    float t_lo = -rho * sd, t_hi = rho * sd;
    for (int k = 0; k < 3; ++k) {
      if (w1[k] == 0.0) {
        if (lo[k] > 0.0 || hi[k] < 0.0) return ivec2(0, 0);
        continue;
      }
      float t1 = lo[k] / w1[k], t2 = hi[k] / w1[k];
      t_lo = max(t_lo, min(t1, t2));
      t_hi = min(t_hi, max(t1, t2));
    }
    if (t_lo > t_hi) return ivec2(0, 0);
    d_lo = asin(clamp(t_lo / rho, -1.0, 1.0));
    d_hi = asin(clamp(t_hi / rho, -1.0, 1.0));
  }
  int n = r.n_phi;
  float dphi = 2.0 * PI / float(n);
  int jl = int(ceil((v.phi_c + d_lo) / dphi - 0.5)), jh = int(floor((v.phi_c + d_hi) / dphi - 0.5));
  if (jh < jl) return ivec2(0, 0);
  if (jh - jl + 1 >= n) return ivec2(0, n);
  return ivec2(jl < 0 ? jl + n : (jl >= n ? jl - n : jl), jh - jl + 1);
}

// The forward's trilinear weights (srt.comp.glsl) of the patch at p, added to the tile's voxels.
void tile_add(Tile t, vec3 p, float v) {
  vec3 gc = voxel_coord(p);
  vec3 b = floor(gc);
  ivec3 c = ivec3(b);
  if (any(lessThan(c, t.lo - ivec3(1))) || any(greaterThanEqual(c, t.hi))) return;
  vec3 w1 = gc - b, w0 = vec3(1.0) - w1;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) {
        ivec3 n = c + ivec3(i, j, k);
        if (any(lessThan(n, t.lo)) || any(greaterThanEqual(n, t.hi))) continue;
        ivec3 l = n - t.lo;
        CAS_ADD(acc[l.x + TILE * (l.y + TILE * l.z)],
                ((i == 0 ? w0.x : w1.x) * (j == 0 ? w0.y : w1.y) * (k == 0 ? w0.z : w1.z)) * v);
      }
}

void main() {
  int id = int(gl_WorkGroupID.x + gl_NumWorkGroups.x * gl_WorkGroupID.y);
  int lid = int(gl_LocalInvocationID.x);
  bool valid = id < u_tiles.x * u_tiles.y * u_tiles.z;
  ivec3 ti = ivec3(id % u_tiles.x, (id / u_tiles.x) % u_tiles.y, id / (u_tiles.x * u_tiles.y));
  Tile t = make_tile(ti * TILE);
  for (int i = lid; i < TILE * TILE * TILE; i += GROUP) acc[i] = 0u;
  barrier();
  vec3 dc = t.c - u_centre;
  float reach = u_rho + t.r;
  if (valid && dot(dc, dc) <= reach * reach) {  // else no shell's cap reaches the tile
    for (int q = u_q_begin; q < u_q_end; ++q) {
      Frame f = load_frame(q);
      View v = make_view(f, t);
      float a = ((v.d - v.r) / u_c0 - u_t_min) / u_dt + 1.0, b = ((v.d + v.r) / u_c0 - u_t_min) / u_dt + 1.0;
      int m_lo = max(int(floor(clamp(a, -1.0, float(u_shells)))), 0);
      int m_hi = min(int(ceil(clamp(b, -1.0, float(u_shells)))), u_shells - 1);
      for (int m = m_lo; m <= m_hi; ++m) {
        int sample_id = q * u_shells + m;
        float value = g[sample_id];
        if (value == 0.0) continue;
        Cap c = shell_cap(sample_id, u_c0 * (u_t_min + (float(m) - 1.0) * u_dt), u_h);
        float a4;
        ivec2 span = ring_span(v, c, a4);
        for (int i0 = span.x; i0 <= span.y; i0 += GROUP) {
          int i = i0 + lid;
          int count = 0;
          if (i <= span.y) {
            Ring r = shell_ring(c, i);
            ivec2 jr = ring_patches(f, v, c, a4, r, i);
            count = jr.y;
            s_nphi[lid] = r.n_phi;
            s_jlo[lid] = jr.x;
            s_sin[lid] = r.sin_t;
            s_cos[lid] = r.cos_t;
            s_w[lid] = r.area * value;
          }
          s_count[lid] = count;
          barrier();
          if (lid == 0) {  // inclusive prefix sum of the counts: one invocation, two barriers (cheaper
                           // than a parallel scan's twelve where barriers are emulated)
            int sum = 0;
            for (int k = 0; k < GROUP; ++k) {
              sum += s_count[k];
              s_scan[k] = sum;
            }
          }
          barrier();
          int total = s_scan[GROUP - 1];
          for (int x = lid; x < total; x += GROUP) {
            int o = 0;  // the first ring whose inclusive prefix exceeds x
            for (int step = GROUP / 2; step > 0; step >>= 1)
              if (s_scan[o + step - 1] <= x) o += step;
            int j = s_jlo[o] + (x - (s_scan[o] - s_count[o]));
            if (j >= s_nphi[o]) j -= s_nphi[o];
            Ring r = Ring(s_nphi[o], 0.0, s_sin[o], s_cos[o]);
            tile_add(t, shell_point(f, c, r, j), s_w[o]);
          }
          barrier();
        }
      }
    }
  }
  barrier();
  if (!valid) return;
  for (int i = lid; i < TILE * TILE * TILE; i += GROUP) {
    ivec3 n = t.lo + ivec3(i % TILE, (i / TILE) % TILE, i / (TILE * TILE));
    if (any(greaterThanEqual(n, t.hi))) continue;
    int k = n.x + u_dims.x * (n.y + u_dims.y * n.z);
    float s = uintBitsToFloat(acc[i]);
    alpha[k] = u_accumulate != 0 ? alpha[k] + s : s;
  }
}
