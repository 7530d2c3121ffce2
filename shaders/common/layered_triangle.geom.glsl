#version 450 core
// Fallback for drivers without GL_ARB_shader_viewport_layer_array: set gl_Layer here.
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
flat in int v_layer[];
flat out int g_layer;

void main() {
  for (int i = 0; i < 3; ++i) {
    gl_Position = gl_in[i].gl_Position;
    gl_Layer = v_layer[0];
    g_layer = v_layer[0];
    EmitVertex();
  }
  EndPrimitive();
}
