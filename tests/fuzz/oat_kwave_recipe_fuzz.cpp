// libFuzzer target: the oat_kwave reader on well-formed HDF5 files built from a recipe
// (tests/fuzz/hdf5_recipe.hpp); built by tools/fuzz.sh.
#include "tests/fuzz/entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)tomo::fuzz::oat_kwave_recipe(data, size);  // any exception other than InputError aborts: a finding
  return 0;
}
