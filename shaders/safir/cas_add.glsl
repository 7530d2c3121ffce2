// safir: exact float addition by compare-and-swap on a uint variable holding the float's bits,
// for drivers without GL_NV_shader_atomic_float. A macro, since GLSL cannot pass a buffer or
// shared variable to a function for an atomic.
#define CAS_ADD(mem, v) { uint old_ = mem, assumed_; do { assumed_ = old_; old_ = atomicCompSwap(mem, assumed_, floatBitsToUint(uintBitsToFloat(assumed_) + (v))); } while (old_ != assumed_); }
