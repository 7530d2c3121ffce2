#version 450 core
// safir: one pass over the sorted events ([Locans2017] §5.3.1), one invocation per event.
// MODE (safir::PassMode) forward: values[l] = Σ_j a_lj f_j + n (gather). back: acc_j += a_lj values[l].
// ML-EM: ȳ_l by gather, then acc_j += a_lj / ȳ_l (atomics), eq. (10).
#ifdef FLOAT_ATOMICS
#extension GL_NV_shader_atomic_float : require
#endif
layout(local_size_x = 64) in;
#include "raytrace.glsl"
#include "bindings/safir.glsl"

layout(std430, binding = SAFIR_CRYSTALS) readonly buffer Crystals { vec4 crystal[]; };
layout(std430, binding = SAFIR_EVENTS) readonly buffer Events { uvec2 events[]; };  // a | label << 30, b
layout(std430, binding = SAFIR_IMAGE) readonly buffer Image { float f[]; };
layout(std430, binding = SAFIR_VALUES) buffer Values { float values[]; };
#define FLOAT_ADD_BINDING SAFIR_ACC
#define FLOAT_ADD_NAME acc
#include "common/float_add.glsl"
uniform uint u_count;
uniform float u_randoms;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint l = gl_GlobalInvocationID.x; l < u_count; l += stride) {
    uvec2 e = events[l];
    int label = int(e.x >> 30);
    vec3 a = crystal[e.x & 0x3fffffffu].xyz, b = crystal[e.y].xyz;
    int j;
    float w;
#if MODE == SAFIR_MODE_BACK
    float v = values[l];
    if (v == 0.0) continue;
#else
    float y = u_randoms;
    Walk s = walk_begin(a, b, label);
    while (walk_next(s, j, w)) y += w * f[j];
#if MODE == SAFIR_MODE_FORWARD
    values[l] = y;
    continue;
#endif
    if (!(y > 0.0)) continue;
    float v = 1.0 / y;
#endif
#if MODE != SAFIR_MODE_FORWARD
    Walk s2 = walk_begin(a, b, label);
    while (walk_next(s2, j, w)) float_add(j, w * v);
#endif
  }
}
