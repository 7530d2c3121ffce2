// libFuzzer target: the PSI-MDU reader, and the RUN dispatch (tests/fuzz/entries.hpp); built by tools/fuzz.sh.
#include "tests/fuzz/entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)tomo::fuzz::musr_mdu(data, size);  // any exception other than InputError aborts: a finding
  return 0;
}
