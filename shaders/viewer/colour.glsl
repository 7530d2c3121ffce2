// Viewer colour mappings. colour_map() has the formulas of compute/io/png.cpp (gray, hot,
// viridis) and correspondence_colour() those of renderer/viewer/layout.cpp, so that a
// screenshot matches the PNG previews and the tests' CPU twins.
#include "bindings/viewer.glsl"

const vec3 kViridis[9] = vec3[](vec3(68, 1, 84), vec3(71, 45, 123), vec3(59, 82, 139), vec3(44, 114, 142),
                                vec3(33, 144, 140), vec3(39, 173, 129), vec3(93, 200, 99), vec3(170, 220, 50),
                                vec3(253, 231, 37));

// map: VIEWER_MAP_GRAY, _HOT or _VIRIDIS (viewer::ColourMap); t is clamped to [0, 1].
vec3 colour_map(int map, float t) {
  t = clamp(t, 0.0, 1.0);
  if (map == VIEWER_MAP_GRAY) return vec3(t);
  if (map == VIEWER_MAP_HOT) return clamp(vec3(3.0 * t, 3.0 * t - 1.0, 3.0 * t - 2.0), 0.0, 1.0);
  float x = t * 8.0;
  int i = min(int(x), 7);
  float f = x - float(i);
  return ((1.0 - f) * kViridis[i] + f * kViridis[i + 1]) / 255.0;
}

// Hue circle at S = V = 1: red → yellow → green → cyan → blue → magenta.
vec3 hue_rgb(float h) {
  float H = 6.0 * h;
  vec3 k = mod(vec3(5.0, 3.0, 1.0) + H, 6.0);
  return 1.0 - max(vec3(0.0), min(min(k, 4.0 - k), vec3(1.0)));
}

// A correspondence-image texel (r, s, weight, hit): r → hue, s → value, weight → brightness.
vec3 correspondence_colour(vec4 t, int na, int nt, float wref) {
  if (t.a == 0.0) return vec3(0.0);
  float hue = (5.0 / 6.0) * (t.r + 0.5) / float(na);
  float value = 0.35 + 0.65 * (t.g + 0.5) / float(nt);
  float b = sqrt(clamp(t.b / wref, 0.0, 1.0));
  return hue_rgb(hue) * (value * (0.2 + 0.8 * b));
}
