// What the generated kernels need for `table` and `dawson` nodes, in each dialect: the table
// readers (kt_pack.hpp's layout) and Dawson's integral by the algorithm of compute/musr/dawson.cpp.
#pragma once
#include <string>

#include "compute/musr/codegen_common.hpp"

namespace tomo::musr {

// Device helpers of the generated kernels: mu_tab, mu_tab_dx, mu_tab_da and MU_TAB(s) for
// `tables` table slots a run (CUDA: the MuTab struct and pointer arguments; GLSL: a buffer at
// `binding`), and Dawson's integral mu_dawson in the dialect.
std::string cuda_table_helpers(const Dialect& d, int tables);
std::string glsl_table_helpers(const Dialect& d, int tables, int binding);
std::string dawson_source(const Dialect& d);

}  // namespace tomo::musr
