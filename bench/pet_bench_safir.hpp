// bench_pet's per-stage breakdown of safir's cuda OSEM iteration (pet_bench_safir.cpp): each
// kernel of one ML-EM iteration and of one full OSEM iteration timed with CUDA events, per
// variant (the product's plan, scalar tile loads and flushes, the iteration replayed as one CUDA
// graph), and the back pass's flush alone (a probe).
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <span>
#include <vector>

#include "compute/safir/scanner.hpp"

namespace tomo::bench::pet_safir {

// events: ordered for `subsets` interleaved subsets (safir::order_for_subsets). null without a device.
nlohmann::json cuda_stages(const safir::Scanner& scanner, const safir::ImageBox& box, std::span<const safir::Event> events,
                           int subsets, int repeats);

// The cuda backend's forward and back projection of all `events` on device memory (as Python's
// safir.Projector.forward/back run them: DeviceOperator), medians of `repeats` after a warm-up.
// null without a device.
nlohmann::json cuda_projections(const safir::Scanner& scanner, const safir::ImageBox& box,
                                std::span<const safir::Event> events, int repeats);

}  // namespace tomo::bench::pet_safir
