// The relative difference prior's pair terms ([Nuyts2002]), a line-by-line twin of
// compute/pet/rdp_math.hpp: d = a − b, D = a + b + γ|d| + ε,
// f = d²/D, ∂f/∂a = d(a + 3b + γ|d| + 2ε)/D², ∂²f/∂a² = 2(2b + ε)²/D³.

float rdp_denominator(float a, float b, float g, float e) { return a + b + g * abs(a - b) + e; }

float rdp_value(float a, float b, float g, float e) {
  float d = a - b, D = rdp_denominator(a, b, g, e);
  return D > 0.0 ? d * d / D : 0.0;
}

float rdp_derivative(float a, float b, float g, float e) {
  float d = a - b, D = rdp_denominator(a, b, g, e);
  return D > 0.0 ? d * (a + 3.0 * b + g * abs(d) + 2.0 * e) / (D * D) : 0.0;
}

float rdp_second_derivative(float a, float b, float g, float e) {
  float D = rdp_denominator(a, b, g, e), c = 2.0 * b + e;
  return D > 0.0 ? 2.0 * c * c / (D * D * D) : 0.0;
}

// Inverse centre distance in units of the smallest voxel side.
float rdp_weight(ivec3 o, vec3 voxel) {
  float m = min(voxel.x, min(voxel.y, voxel.z));
  return 1.0 / length(vec3(o) * voxel / m);
}
