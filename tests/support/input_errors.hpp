// Test support: the words of the InputError something throws, for tests of refusals.
#pragma once
#include <exception>
#include <filesystem>
#include <functional>
#include <string>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/output_dir.hpp"

namespace tomo::test {

// The message of the InputError `f` throws; "no exception", or the other exception named.
inline std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not an InputError: ") + e.what();
  }
  return "no exception";
}

// The message of the InputError a cpu run of `problem` on `s` throws, writing into `dir`
// ("" when none is thrown).
inline std::string run_error(const std::string& problem, const Scene& s, const std::filesystem::path& dir) {
  runtime_options().progress = false;
  RunReport report;
  OutputDir out(dir, true);
  RunContext ctx{s, "cpu", out, report};
  try {
    ProblemRegistry::instance().find(problem).run(ctx);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace tomo::test
