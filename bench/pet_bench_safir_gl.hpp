// bench_pet's per-stage breakdown of safir's gl-compute OSEM iteration (pet_bench_safir_gl.cpp):
// the product's tiled passes (shaders/safir/tiled.comp.glsl, update.comp.glsl) over windows made
// as the backend makes them, one ML-EM iteration against one full OSEM iteration, for the
// product's plan (chunks of at least 8192 events) and for shorter and longer shortest chunks (a
// subset's group count; each group loads and flushes its tile once).
#pragma once
#include <nlohmann/json.hpp>
#include <span>
#include <vector>

#include "compute/safir/scanner.hpp"

namespace tomo::bench::pet_safir {

// events: ordered for `subsets` interleaved subsets (safir::order_for_subsets). null without GL.
nlohmann::json gl_stages(const safir::Scanner& scanner, const safir::ImageBox& box, std::span<const safir::Event> events,
                         int subsets, int repeats);

}  // namespace tomo::bench::pet_safir
