// Copies a glpet vector of any backend into a GL buffer for display (the viewer): GPU-side
// when the vector already is a GL buffer (gl, gl-compute, cuda with CUDA-GL interop), else
// through the host (cpu, cuda in plain device memory).
#pragma once
#include "renderer/gl/objects.hpp"
#include "compute/glpet/projector.hpp"

namespace tomo::glpet {

enum class CopyPath { Gpu, Host };

// dst[0, 4·src.size()) ← src, in the engine's shared context (made current). Needs
// dst.bytes() >= 4·src.size(). Returns the path taken.
CopyPath copy_to_gl(const BackendBuffer& src, gl::Buffer& dst);

}  // namespace tomo::glpet
