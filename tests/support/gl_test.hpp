// Test support: the shared GL context with validation on. A GL test that cannot get a
// context FAILS (CI runs llvmpipe; a skipped GL test would hide a broken engine).
#pragma once
#include "renderer/gl/engine.hpp"

namespace tomo::test {

// Turns validation on, makes the shared context current and returns it; throws
// (so the test fails) when no context can be made.
gl::Context& gl_context();

}  // namespace tomo::test
