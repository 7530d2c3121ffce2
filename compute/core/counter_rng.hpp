// Counter-based random draws that the cpu reference and CUDA kernels share: Random123's
// Philox4x32-10 keyed by a seed, its counter holding a stream id (a history, an event, a chunk)
// and a running block number. Draw k of stream s under seed z is the same number on every
// backend and thread count, so a simulator's cpu and GPU forms produce the same histories.
#pragma once
#include <cstdint>

#include <Random123/philox.h>

#include "compute/core/host_device.hpp"

namespace tomo {

class CounterRng {
 public:
  using Philox = r123::Philox4x32;

  TOMO_HD CounterRng(std::uint64_t seed, std::uint64_t stream) {
    key_ = {{std::uint32_t(seed), std::uint32_t(seed >> 32)}};
    ctr_ = {{std::uint32_t(stream), std::uint32_t(stream >> 32), 0u, 0u}};
  }
  // The same stream from its Philox block `block` on (words 4·block …): a thread can start a
  // stream's draws where another thread's sequential draws would be.
  TOMO_HD CounterRng(std::uint64_t seed, std::uint64_t stream, std::uint32_t block) : CounterRng(seed, stream) {
    ctr_[2] = block;
  }

  // The next 32 random bits (four per Philox block).
  TOMO_HD std::uint32_t next32() {
    if (left_ == 0) {
      block_ = Philox()(ctr_, key_);
      ++ctr_[2];
      left_ = 4;
    }
    return block_[std::uint32_t(4 - left_--)];
  }
  // Uniform in [0, 1) with 53 random bits (two words).
  TOMO_HD double uniform() {
    const std::uint64_t hi = next32(), lo = next32();
    return double(((hi << 32) | lo) >> 11) * 0x1.0p-53;
  }
  // Uniform in [0, 1) with 24 random bits (one word).
  TOMO_HD float uniformf() { return float(next32() >> 8) * 0x1.0p-24f; }

 private:
  Philox::key_type key_;
  Philox::ctr_type ctr_;
  Philox::ctr_type block_{};
  int left_ = 0;
};

}  // namespace tomo
