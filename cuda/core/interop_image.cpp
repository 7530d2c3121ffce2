// GlImageResource / MappedImage: zero-copy mapping of a GL texture (2D, 2D array, 3D) as cudaArrays,
// or the copy path through cudaArrays of the same extent and format when registration is refused.
#include <cuda_gl_interop.h>

#include <utility>

#include "cuda/core/check.hpp"
#include "cuda/core/interop_detail.hpp"

namespace tomo::cuda {
namespace {

bool same_format(const cudaChannelFormatDesc& a, const cudaChannelFormatDesc& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w && a.f == b.f;
}

// Validates the description and fills in `channel` from the internal format when left empty.
GlImageDesc resolved(GlImageDesc d, const std::string& what) {
  if (d.target != kGlTexture2D && d.target != kGlTexture2DArray && d.target != kGlTexture3D)
    throw InputError(str_cat(what, ": target 0x", std::hex, d.target,
                             " is not GL_TEXTURE_2D, GL_TEXTURE_2D_ARRAY or GL_TEXTURE_3D"));
  if (d.width == 0 || d.height == 0) throw InputError(str_cat(what, ": width and height must be > 0"));
  if (d.target != kGlTexture2D && d.depth == 0) throw InputError(str_cat(what, ": layers/depth must be > 0"));
  const auto from_gl = channel_desc_for_gl_format(d.internal_format);
  const bool given = d.channel.x + d.channel.y + d.channel.z + d.channel.w > 0;
  if (!given) {
    if (!from_gl)
      throw InputError(str_cat(what, ": no channel format given and GL internal format 0x", std::hex,
                               d.internal_format, " is not in the table"));
    d.channel = *from_gl;
  } else if (from_gl && !same_format(*from_gl, d.channel)) {
    throw InputError(str_cat(what, ": channel format does not match GL internal format 0x", std::hex,
                             d.internal_format));
  }
  return d;
}

}  // namespace

namespace detail {
ImageState::~ImageState() { unregister_logged(resource, mapped, str_cat("GL texture ", gl)); }
}  // namespace detail

GlImageResource::GlImageResource(unsigned gl_texture, const GlImageDesc& desc, MapAccess access, InteropMode mode,
                                 HostTransfer fallback)
    : s_(std::make_unique<detail::ImageState>()) {
  auto& s = *s_;
  const std::string what = str_cat("GL texture ", gl_texture, " (", desc.width, "x", desc.height,
                                   desc.target == kGlTexture2D ? "" : str_cat("x", desc.depth), ")");
  if (gl_texture == 0) throw tomo::Error("CUDA-GL interop: GL texture name 0");
  s.gl = gl_texture;
  s.desc = resolved(desc, what);
  s.access = access;
  s.transfer = std::move(fallback);
  if (mode == InteropMode::ForceCopy) {
    s.reason = "InteropMode::ForceCopy";
  } else {
    unsigned flags = detail::register_flags(access);
    if (s.desc.surface_load_store) flags |= cudaGraphicsRegisterFlagsSurfaceLoadStore;
    const cudaError_t err = cudaGraphicsGLRegisterImage(&s.resource, gl_texture, s.desc.target, flags);
    if (err != cudaSuccess) {
      s.resource = nullptr;
      s.reason = detail::error_reason(err);
      if (mode == InteropMode::RequireZeroCopy)
        throw UnavailableError(str_cat("CUDA-GL interop: cannot register ", what, " (", s.reason, ")"));
    }
  }
  if (!s.resource) detail::require_transfer(s.transfer, access, what, s.reason);
  detail::log_path_once("image", s.resource != nullptr, what, s.reason);
}

GlImageResource::~GlImageResource() = default;
GlImageResource::GlImageResource(GlImageResource&&) noexcept = default;
GlImageResource& GlImageResource::operator=(GlImageResource&&) noexcept = default;

bool GlImageResource::is_zero_copy() const { return s_ && s_->resource; }
const std::string& GlImageResource::fallback_reason() const { return s_->reason; }
unsigned GlImageResource::gl_name() const { return s_->gl; }
const GlImageDesc& GlImageResource::desc() const { return s_->desc; }
MapAccess GlImageResource::access() const { return s_->access; }

MappedImage::MappedImage(GlImageResource& resource, cudaStream_t stream) : stream_(stream) {
  detail::ImageState* s = resource.s_.get();
  if (!s) throw tomo::Error("MappedImage: moved-from GlImageResource");
  if (s->mapped) throw tomo::Error(str_cat("MappedImage: GL texture ", s->gl, " is already mapped"));
  if (s->resource) {
    TOMO_CUDA_CHECK(cudaGraphicsMapResources(1, &s->resource, stream));
  } else {
    const ArrayExtent extent = s->desc.extent();
    const std::size_t elem = element_bytes(s->desc.channel);
    const std::size_t slice = extent.elements() * elem;
    if (s->staging.empty()) {
      for (unsigned l = 0; l < s->desc.layers(); ++l)
        s->staging.emplace_back(s->desc.channel, extent, cudaArraySurfaceLoadStore);
      s->pinned.resize(slice * s->staging.size());
    }
    if (s->access != MapAccess::WriteDiscard) {
      s->transfer.read_from_gl(s->pinned.data(), s->pinned.bytes());
      for (std::size_t l = 0; l < s->staging.size(); ++l)
        copy_to_array(s->staging[l].get(), extent, elem, s->pinned.data() + l * slice, cudaMemcpyHostToDevice, stream);
    }
  }
  s->mapped = true;
  s_ = s;
}

MappedImage::MappedImage(MappedImage&& o) noexcept : s_(std::exchange(o.s_, nullptr)), stream_(o.stream_) {}

MappedImage::~MappedImage() {
  try {
    unmap();
  } catch (const std::exception& e) {
    log_error("MappedImage: unmap failed: ", e.what());
  }
}

cudaArray_t MappedImage::array(unsigned level, unsigned layer) const {
  if (!s_) throw tomo::Error("MappedImage: not mapped");
  if (layer >= s_->desc.layers())
    throw tomo::Error(str_cat("MappedImage: GL texture ", s_->gl, " has ", s_->desc.layers(), " layer(s), asked ", layer));
  if (!s_->resource) {
    if (level != 0)
      throw tomo::Error(str_cat("MappedImage: the copy path of GL texture ", s_->gl, " has level 0 only (asked ", level, ")"));
    return s_->staging[layer].get();
  }
  cudaArray_t a = nullptr;
  TOMO_CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&a, s_->resource, layer, level));
  return a;
}

unsigned MappedImage::layers() const {
  if (!s_) throw tomo::Error("MappedImage: not mapped");
  return s_->desc.layers();
}

void MappedImage::unmap() {
  detail::ImageState* s = std::exchange(s_, nullptr);
  if (!s) return;
  s->mapped = false;
  if (s->resource) {
    TOMO_CUDA_CHECK(cudaGraphicsUnmapResources(1, &s->resource, stream_));
    return;
  }
  if (s->access != MapAccess::ReadOnly) {
    const ArrayExtent extent = s->desc.extent();
    const std::size_t elem = element_bytes(s->desc.channel);
    const std::size_t slice = extent.elements() * elem;
    for (std::size_t l = 0; l < s->staging.size(); ++l)
      copy_from_array(s->pinned.data() + l * slice, s->staging[l].get(), extent, elem, cudaMemcpyDeviceToHost, stream_);
  }
  TOMO_CUDA_CHECK(cudaStreamSynchronize(stream_));
  if (s->access != MapAccess::ReadOnly) s->transfer.write_to_gl(s->pinned.data(), s->pinned.bytes());
}

}  // namespace tomo::cuda
