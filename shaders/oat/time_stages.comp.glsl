#version 450 core
// oat: the time stages of H_int, one invocation per output sample (kernel_math.hpp d_sample,
// d_adjoint_sample, eir_sample, eir_adjoint_sample). STAGE (renderer/oat/bindings.hpp)
// OAT_STAGE_DERIVATIVE: p = D g; _DERIVATIVE_ADJOINT: g = Dᵀ p (K + 2 outputs per transducer);
// _EIR: u = H_eir p; _EIR_ADJOINT: p = H_eirᵀ u.
layout(local_size_x = 256) in;
#include "bindings/oat.glsl"
layout(std430, binding = OAT_STAGE_IN) readonly buffer In { float src[]; };
layout(std430, binding = OAT_STAGE_OUT) writeonly buffer Out { float dst[]; };
layout(std430, binding = OAT_STAGE_TAPS) readonly buffer Taps { float taps[]; };
uniform int u_transducers, u_samples, u_taps;  // Q, K, J
uniform float u_t_min, u_dt, u_cD;

float inv_time(int k) {
  float t = u_t_min + float(k) * u_dt;
  return t > 0.0 ? 1.0 / t : 0.0;
}

void main() {
  int K = u_samples;
  int per = STAGE == OAT_STAGE_DERIVATIVE_ADJOINT ? K + 2 : K;
  int s = int(gl_GlobalInvocationID.x + gl_NumWorkGroups.x * gl_WorkGroupSize.x * gl_GlobalInvocationID.y);
  if (s >= u_transducers * per) return;
  int q = s / per, k = s % per;
#if STAGE == OAT_STAGE_DERIVATIVE
  int b = q * (K + 2);
  dst[s] = u_cD * (src[b + k + 2] * inv_time(k + 1) - src[b + k] * inv_time(k - 1));
#elif STAGE == OAT_STAGE_DERIVATIVE_ADJOINT
  int b = q * K, kk = k - 1;
  float a = (kk - 1 >= 0 && kk - 1 < K) ? src[b + kk - 1] : 0.0;
  float c = (kk + 1 >= 0 && kk + 1 < K) ? src[b + kk + 1] : 0.0;
  dst[s] = u_cD * inv_time(kk) * (a - c);
#elif STAGE == OAT_STAGE_EIR
  int b = q * K;
  float acc = 0.0;
  for (int j = 0; j < u_taps && j <= k; ++j) acc += taps[j] * src[b + k - j];
  dst[s] = acc;
#elif STAGE == OAT_STAGE_EIR_ADJOINT
  int b = q * K;
  float acc = 0.0;
  for (int j = 0; j < u_taps && k + j < K; ++j) acc += taps[j] * src[b + k + j];
  dst[s] = acc;
#else
#error STAGE is none of OAT_STAGE_*
#endif
}
