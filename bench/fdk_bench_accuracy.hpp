// bench_fdk's accuracy part (fdk_bench_accuracy.cpp): every backend against the cpu reference,
// on the default scene's small problem and on a strided subset of z-slices at the timed sizes.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/core/volume.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/pipeline.hpp"

namespace tomo::fdk::bench_accuracy {

// The cpu reference of one size L on a strided subset of its z-slices, in RabbitCT HU.
struct Reference {
  Grid3 grid;
  std::vector<int> slices;
  std::vector<float> hu;
};
using References = std::map<int, Reference>;

// The default scene's problem (124 views of 312×240 at 1.28 mm) at L³, cpu vs each backend in
// both interpolations: PSNR, RMSE, max (HU) and relative L2, printed and under out["accuracy"].
void small_accuracy(int L, const std::vector<std::string>& backends, nlohmann::json& out);
// The cpu reference of every size in `sizes` that is also in `psnr_sizes`, on `slices` z-slices.
References cpu_references(const std::vector<int>& sizes, const std::vector<int>& psnr_sizes, int slices,
                          const ProjectionStack& p, nlohmann::json& out);
// A full volume's subset slices against the reference.
RabbitMetric psnr_vs_cpu(const Reference& r, const VolumeF& v);

}  // namespace tomo::fdk::bench_accuracy
