// GLSL of the gl-compute χ² / max-likelihood pass of one fit, generated from the runs' expression
// programs into the template shaders/musr/chi2.comp.glsl (float or double; value and gradient).
#pragma once
#include <string>
#include <vector>

#include "compute/musr/fit_problem.hpp"

namespace tomo::musr {

inline constexpr int kGlslGroupThreads = 256;
inline constexpr int kGlslMaxSlots = 32;  // NS·256 floats of shared memory ≤ GL's 32 KB minimum (double: half)

// The run table the shader reads (std430 layout of the template's `RunInfo`).
struct GlslRunInfo {
  unsigned offset, count, first_block, blocks, affine, kind, pmap, pad;
  double t0, dt, scale;
};

// Theories with tabulated functions (kt_pack.hpp) read two more buffers: the tables' infos
// (GlslTableInfo, run r's table s at r·max_tables(data) + s) at kGlslTableBinding and their
// values (doubles) at kGlslTableBinding + 1, refilled by the host before each dispatch.
inline constexpr int kGlslTableBinding = 7;
struct GlslTableInfo {
  unsigned off, n;
  double dt;
};
struct TablePack;  // kt_pack.hpp
std::vector<GlslTableInfo> glsl_table_infos(const TablePack& pack);

// `tmpl` is the text of shaders/musr/chi2.comp.glsl; its @DEFINES@, @HELPERS@ and @CASES@ are
// replaced. With `gradient`, each group writes 1 + glsl_slots(data) partials, else 1. In double
// precision `double_library` (shaders/musr/double_math.glsl) supplies the elementary functions.
// Throws InputError when a run's theory has more than kGlslMaxSlots − 1 parameters (double: half).
// `tables_bound`: the caller binds the table buffers; without it a theory with tables is an
// InputError (the kernel would read unbound buffers).
std::string glsl_chi2_source(const FitData& data, bool gradient, const std::string& tmpl, bool double_precision = false,
                             const std::string& double_library = {}, bool tables_bound = false);
int glsl_slots(const FitData& data, bool gradient);

}  // namespace tomo::musr
