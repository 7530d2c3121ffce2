#version 450 core
// fdk `gl` raster pass: RabbitCT back-projection ([Hofmann2010] Algorithm 1) as projective texture
// mapping. One full-viewport triangle per z-slice (instanced, routed to layer k − u_k0 of the 3D
// volume slab by common/layered_triangle.vert.glsl); each fragment is voxel (i, j, k), maps itself
// into every projection of the batch with its 3×4 matrix (rows in a UBO) and adds
// Σ_n bilinear(I_n, u, v)/w² to the R32F target through additive blending (GL_ONE, GL_ONE).
#include "common/layer_in.glsl"

#define MAX_PROJECTIONS 64
// Projection n: rows[3n + r] = (A[r], A[3 + r], A[6 + r], A[9 + r]), so (u·w, v·w, w) = rows · (x, y, z, 1).
#include "bindings/fdk.glsl"
layout(std140, binding = FDK_MATRIX_ROWS) uniform Matrices { vec4 rows[3 * MAX_PROJECTIONS]; };
#include "common/grid.glsl"  // u_grid_origin, u_grid_voxel
uniform int u_k0;       // first z index of the slab bound as the render target
uniform int u_count;

#include "sample.glsl"  // u_projections, u_detector, sample_projection()

layout(location = 0) out float o_update;

void main() {
  ivec2 ij = ivec2(gl_FragCoord.xy);
  vec4 p = vec4(u_grid_origin + vec3(float(ij.x), float(ij.y), float(u_k0 + LAYER)) * u_grid_voxel, 1.0);
  float acc = 0.0;
  for (int n = 0; n < u_count; ++n) {
    float rw = 1.0 / dot(rows[3 * n + 2], p);
    float u = dot(rows[3 * n + 0], p) * rw;
    float v = dot(rows[3 * n + 1], p) * rw;
    acc += rw * rw * sample_projection(u, v, n);  // RabbitCT update: f += p / w²
  }
  o_update = acc;
}
