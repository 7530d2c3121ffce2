// oat H_sph: what both passes share (the face points, the voxel centres, phases in turns).
#include "bindings/oat.glsl"
layout(std430, binding = OAT_SPH_POINTS) readonly buffer Points { vec4 points[]; };  // Q·P face points (xyz)
uniform vec3 u_grid0;       // centre of voxel (0, 0, 0), mm
uniform float u_ds;         // voxel edge, mm
uniform ivec3 u_dims;
uniform int u_transducers;  // Q
uniform int u_points;       // P, face points per transducer
uniform int u_frequencies;  // L
uniform float u_f0, u_df;   // f_0/c₀ and Δf/c₀ (turns per mm)
uniform int u_first;        // 1: the first pass over this output (overwrite), 0: add

const float kTwoPi = 6.283185307179586;

// e^{−ĵ2πt} for t in turns, reduced to [−½, ½] first.
vec2 phasor(float t) {
  t -= floor(t + 0.5);
  float a = -kTwoPi * t;
  return vec2(cos(a), sin(a));
}

vec2 cmul(vec2 a, vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

vec3 voxel_centre(int n) {
  int i = n % u_dims.x, j = (n / u_dims.x) % u_dims.y, k = n / (u_dims.x * u_dims.y);
  return u_grid0 + u_ds * vec3(float(i), float(j), float(k));
}

int invocation() {
  return int(gl_GlobalInvocationID.x + gl_NumWorkGroups.x * gl_WorkGroupSize.x * gl_GlobalInvocationID.y);
}
