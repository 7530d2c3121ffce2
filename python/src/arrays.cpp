// Checks of incoming arrays: dtype, device, layout and shape, each with its own message.
#include "python/src/arrays.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>
#ifdef __linux__
#include <sys/mman.h>
#endif

namespace tomo::py {
namespace {

template <class T>
const char* dtype_name() {
  if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else return "uint32";
}

}  // namespace

std::string shape_text(const std::vector<std::size_t>& s) {
  std::string t = "(";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + (s[i] == kAnySize ? std::string("N") : std::to_string(s[i]));
  return t + (s.size() == 1 ? ",)" : ")");
}

std::vector<std::size_t> shape_of(const AnyArray& a) {
  std::vector<std::size_t> got(a.ndim());
  for (std::size_t d = 0; d < a.ndim(); ++d) got[d] = a.shape(d);
  return got;
}

void require_c_contiguous(const AnyArray& a, const std::string& name) {
  // An empty array's strides say nothing (NumPy gives it any): name the emptiness instead.
  if (a.size() == 0) throw nb::value_error((name + ": is empty (shape " + shape_text(shape_of(a)) + ")").c_str());
  std::int64_t expect = 1;
  for (std::size_t d = a.ndim(); d-- > 0;) {
    if (a.shape(d) > 1 && a.stride(d) != expect)
      throw nb::value_error((name + ": must be C-contiguous (use numpy.ascontiguousarray)").c_str());
    expect *= std::int64_t(a.shape(d));
  }
}

template <class T>
const T* host_input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape) {
  if (a.device_type() != nb::device::cpu::value)
    throw nb::type_error((name + ": a CPU (NumPy) array is needed here; this operator takes no device arrays").c_str());
  if (a.dtype() != nb::dtype<T>())
    throw nb::type_error((name + ": dtype must be " + dtype_name<T>() + " (use .astype(numpy." + dtype_name<T>() + "))").c_str());
  const std::vector<std::size_t> got = shape_of(a);
  bool same = got.size() == shape.size();
  for (std::size_t d = 0; same && d < got.size(); ++d) same = shape[d] == kAnySize || shape[d] == got[d];
  if (!same) throw nb::value_error((name + ": shape " + shape_text(got) + ", expected " + shape_text(shape)).c_str());
  require_c_contiguous(a, name);
  return static_cast<const T*>(a.data());
}

template const float* host_input<float>(const AnyArray&, const std::string&, const std::vector<std::size_t>&);
template const double* host_input<double>(const AnyArray&, const std::string&, const std::vector<std::size_t>&);
template const std::uint32_t* host_input<std::uint32_t>(const AnyArray&, const std::string&, const std::vector<std::size_t>&);
template const std::int32_t* host_input<std::int32_t>(const AnyArray&, const std::string&, const std::vector<std::size_t>&);

template <class T>
nb::ndarray<nb::numpy, T> to_numpy(std::vector<T>&& data, const std::vector<std::size_t>& shape) {
  auto* owned = new std::vector<T>(std::move(data));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T>(owned->data(), shape.size(), shape.data(), owner);
}

template nb::ndarray<nb::numpy, float> to_numpy<float>(std::vector<float>&&, const std::vector<std::size_t>&);
template nb::ndarray<nb::numpy, double> to_numpy<double>(std::vector<double>&&, const std::vector<std::size_t>&);
template nb::ndarray<nb::numpy, std::uint32_t> to_numpy<std::uint32_t>(std::vector<std::uint32_t>&&, const std::vector<std::size_t>&);

FloatArray fresh_float_array(const std::vector<std::size_t>& shape, float*& data) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  constexpr std::size_t kHuge = std::size_t(2) << 20;
  const std::size_t bytes = (std::max<std::size_t>(n, 1) * sizeof(float) + kHuge - 1) / kHuge * kHuge;
  void* p = std::aligned_alloc(kHuge, bytes);
  if (!p) throw std::bad_alloc();
#ifdef __linux__
  (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
  nb::capsule owner(p, [](void* q) noexcept { std::free(q); });
  data = static_cast<float*>(p);
  return FloatArray(p, shape.size(), shape.data(), owner);
}

}  // namespace tomo::py
