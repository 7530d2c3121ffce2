// CUDA–OpenGL interop that takes only GL object names (no GL headers here): RAII registration of
// GL buffers and textures, and scoped map guards that yield a device pointer / cudaArray on a stream.
// Where registration is refused (e.g. the GL context is Mesa, or not on this CUDA device) or
// InteropMode::ForceCopy is asked, the guards fall back to copies through a caller-given HostTransfer.
// All calls need the owning GL context current on the calling thread.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cuda/core/cuda_array.hpp"
#include "cuda/core/surface.hpp"
#include "cuda/core/texture.hpp"

namespace tomo::cuda {

enum class InteropMode {
  Auto,             // register with CUDA; fall back to copies when that is refused
  RequireZeroCopy,  // register or throw UnavailableError
  ForceCopy,        // never register: always the copy path (tests, debugging)
};

// How CUDA uses the resource while mapped (registration flags and which copies the fallback does).
enum class MapAccess {
  ReadWrite,     // cudaGraphicsRegisterFlagsNone: GL contents in, CUDA results out
  ReadOnly,      // CUDA only reads: no copy back to GL
  WriteDiscard,  // CUDA overwrites everything: GL contents are not read in
};

// The copy path's access to GL: tightly packed bytes of the whole buffer / level 0 of the texture
// (all layers or slices, x fastest). Typically glGetNamedBufferSubData / glNamedBufferSubData and
// glGetTextureImage / glTextureSubImage*D, run with the GL context current.
struct HostTransfer {
  std::function<void(void* dst, std::size_t bytes)> read_from_gl;
  std::function<void(const void* src, std::size_t bytes)> write_to_gl;
};

// GL enums the callers in cuda/ need without GL headers.
inline constexpr unsigned kGlTexture2D = 0x0DE1;       // GL_TEXTURE_2D
inline constexpr unsigned kGlTexture2DArray = 0x8C1A;  // GL_TEXTURE_2D_ARRAY
inline constexpr unsigned kGlTexture3D = 0x806F;       // GL_TEXTURE_3D

// CUDA channel format of a sized GL internal format (GL_R32F, GL_RGBA8, GL_R32UI, ...), if known.
std::optional<cudaChannelFormatDesc> channel_desc_for_gl_format(unsigned internal_format);

namespace detail {
struct BufferState;
struct ImageState;
}  // namespace detail

// A GL buffer object registered with CUDA (or prepared for the copy path). Move-only; destroy it
// before the GL buffer and with the GL context current.
class GlBufferResource {
 public:
  // bytes: size of the GL buffer; required for the copy path, checked against the mapping otherwise.
  GlBufferResource(unsigned gl_buffer, std::size_t bytes, MapAccess access = MapAccess::ReadWrite,
                   InteropMode mode = InteropMode::Auto, HostTransfer fallback = {});
  ~GlBufferResource();
  GlBufferResource(GlBufferResource&&) noexcept;
  GlBufferResource& operator=(GlBufferResource&&) noexcept;
  GlBufferResource(const GlBufferResource&) = delete;
  GlBufferResource& operator=(const GlBufferResource&) = delete;

  bool is_zero_copy() const;
  const std::string& fallback_reason() const;  // why registration was not used; empty when zero-copy
  unsigned gl_name() const;
  std::size_t bytes() const;
  MapAccess access() const;

 private:
  friend class MappedBuffer;
  std::unique_ptr<detail::BufferState> s_;
};

// Scoped mapping of a GlBufferResource on `stream`: ptr() is device memory valid until unmap.
// The destructor unmaps and logs failures; call unmap() to get them as exceptions.
class MappedBuffer {
 public:
  explicit MappedBuffer(GlBufferResource& resource, cudaStream_t stream = nullptr);
  ~MappedBuffer();
  MappedBuffer(MappedBuffer&& o) noexcept;
  MappedBuffer(const MappedBuffer&) = delete;
  MappedBuffer& operator=(const MappedBuffer&) = delete;
  MappedBuffer& operator=(MappedBuffer&&) = delete;

