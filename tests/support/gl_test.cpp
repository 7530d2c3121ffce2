#include "support/gl_test.hpp"

#include "core/runtime_options.hpp"

namespace tomo::test {

gl::Context& gl_context() {
  runtime_options().gl_validate = true;
  gl::Context& ctx = gl::shared_context();
  ctx.make_current();
  return ctx;
}

}  // namespace tomo::test
