#version 450
// musr χ² / max-likelihood of one theory (the gl-compute twin of the cuda kernels): one work
// group per slice of one run's bins (runs of one theory shape share a case), the model
// generated from the expression program (compute/musr/codegen_glsl.cpp fills the three markers
// below: `real` is float, or double with musr/double_math.glsl as the helpers).
// Each group writes NS partial sums (statistic, then ∂/∂ its run's parameter slots); the host
// adds them in double.
@DEFINES@
layout(local_size_x = 256) in;
#include "bindings/musr.glsl"  // inlined by ShaderLibrary::preprocess

struct RunInfo {
  uint offset, count, first_block, blocks, affine, kind;
  uint pmap;  // run's parameter map: slot s reads P[pmap[pmap + s]]
  uint pad;
  double t0, dt, scale;
};
layout(std430, binding = MUSR_RUNS) readonly buffer Runs { RunInfo runs[]; };
layout(std430, binding = MUSR_BLOCK_RUN) readonly buffer BlockRun { int block_run[]; };
layout(std430, binding = MUSR_BINS) readonly buffer Bins { REAL2 yw_all[]; };
layout(std430, binding = MUSR_TIMES) readonly buffer Times { real tarr[]; };
layout(std430, binding = MUSR_PARAMS) readonly buffer Params { real P[]; };
layout(std430, binding = MUSR_PARTIALS) writeonly buffer Partials { real partials[]; };
layout(std430, binding = MUSR_PARAM_MAP) readonly buffer ParamMap { uint pmap[]; };

@HELPERS@

shared real sh[NS * 256];

void main() {
  real acc[NS];
  for (int j = 0; j < NS; ++j) acc[j] = real(0);
  uint g = gl_WorkGroupID.x;
  int run = block_run[g];
  RunInfo R = runs[run];
  // Balanced split of the run's bins over its groups, without 32-bit overflow.
  uint b = g - R.first_block, q = R.count / R.blocks, m = R.count % R.blocks;
  uint lo = b * q + min(b, m), hi = lo + q + (b < m ? 1u : 0u);
  switch (int(R.kind)) {
@CASES@
    default: break;
  }
  uint tid = gl_LocalInvocationID.x;
  for (int j = 0; j < NS; ++j) sh[j * 256 + int(tid)] = acc[j];
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (tid < s)
      for (int j = 0; j < NS; ++j) sh[j * 256 + int(tid)] += sh[j * 256 + int(tid + s)];
    barrier();
  }
  if (tid < uint(NS)) partials[g * uint(NS) + tid] = sh[int(tid) * 256];
}
