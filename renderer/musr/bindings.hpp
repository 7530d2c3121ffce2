// Binding points of musr's generated χ² pass (the template shaders/musr/chi2.comp.glsl). The
// build generates the GLSL include "bindings/musr.glsl" from this file
// (cmake/bindings_gen.cmake): each `inline constexpr unsigned kCamelName = N;` line becomes
// `#define MUSR_CAMEL_NAME N`. One definition per line, a literal value.
#pragma once

namespace tomo::musr::binding {

// Shader storage buffers.
inline constexpr unsigned kRuns = 0;      // one GlslRunInfo per run
inline constexpr unsigned kBlockRun = 1;  // the run of each work group
inline constexpr unsigned kBins = 2;      // (y, w) per bin
inline constexpr unsigned kTimes = 3;     // bin times where a run's are not evenly spaced
inline constexpr unsigned kParams = 4;    // the fit's parameters
inline constexpr unsigned kPartials = 5;  // NS partial sums per work group
inline constexpr unsigned kParamMap = 6;  // the runs' parameter maps
inline constexpr unsigned kTables = 7;       // one GlslTableInfo per run and table (kGlslTableBinding)
inline constexpr unsigned kTableValues = 8;  // the tables' values, refilled before each dispatch

}  // namespace tomo::musr::binding
