// TOMO_HD marks a function that one header shares between the cpu reference and the CUDA
// kernels: __host__ __device__ (and forced inline) under nvcc, a plain inline function elsewhere.
#pragma once

#ifdef __CUDACC__
#define TOMO_HD __host__ __device__ __forceinline__
#else
#define TOMO_HD inline
#endif
