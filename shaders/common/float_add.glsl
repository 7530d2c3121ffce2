// Float sums that many invocations add into, for the scatter (adjoint) passes. CAS_ADD(mem, v):
// an exact compare-and-swap loop on a uint variable holding the float's bits (buffer or shared),
// for drivers without float atomics (llvmpipe); a macro, since GLSL cannot pass a buffer or
// shared variable to a function for an atomic. When the includer defines FLOAT_ADD_BINDING and
// FLOAT_ADD_NAME (the array's name) before the include, the sum buffer is declared here too and
// float_add(i, v) adds into it: float atomicAdd with FLOAT_ATOMICS (GL_NV_shader_atomic_float,
// which the including shader enables in its first lines), else CAS_ADD.
#define CAS_ADD(mem, v) { uint old_ = mem, assumed_; do { assumed_ = old_; old_ = atomicCompSwap(mem, assumed_, floatBitsToUint(uintBitsToFloat(assumed_) + (v))); } while (old_ != assumed_); }
#ifdef FLOAT_ADD_BINDING
#ifdef FLOAT_ATOMICS
layout(std430, binding = FLOAT_ADD_BINDING) buffer FloatAddTarget { float FLOAT_ADD_NAME[]; };
void float_add(int i, float v) { atomicAdd(FLOAT_ADD_NAME[i], v); }
#else
layout(std430, binding = FLOAT_ADD_BINDING) buffer FloatAddTarget { uint FLOAT_ADD_NAME[]; };
void float_add(int i, float v) { CAS_ADD(FLOAT_ADD_NAME[i], v); }
#endif
#endif
