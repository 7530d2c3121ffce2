// fp32 FMA ceiling (bench): 8 independent FMA chains of ITERS steps each (needs #define ITERS),
// so the rate is bound by the FMA units, not by one chain's latency.
float fma_chains(float seed) {
  float a0 = seed, a1 = seed + 1.0, a2 = seed + 2.0, a3 = seed + 3.0;
  float a4 = seed + 4.0, a5 = seed + 5.0, a6 = seed + 6.0, a7 = seed + 7.0;
  for (int i = 0; i < ITERS; ++i) {
    a0 = fma(a0, 0.9999, 0.0001); a1 = fma(a1, 0.9999, 0.0001); a2 = fma(a2, 0.9999, 0.0001); a3 = fma(a3, 0.9999, 0.0001);
    a4 = fma(a4, 0.9999, 0.0001); a5 = fma(a5, 0.9999, 0.0001); a6 = fma(a6, 0.9999, 0.0001); a7 = fma(a7, 0.9999, 0.0001);
  }
  return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
