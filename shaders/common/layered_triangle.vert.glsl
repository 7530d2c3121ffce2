#version 450 core
// One full-viewport triangle per instance, routed to layer gl_InstanceID + u_first_layer:
// a whole 2D-array level is processed by one instanced draw.
#ifdef TOMO_VS_LAYER
#extension GL_ARB_shader_viewport_layer_array : require
#endif
uniform int u_first_layer;
flat out int v_layer;

void main() {
  vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
  v_layer = gl_InstanceID + u_first_layer;
#ifdef TOMO_VS_LAYER
  gl_Layer = v_layer;
#endif
}
