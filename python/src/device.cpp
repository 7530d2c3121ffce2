// Checks of CUDA arrays: each failure names the argument and what is wrong with it.
#include "python/src/device.hpp"

#include "compute/core/error.hpp"

namespace tomo::py {
namespace {

template <class A>
void check(const A& a, const std::string& name, const std::vector<std::size_t>& shape, int device) {
  if (a.device_type() != nb::device::cuda::value)
    throw nb::type_error((name + ": a CUDA array is needed here (the other arguments are on the GPU)").c_str());
  if (a.device_id() != device)
    throw nb::value_error((name + ": on CUDA device " + std::to_string(a.device_id()) + ", but the operator runs on CUDA device " +
                           std::to_string(device) + " (move the array there, or create the operator after tomoraster.set_cuda_device(n))")
                              .c_str());
  if (a.dtype() != nb::dtype<float>()) throw nb::type_error((name + ": dtype must be float32").c_str());
  std::vector<std::size_t> got(a.ndim());
  for (std::size_t d = 0; d < a.ndim(); ++d) got[d] = a.shape(d);
  if (got != shape) throw nb::value_error((name + ": shape " + shape_text(got) + ", expected " + shape_text(shape)).c_str());
  std::int64_t expect = 1;
  for (std::size_t d = a.ndim(); d-- > 0;) {
    if (a.shape(d) > 1 && a.stride(d) != expect)
      throw nb::value_error((name + ": must be C-contiguous (use .contiguous() or cupy.ascontiguousarray)").c_str());
    expect *= std::int64_t(a.shape(d));
  }
}

}  // namespace

bool is_cuda(const AnyArray& a) { return a.device_type() == nb::device::cuda::value; }
bool is_cuda(const OutArray& a) { return a.device_type() == nb::device::cuda::value; }

const float* cuda_input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape, int device) {
  check(a, name, shape, device);
  return static_cast<const float*>(a.data());
}

float* cuda_output(const OutArray& a, const std::string& name, const std::vector<std::size_t>& shape, int device) {
  check(a, name, shape, device);
  return static_cast<float*>(a.data());
}

void require_host(const AnyArray& a, const std::string& name, const std::string& backend) {
  if (a.device_type() != nb::device::cpu::value)
    throw nb::type_error((name + ": a GPU array was given to the " + backend +
                          " backend, which takes NumPy arrays: use backend=\"cuda\" or pass a NumPy array")
                             .c_str());
}

void require_cuda_backend(const std::string& name, const std::string& backend, const std::string& what) {
  require_cuda_build(what);
  if (backend != "cuda")
    throw nb::type_error((name + ": a GPU array was given to the " + backend +
                          " backend, which takes NumPy arrays: use backend=\"cuda\" or pass a NumPy array")
                             .c_str());
}

const float* cuda_backend_input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape,
                                const std::string& backend, int device, const std::string& what) {
  require_cuda_backend(name, backend, what);
  return cuda_input(a, name, shape, device);
}

void require_cuda_build(const std::string& what) {
#ifndef TOMO_HAVE_CUDA
  throw UnavailableError(what + ": this tomoraster module was built without CUDA (pip install . on a machine with nvcc)");
#else
  (void)what;
#endif
}

}  // namespace tomo::py
