// NumPy arrays in and out of the Python module: inputs are used in place when they are
// float32/float64 C-contiguous CPU arrays of the expected shape, else one ValueError/TypeError
// naming the argument; outputs own their memory through a capsule.
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <string>
#include <vector>

namespace tomo::py {

namespace nb = nanobind;
using FloatArray = nb::ndarray<nb::numpy, float>;
using AnyArray = nb::ndarray<nb::ro>;

// The array's float32 data in place (C-contiguous float32 on the CPU, of `count` elements or of
// exactly `shape` where given), else TypeError/ValueError naming `name` and what it got.
const float* float_input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape);
const double* double_input(const AnyArray& a, const std::string& name, const std::vector<std::size_t>& shape);

// A new NumPy float32 array of `shape` holding `data` (moved, no copy).
FloatArray to_numpy(std::vector<float>&& data, const std::vector<std::size_t>& shape);

}  // namespace tomo::py
