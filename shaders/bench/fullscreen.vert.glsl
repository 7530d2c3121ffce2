#version 450 core
// A full-screen triangle from gl_VertexID 0..2, for the fragment-side ceilings (bench).
void main() {
  vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
