// NumPy arrays in and out of the Python module: inputs are used in place when they are
// C-contiguous CPU arrays of the expected dtype and shape, else one ValueError/TypeError
// naming the argument; outputs own their memory through a capsule.
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tomo::py {

namespace nb = nanobind;
using FloatArray = nb::ndarray<nb::numpy, float>;
using DoubleArray = nb::ndarray<nb::numpy, double>;
using AnyArray = nb::ndarray<nb::ro>;

// A shape entry that matches any size (the event count of a list, the N of a stack).
inline constexpr std::size_t kAnySize = static_cast<std::size_t>(-1);

// The array's data in place (C-contiguous T on the CPU of exactly `shape`, kAnySize entries
// free), else TypeError/ValueError naming `name` and what it got. T: float, double, uint32, int32.
template <class T>
const T* host_input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape);

inline const float* float_input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape) {
  return host_input<float>(a, name, shape);
}
inline const double* double_input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape) {
  return host_input<double>(a, name, shape);
}

// "(2, 3)" / "(4,)": shapes in messages, as NumPy prints them.
std::string shape_text(const std::vector<std::size_t>& s);
// The array's shape as a vector.
std::vector<std::size_t> shape_of(const AnyArray& a);
// ValueError if empty, or unless C-contiguous (the last stride 1, each outer one the product of
// the inner sizes).
void require_c_contiguous(const AnyArray& a, const std::string& name);

// A new NumPy array of `shape` holding `data` (moved, no copy).
template <class T>
nb::ndarray<nb::numpy, T> to_numpy(std::vector<T>&& data, const std::vector<std::size_t>& shape);

inline FloatArray to_numpy(std::vector<float>&& data, const std::vector<std::size_t>& shape) {
  return to_numpy<float>(std::move(data), shape);
}

// A new float32 NumPy array of `shape` whose memory (at `data`) is not zeroed: the caller writes
// every element. Aligned to 2 MiB and, on Linux, offered transparent huge pages, so a copy into
// it (cuda::parallel_copy, by several threads) pages it in with 512× fewer faults (a 512³ volume
// took 64 ms to come back into 4 KiB pages).
FloatArray fresh_float_array(const std::vector<std::size_t>& shape, float*& data);

}  // namespace tomo::py
