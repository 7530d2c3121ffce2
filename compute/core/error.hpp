// Exceptions used everywhere: InputError for what the user got wrong (exit 2),
// Error for everything else (exit 1). Messages name the file, key or value at fault.
#pragma once
#include <stdexcept>
#include <string>

namespace tomo {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad input: malformed scene, wrong-size file, NaN, unknown backend, missing feature.
class InputError : public Error {
 public:
  using Error::Error;
};

// The device (GL driver, CUDA runtime) lacks what a backend needs.
class UnavailableError : public Error {
 public:
  using Error::Error;
};

}  // namespace tomo
