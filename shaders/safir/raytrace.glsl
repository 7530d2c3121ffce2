// safir: the slice walk of [Locans2017] eq. (12) in GLSL, a twin of compute/safir/kernel_math.hpp
// (walk_line) written as a cursor, since GLSL has no callbacks: walk_begin, then walk_next
// yields (voxel index, weight > 0) until it returns false.

uniform vec3 u_origin;  // centre of voxel (0, 0, 0), mm
uniform float u_voxel;  // mm
uniform ivec3 u_n;      // voxels
uniform float u_md;     // m_d in voxels

struct Walk {
  vec3 a, d;
  int m, u, w;
  float inv_dm, scale;
  int k, k1, q, iu, iw;
  float fu, fw;
};

Walk walk_begin(vec3 a, vec3 b, int label) {
  Walk s;
  s.a = a;
  s.d = b - a;
  s.m = label - 1;
  s.u = s.m == 0 ? 1 : 0;
  s.w = s.m == 2 ? 1 : 2;
  s.inv_dm = 1.0 / s.d[s.m];
  s.scale = length(s.d) * abs(s.inv_dm);
  float t0 = -1e30, t1 = 1e30;
  for (int q = 0; q < 2; ++q) {
    int i = q == 0 ? s.u : s.w;
    if (s.d[i] == 0.0) continue;
    float ta = (u_origin[i] - u_voxel - a[i]) / s.d[i], tb = (u_origin[i] + float(u_n[i]) * u_voxel - a[i]) / s.d[i];
    t0 = max(t0, min(ta, tb));
    t1 = min(t1, max(ta, tb));
  }
  float inv_v = 1.0 / u_voxel;
  float ka = (a[s.m] + t0 * s.d[s.m] - u_origin[s.m]) * inv_v, kb = (a[s.m] + t1 * s.d[s.m] - u_origin[s.m]) * inv_v;
  float km0 = min(ka, kb), km1 = max(ka, kb);
  int nm = u_n[s.m];
  int k0 = km0 < 0.0 ? 0 : (km0 > float(nm) ? nm : int(ceil(km0)));
  s.k1 = km1 >= float(nm - 1) ? nm - 1 : (km1 < 0.0 ? -1 : int(floor(km1)));
  s.k = k0 - 1;
  s.q = 4;  // the first walk_next starts slice k0
  return s;
}

bool walk_next(inout Walk s, out int j, out float weight) {
  for (;;) {
    if (s.q >= 4) {
      s.k++;
      if (s.k > s.k1) return false;
      float t = (u_origin[s.m] + float(s.k) * u_voxel - s.a[s.m]) * s.inv_dm;
      s.fu = (s.a[s.u] + t * s.d[s.u] - u_origin[s.u]) / u_voxel;
      s.fw = (s.a[s.w] + t * s.d[s.w] - u_origin[s.w]) / u_voxel;
      s.iu = int(floor(s.fu));
      s.iw = int(floor(s.fw));
      s.q = 0;
    }
    int ju = s.iu + (s.q >> 1), jw = s.iw + (s.q & 1);
    s.q++;
    if (ju < 0 || ju >= u_n[s.u] || jw < 0 || jw >= u_n[s.w]) continue;
    float eu = s.fu - float(ju), ew = s.fw - float(jw);
    weight = (u_md - sqrt(eu * eu + ew * ew)) * s.scale;
    if (weight > 0.0) {
      ivec3 c;
      c[s.m] = s.k;
      c[s.u] = ju;
      c[s.w] = jw;
      j = c.x + u_n.x * (c.y + u_n.y * c.z);
      return true;
    }
  }
  return false;
}
