// Checks of incoming arrays: dtype, device, layout and shape, each with its own message.
#include "python/src/arrays.hpp"

namespace tomo::py {
namespace {

std::string shape_text(const std::vector<std::size_t>& s) {
  std::string t = "(";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

template <class T>
const T* input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape, const char* dtype) {
  if (a.device_type() != nb::device::cpu::value)
    throw nb::type_error((name + ": a CPU (NumPy) array is needed here; this backend takes no device arrays").c_str());
  if (a.dtype() != nb::dtype<T>())
    throw nb::type_error((name + ": dtype must be " + dtype + " (use .astype(numpy." + dtype + "))").c_str());
  std::vector<std::size_t> got(a.ndim());
  for (std::size_t d = 0; d < a.ndim(); ++d) got[d] = a.shape(d);
  if (got != shape) throw nb::value_error((name + ": shape " + shape_text(got) + ", expected " + shape_text(shape)).c_str());
  // C-contiguous: the last stride 1 and each outer stride the product of the inner sizes.
  std::int64_t expect = 1;
  for (std::size_t d = a.ndim(); d-- > 0;) {
    if (a.shape(d) > 1 && a.stride(d) != expect)
      throw nb::value_error((name + ": must be C-contiguous (use numpy.ascontiguousarray)").c_str());
    expect *= std::int64_t(a.shape(d));
  }
  return static_cast<const T*>(a.data());
}

}  // namespace

const float* float_input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape) {
  return input<float>(a, name, shape, "float32");
}
const double* double_input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape) {
  return input<double>(a, name, shape, "float64");
}

FloatArray to_numpy(std::vector<float>&& data, const std::vector<std::size_t>& shape) {
  auto* owned = new std::vector<float>(std::move(data));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<float>*>(p); });
  return FloatArray(owned->data(), shape.size(), shape.data(), owner);
}

}  // namespace tomo::py
