#version 450 core
// Point-blend ceiling (bench): every point adds 1 (GL_ONE, GL_ONE blending into R32F).
out float o;
void main() { o = 1.0; }
