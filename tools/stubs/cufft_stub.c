/* A stand-in libcufft.so.11 for carrying ASTRA's PyPI wheel to the GPU machine (tools/astra-pack.sh).
 * The real library (nvidia-cufft-cu12, ~200 MB) does not fit in what a device call may carry, and
 * ASTRA calls cuFFT only to ramp-filter (FDK_CUDA, FBP_CUDA); its BP3D_CUDA never does. The loader
 * still needs every symbol libastra.so.0 imports, so this file defines exactly those (astra-pack.sh
 * checks the list against the wheel), each failing with CUFFT_NOT_SUPPORTED and a message: with
 * this stub, ASTRA's filtering fails; its projectors work. */
#include <stdio.h>

typedef int cufftHandle;
typedef int cufftResult;
typedef int cufftType;

enum { kCufftNotSupported = 16 }; /* CUFFT_NOT_SUPPORTED in cufft.h */

static cufftResult not_carried(const char* what) {
  fprintf(stderr, "cuFFT stub: not carried (%s called; tools/astra-pack.sh brings only ASTRA's projectors, "
                  "not its FDK/FBP filtering)\n", what);
  return kCufftNotSupported;
}

cufftResult cufftPlan1d(cufftHandle* plan, int nx, cufftType type, int batch) {
  (void)nx; (void)type; (void)batch;
  if (plan) *plan = 0;
  return not_carried("cufftPlan1d");
}
cufftResult cufftExecR2C(cufftHandle plan, void* idata, void* odata) {
  (void)plan; (void)idata; (void)odata;
  return not_carried("cufftExecR2C");
}
cufftResult cufftExecC2R(cufftHandle plan, void* idata, void* odata) {
  (void)plan; (void)idata; (void)odata;
  return not_carried("cufftExecC2R");
}
cufftResult cufftSetStream(cufftHandle plan, void* stream) {
  (void)plan; (void)stream;
  return not_carried("cufftSetStream");
}
cufftResult cufftDestroy(cufftHandle plan) {
  (void)plan;
  return not_carried("cufftDestroy");
}
