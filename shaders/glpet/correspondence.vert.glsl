#version 450 core
// glpet raster pass 1 ([Toth2010] §II.A–B): the secondary module quad of one voxel sample per
// instance, drawn with the sample's camera into layer gl_InstanceID of the correspondence
// target. Attributes: the index colours of [Toth2010] and the world-space corners (hit point y2),
// interpolated perspective-correctly. Forward passes skip voxels with x_v = 0.
#extension GL_ARB_shader_viewport_layer_array : require
#include "raster_common.glsl"

layout(std430, binding = GLPET_IMAGE) readonly buffer X { float x[]; };
uniform vec3 u_sec_corner[8];  // [primary·4 + corner]: the secondary's corners when `primary` is primary
uniform vec2 u_sec_colour[8];  // (1,1), (N_a+1,1), (N_a+1,N_t+1), (1,N_t+1)
uniform int u_skip_zero;
out vec2 v_colour;
out vec3 v_y2;
flat out int v_layer;

void main() {
  const int corner_of[6] = int[](0, 1, 2, 0, 2, 3);
  int layer = gl_InstanceID;
  int record = u_first_record + layer;
  Camera cam = cams[record];
  int slot = int(cam.v_primary.w) * 4 + corner_of[gl_VertexID];
  v_colour = u_sec_colour[slot];
  v_y2 = u_sec_corner[slot];
  v_layer = layer;
  gl_Layer = layer;
  gl_Position = cam.view_projection * vec4(u_sec_corner[slot], 1.0);
  if (u_skip_zero != 0 && x[record / u_N] == 0.0) gl_Position = vec4(2.0, 2.0, 0.0, 1.0);  // culled: nothing drawn
}
