#include "tests/support/gl_test.hpp"

#include <gtest/gtest.h>

#include "compute/core/runtime_options.hpp"
#include "compute/core/shutdown.hpp"

namespace tomo::test {
namespace {

// Releases GPU contexts after the last test, while the drivers are still loaded.
class ShutdownEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { run_shutdown_hooks(); }
};
[[maybe_unused]] ::testing::Environment* const g_env = ::testing::AddGlobalTestEnvironment(new ShutdownEnvironment);

}  // namespace

gl::Context& gl_context() {
  runtime_options().gl_validate = true;
  gl::Context& ctx = gl::shared_context();
  ctx.make_current();
  return ctx;
}

}  // namespace tomo::test
