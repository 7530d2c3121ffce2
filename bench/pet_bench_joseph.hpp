// bench_pet's line projector rows: Joseph's LOR-driven projector (compute/pet/line_projector.hpp)
// on glpet_default.toml's lines (two 32×32 modules of 2 mm at z = ∓80 mm, 1.05 M LORs, 128³
// voxels of 0.5 mm), cuda on device arrays against the cpu reference, and the cuda kernels alone
// (joseph_kernels.hpp).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tomo::bench::pet_joseph {

nlohmann::json run(int reps, const std::vector<std::string>& backends);

}  // namespace tomo::bench::pet_joseph
