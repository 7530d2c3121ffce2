// The old include path of bench/gl/gl_pass_timings.hpp, seen only by bench_glpet (an include
// directory of bench/gl/CMakeLists.txt) until bench/glpet_bench.cpp and
// bench/glpet_bench_report.hpp include the new path; then this folder goes.
#pragma once
#include "bench/gl/gl_pass_timings.hpp"
