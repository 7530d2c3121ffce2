// A float sum buffer that many invocations add into, for the scatter (adjoint) passes: float
// atomicAdd where the driver has it (FLOAT_ATOMICS, GL_NV_shader_atomic_float, which the
// including shader enables in its first lines), otherwise an exact compare-and-swap loop on the
// float's bits (llvmpipe). The includer defines FLOAT_ADD_BINDING and FLOAT_ADD_NAME (the array's
// name) before the include and calls float_add(i, v).
#ifdef FLOAT_ATOMICS
layout(std430, binding = FLOAT_ADD_BINDING) buffer FloatAddTarget { float FLOAT_ADD_NAME[]; };
void float_add(int i, float v) { atomicAdd(FLOAT_ADD_NAME[i], v); }
#else
layout(std430, binding = FLOAT_ADD_BINDING) buffer FloatAddTarget { uint FLOAT_ADD_NAME[]; };
void float_add(int i, float v) {
  uint old = FLOAT_ADD_NAME[i], assumed;
  do {
    assumed = old;
    old = atomicCompSwap(FLOAT_ADD_NAME[i], assumed, floatBitsToUint(uintBitsToFloat(assumed) + v));
  } while (old != assumed);
}
#endif
