#version 450 core
// glpet raster pass 2: the point's value, added to its atlas texel by GL_ONE/GL_ONE blending.
in float v_value;
out vec4 o_value;
void main() { o_value = vec4(v_value, 0.0, 0.0, 0.0); }
