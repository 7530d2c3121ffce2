#version 450 core
// oat: the time stages of H_int, one invocation per output sample (kernel_math.hpp d_sample,
// d_adjoint_sample, eir_sample, eir_adjoint_sample). STAGE 0: p = D g; 1: g = Dᵀ p (K + 2
// outputs per transducer); 2: u = H_eir p; 3: p = H_eirᵀ u.
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer In { float src[]; };
layout(std430, binding = 1) writeonly buffer Out { float dst[]; };
layout(std430, binding = 2) readonly buffer Taps { float taps[]; };
uniform int u_transducers, u_samples, u_taps;  // Q, K, J
uniform float u_t_min, u_dt, u_cD;

float inv_time(int k) {
  float t = u_t_min + float(k) * u_dt;
  return t > 0.0 ? 1.0 / t : 0.0;
}

void main() {
  int K = u_samples;
  int per = STAGE == 1 ? K + 2 : K;
  int s = int(gl_GlobalInvocationID.x + gl_NumWorkGroups.x * gl_WorkGroupSize.x * gl_GlobalInvocationID.y);
  if (s >= u_transducers * per) return;
  int q = s / per, k = s % per;
#if STAGE == 0
  int b = q * (K + 2);
  dst[s] = u_cD * (src[b + k + 2] * inv_time(k + 1) - src[b + k] * inv_time(k - 1));
#elif STAGE == 1
  int b = q * K, kk = k - 1;
  float a = (kk - 1 >= 0 && kk - 1 < K) ? src[b + kk - 1] : 0.0;
  float c = (kk + 1 >= 0 && kk + 1 < K) ? src[b + kk + 1] : 0.0;
  dst[s] = u_cD * inv_time(kk) * (a - c);
#elif STAGE == 2
  int b = q * K;
  float acc = 0.0;
  for (int j = 0; j < u_taps && j <= k; ++j) acc += taps[j] * src[b + k - j];
  dst[s] = acc;
#else
  int b = q * K;
  float acc = 0.0;
  for (int j = 0; j < u_taps && k + j < K; ++j) acc += taps[j] * src[b + k + j];
  dst[s] = acc;
#endif
}
