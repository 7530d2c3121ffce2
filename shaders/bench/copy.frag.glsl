#version 450 core
// Fragment copy ceiling (bench): one RGBA32F texelFetch and one RGBA32F write per fragment,
// the most a per-pixel pass like glpet's terms pass ([Toth2010] §IV) can do.
uniform sampler2D u_src;
out vec4 o;
void main() { o = texelFetch(u_src, ivec2(gl_FragCoord.xy), 0) + vec4(1.0); }