  void* ptr() const noexcept { return ptr_; }
  std::size_t bytes() const noexcept { return bytes_; }
  template <class T>
  T* as() const noexcept { return static_cast<T*>(ptr_); }
  // Ends the mapping: CUDA work queued on the stream before it is visible to later GL commands.
  void unmap();

 private:
  detail::BufferState* s_ = nullptr;
  cudaStream_t stream_ = nullptr;
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// What the GL texture is; the copy path allocates cudaArrays of this extent and format.
struct GlImageDesc {
  unsigned target = kGlTexture2D;  // GL_TEXTURE_2D, GL_TEXTURE_2D_ARRAY or GL_TEXTURE_3D
  unsigned internal_format = 0;    // sized GL format; checked against `channel` when both are given
  std::size_t width = 0, height = 0;
  std::size_t depth = 0;           // layers (2D array) or slices (3D); ignored for GL_TEXTURE_2D
  cudaChannelFormatDesc channel{};  // left empty: derived from internal_format
  bool surface_load_store = true;  // register for surf*write (cudaGraphicsRegisterFlagsSurfaceLoadStore)

  // Level-0 extent of one CUDA sub-resource: {w, h, 0} for 2D and for each layer of a 2D array,
  // {w, h, d} for 3D; layers() is the number of sub-resources (layers of a 2D array, else 1).
  ArrayExtent extent() const;
  unsigned layers() const { return target == kGlTexture2DArray ? unsigned(depth) : 1u; }
};

// A GL texture registered with CUDA (or prepared for the copy path). Move-only.
class GlImageResource {
 public:
  GlImageResource(unsigned gl_texture, const GlImageDesc& desc, MapAccess access = MapAccess::ReadWrite,
                  InteropMode mode = InteropMode::Auto, HostTransfer fallback = {});
  ~GlImageResource();
  GlImageResource(GlImageResource&&) noexcept;
  GlImageResource& operator=(GlImageResource&&) noexcept;
  GlImageResource(const GlImageResource&) = delete;
  GlImageResource& operator=(const GlImageResource&) = delete;

  bool is_zero_copy() const;
  const std::string& fallback_reason() const;
  unsigned gl_name() const;
  const GlImageDesc& desc() const;  // with `channel` filled in
  MapAccess access() const;

 private:
  friend class MappedImage;
  std::unique_ptr<detail::ImageState> s_;
};

// Scoped mapping of a GlImageResource on `stream`. Surface/texture objects made from it must be
// destroyed before it unmaps, once the kernels using them are done (synchronize the stream).
class MappedImage {
 public:
  explicit MappedImage(GlImageResource& resource, cudaStream_t stream = nullptr);
  ~MappedImage();
  MappedImage(MappedImage&& o) noexcept;
  MappedImage(const MappedImage&) = delete;
  MappedImage& operator=(const MappedImage&) = delete;
  MappedImage& operator=(MappedImage&&) = delete;

  // The cudaArray of one mip level and layer (CUDA's arrayIndex). A GL_TEXTURE_2D_ARRAY maps as one
  // 2D cudaArray per layer (layer < layers()); GL_TEXTURE_2D and GL_TEXTURE_3D have layer 0 only, the
  // latter as a 3D array. The copy path mirrors this with level 0 only.
  cudaArray_t array(unsigned level = 0, unsigned layer = 0) const;
  unsigned layers() const;
  SurfaceObject surface(unsigned level = 0, unsigned layer = 0) const { return SurfaceObject(array(level, layer)); }
  TextureObject texture(const TextureOptions& options = {}, unsigned level = 0, unsigned layer = 0) const {
    return TextureObject(array(level, layer), options);
  }
  void unmap();

 private:
  detail::ImageState* s_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace tomo::cuda
