// What the Python reconstructions of glpet, safir and strip share (docs/pet.md): the callback
// after each iteration, which stops the layer's loop by returning False without losing the
// image, and the result tuple (image, [(iteration, image), ...] of save_iterations).
#pragma once
#include <utility>
#include <vector>

#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"

namespace tomo::py {

// Runs callback(iteration, image) holding the GIL (a Python exception unwinds as PythonRaised);
// false when it returned False (the loop stops after this iteration).
template <class T>
bool pet_callback(const nb::object& callback, int iteration, std::vector<T> image, const std::vector<std::size_t>& shape) {
  bool go = true;
  call_python(
      [&] {
        nb::object r = callback(iteration, to_numpy(std::move(image), shape));
        go = !(r.is_valid() && r.ptr() == Py_False);
        return r;
      },
      /*may_stop=*/false);
  return go;
}

template <class T>
using SavedImages = std::vector<std::pair<int, std::vector<T>>>;

template <class T>
nb::tuple pet_result(std::vector<T>&& image, SavedImages<T>&& saved, const std::vector<std::size_t>& shape) {
  nb::list list;
  for (auto& [it, x] : saved) list.append(nb::make_tuple(it, to_numpy(std::move(x), shape)));
  return nb::make_tuple(to_numpy(std::move(image), shape), list);
}

}  // namespace tomo::py
