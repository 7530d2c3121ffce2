#version 450 core
// Point-blend ceiling (bench): one point per vertex at a hashed pixel of a u_size² target.
uniform int u_size;
void main() {
  uint h = uint(gl_VertexID) * 2654435761u;
  vec2 c = (vec2(h % uint(u_size), (h >> 16) % uint(u_size)) + 0.5) / float(u_size);
  gl_Position = vec4(c * 2.0 - 1.0, 0.0, 1.0);
  gl_PointSize = 1.0;
}
