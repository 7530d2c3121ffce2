// Analytic phantom shapes as packed by tomo::demo::pack_shapes (5 vec4 per shape):
// [centre.xyz, kind] [semi_axes.xyz, value] [axis0] [axis1] [axis2]; kind 0 = ellipsoid, 1 = cylinder.
// Values add where shapes overlap.
struct PhantomShape {
  vec4 centre_kind;
  vec4 semi_value;
  vec4 axis0;
  vec4 axis1;
  vec4 axis2;
};

float shape_value_at(PhantomShape s, vec3 p) {
  vec3 d = p - s.centre_kind.xyz;
  vec3 l = vec3(dot(s.axis0.xyz, d), dot(s.axis1.xyz, d), dot(s.axis2.xyz, d)) / s.semi_value.xyz;
  bool inside = s.centre_kind.w < 0.5 ? dot(l, l) <= 1.0 : (dot(l.xy, l.xy) <= 1.0 && abs(l.z) <= 1.0);
  return inside ? s.semi_value.w : 0.0;
}
