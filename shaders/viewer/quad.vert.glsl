#version 450 core
// Viewer: one screen rectangle (window pixels, origin lower-left) as two triangles.
uniform vec4 u_rect;      // x, y, width, height
uniform vec2 u_viewport;  // window size
void main() {
  const vec2 corners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(1, 1), vec2(0, 0), vec2(1, 1), vec2(0, 1));
  vec2 p = u_rect.xy + corners[gl_VertexID] * u_rect.zw;
  gl_Position = vec4(p / u_viewport * 2.0 - 1.0, 0.0, 1.0);
}
