// The data and the runs of the cuda multi-device tests (one process, and under mpirun): the
// small system with a hot ball's Monte-Carlo counts, 5 ML-EM iterations on the cuda ranks.
#pragma once
#include <string>
#include <vector>

#include "compute/glpet/distributed_mlem.hpp"
#include "tests/glpet/small_system.hpp"

namespace tomo::glpet::test {

struct Data {
  SystemModel sys = small_system(16, 2.0, 2, 16);
  std::vector<float> y = hot_ball_counts(sys, 1'000'000, 7);
};

inline DistributedResult run_on(const std::string& gpus, MultiMode mode, const Data& d,
                                MultiSplit split = MultiSplit::automatic) {
  MultiDevice md = (*find_multi_device("cuda"))(gpus, {});
  DistributedOptions opt;
  opt.mode = mode;
  opt.split = split;
  opt.mlem.iterations = 5;
  return run_distributed_mlem(md, d.sys, d.y, opt);
}

}  // namespace tomo::glpet::test
