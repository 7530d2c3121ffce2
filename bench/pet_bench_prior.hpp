// bench_pet's prior rows: the relative difference prior's three stencil passes on device-resident
// images beside a copy of the same image, both measured in this run, on cuda (the product kernel
// launched directly) and gl-compute (the product shader dispatched directly).
#pragma once
#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tomo::bench::pet_prior {

// One row per backend among `backends` that is available; printed and returned as JSON.
nlohmann::json run(std::array<int, 3> dims, int reps, const std::vector<std::string>& backends);

}  // namespace tomo::bench::pet_prior
