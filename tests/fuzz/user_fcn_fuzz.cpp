// libFuzzer target: the musr user-function reader (read_user_functions, then every function
// lowered) (tests/fuzz/entries.hpp); built by tools/fuzz.sh.
#include "tests/fuzz/entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)tomo::fuzz::user_fcn(data, size);  // any exception other than InputError aborts: a finding
  return 0;
}
