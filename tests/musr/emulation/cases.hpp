// The emulated cases (kernel_shim.hpp): data shapes the GPU tests use (16-detector eq. 5 with a
// run of 4n + 2 bins, max-likelihood with a scale, uneven times, every operation with (y, 1/σ²)
// pairs, fewer bins than a Pack) × the shipped kernels in float and double, checked here where no
// GPU runs. Shared by the build-time generator and the test, which rebuilds each case's data and
// tables.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "compute/musr/codegen_cuda.hpp"
#include "tests/musr/gpu_test_data.hpp"

namespace tomo::musr::emu {

struct EmulationCase {
  std::string name;
  FitData data;
  std::vector<double> params;
  bool single = false;
  int resident_blocks = 8;  // the wave of blocks an SM the tables are sized for
};

inline std::vector<EmulationCase> emulation_cases() {
  using test::eq5_data, test::eq5_truth, test::perturbed;
  struct Shape {
    const char* name;
    FitData data;
    std::vector<double> params;
  };
  std::vector<Shape> shapes;
  FitData odd = eq5_data(4, 3001);
  odd.runs[2].t.resize(2998), odd.runs[2].y.resize(2998), odd.runs[2].sigma.resize(2998);
  shapes.push_back({"eq5", odd, perturbed(eq5_truth(4))});
  FitData ml = eq5_data(2, 1503, Statistic::max_likelihood);
  for (auto& r : ml.runs) r.scale = 0.5;
  shapes.push_back({"likelihood", ml, perturbed(eq5_truth(2))});
  FitData uneven = eq5_data(3, 1001);
  for (std::size_t k = 0; k < uneven.runs[1].t.size(); ++k) uneven.runs[1].t[k] += 0.002 * std::sin(0.1 * static_cast<double>(k));
  shapes.push_back({"uneven", uneven, perturbed(eq5_truth(3))});
  shapes.push_back({"every_op", test::every_op_data(1027), perturbed(test::every_op_params())});
  shapes.push_back({"tiny", eq5_data(2, 3), perturbed(eq5_truth(2))});
  std::vector<EmulationCase> out;
  for (const Shape& s : shapes)
    for (const bool single : {true, false}) out.push_back({std::string(s.name) + (single ? "_float" : "_double"), s.data, s.params, single, 8});
  return out;
}

}  // namespace tomo::musr::emu
