#version 450 core
// Fragment-shader fp32 FMA ceiling (bench): one R32F output per fragment.
#include "bench/fma.glsl"
out float o;
void main() { o = fma_chains(gl_FragCoord.x); }
