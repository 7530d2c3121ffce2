#version 450 core
// Counts the iterations one invocation's loop runs (tests/renderer/gl_engine_test.cpp: the
// loop limit of software GL, caps.max_loop_iterations).
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Out { uint result; };
uniform int u_n;
void main() {
  uint c = 0u;
  for (int i = 0; i < u_n; ++i) c += 1u;
  result = c;
}
