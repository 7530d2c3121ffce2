// Fixed-point sums for GPU gathers (oat's H_srtᵀ, fdk's exact Aᵀ): a term v becomes
// V = round(v·S) in 64 bits and is added to a sum held as two 32-bit words, the low one first by a
// returning add, whose old value gives the carry into the high word. Integer adds commute, so the
// words end at the exact sum of the V whatever the order of the adds; each user picks the scale S
// (a power of two, so that v·S is exact) from a bound that keeps every sum below 2^63.
#pragma once
#include "compute/core/host_device.hpp"

namespace tomo {

struct FixedTerm {
  unsigned lo;
  int hi;
};
TOMO_HD FixedTerm fixed_split(long long v) {
  return {static_cast<unsigned>(v), static_cast<int>(v >> 32)};
}
// What the high word takes after the low word went from `old` to old + lo (mod 2^32).
TOMO_HD int fixed_high_add(const FixedTerm& t, unsigned old) {
  return t.hi + (old + t.lo < old ? 1 : 0);
}
TOMO_HD long long fixed_join(unsigned lo, int hi) {
  return static_cast<long long>((static_cast<unsigned long long>(static_cast<unsigned>(hi)) << 32) | lo);
}

}  // namespace tomo
