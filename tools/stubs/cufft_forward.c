/* A forwarding libcufft.so.11 for carrying ASTRA's PyPI wheel to the GPU machine (tools/astra-pack.sh).
 * libastra.so.0 imports five cufft* symbols under the version node libcufft.so.11 (cuFFT of CUDA 12);
 * the machine has cuFFT 12 (CUDA 13), whose API for these five calls is the same. Each symbol here
 * is exported under libcufft.so.11 (the pack's version script) and forwards to libcufft.so.12's
 * symbol of the same name (dlvsym with its version node, else dlsym), resolved once on first use.
 * CUFFT_FORWARD_TARGET names another file to load instead of "libcufft.so.12". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef int cufftHandle;
typedef int cufftResult;
typedef int cufftType;

enum { kCufftInternalError = 5 }; /* CUFFT_INTERNAL_ERROR in cufft.h */

static void* target;
static pthread_once_t target_once = PTHREAD_ONCE_INIT;

static void open_target(void) {
  const char* name = getenv("CUFFT_FORWARD_TARGET");
  target = dlopen(name && *name ? name : "libcufft.so.12", RTLD_NOW | RTLD_LOCAL);
  if (!target) fprintf(stderr, "cuFFT forwarder: cannot load cuFFT 12 (%s)\n", dlerror());
}

/* The address of `name` in cuFFT 12, or NULL after one line on stderr. */
static void* resolve(const char* name) {
  pthread_once(&target_once, open_target);
  if (!target) return NULL;
  void* f = dlvsym(target, name, "libcufft.so.12");
  if (!f) f = dlsym(target, name);
  if (!f) fprintf(stderr, "cuFFT forwarder: %s not found in cuFFT 12\n", name);
  return f;
}

#define FORWARD(name, params, args)                                         \
  cufftResult name params {                                                 \
    static cufftResult (*fn) params;                                        \
    if (!fn) *(void**)&fn = resolve(#name);                                 \
    return fn ? fn args : kCufftInternalError;                              \
  }

FORWARD(cufftPlan1d, (cufftHandle* plan, int nx, cufftType type, int batch), (plan, nx, type, batch))
FORWARD(cufftExecR2C, (cufftHandle plan, void* idata, void* odata), (plan, idata, odata))
FORWARD(cufftExecC2R, (cufftHandle plan, void* idata, void* odata), (plan, idata, odata))
FORWARD(cufftSetStream, (cufftHandle plan, void* stream), (plan, stream))
FORWARD(cufftDestroy, (cufftHandle plan), (plan))
