// RAII GL objects, move-only, with wrap()/release() of raw names so that a buffer or
// texture can be handed to CUDA interop or viewed/adopted from elsewhere, and a GPU Fence.
// DSA (GL 4.5) throughout.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "renderer/gl/gl.hpp"

namespace tomo::gl {

// Whether a wrapped name is freed by the wrapper: a view of a name that another object
// (a backend buffer, the CUDA interop hooks) owns must not delete it.
enum class Ownership { Borrow, Adopt };

// Owner of one GL name (or a borrowed view of it); Traits::destroy(GLuint) frees it.
template <class Traits>
class Handle {
 public:
  Handle() = default;
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, 0)), owned_(std::exchange(o.owned_, true)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, 0);
      owned_ = std::exchange(o.owned_, true);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  GLuint id() const { return id_; }
  explicit operator bool() const { return id_ != 0; }
  bool owns() const { return owned_; }
  // Gives up ownership: the caller now deletes the name.
  GLuint release() {
    owned_ = true;
    return std::exchange(id_, 0);
  }
  // Frees the name if this object owns it; a borrowed view just forgets it.
  void reset() {
    if (id_ && owned_) Traits::destroy(id_);
    id_ = 0;
    owned_ = true;
  }

 protected:
  explicit Handle(GLuint id) : id_(id) {}
  GLuint id_ = 0;
  bool owned_ = true;
};

struct BufferTraits { static void destroy(GLuint id) { glDeleteBuffers(1, &id); } };
struct TextureTraits { static void destroy(GLuint id) { glDeleteTextures(1, &id); } };
struct FramebufferTraits { static void destroy(GLuint id) { glDeleteFramebuffers(1, &id); } };
struct ProgramTraits { static void destroy(GLuint id) { glDeleteProgram(id); } };
struct ShaderTraits { static void destroy(GLuint id) { glDeleteShader(id); } };
struct QueryTraits { static void destroy(GLuint id) { glDeleteQueries(1, &id); } };
struct VertexArrayTraits { static void destroy(GLuint id) { glDeleteVertexArrays(1, &id); } };

class Buffer : public Handle<BufferTraits> {
 public:
  Buffer() = default;
  // Immutable storage of `bytes` (glNamedBufferStorage), optionally initialised.
  Buffer(std::size_t bytes, const void* data = nullptr, GLbitfield flags = GL_DYNAMIC_STORAGE_BIT);
  // A view of a buffer owned elsewhere (Borrow: never deleted here), or adoption of a raw name.
  static Buffer wrap(GLuint id, std::size_t bytes, Ownership ownership = Ownership::Borrow) {
    Buffer b;
    b.id_ = id;
    b.owned_ = ownership == Ownership::Adopt;
    b.bytes_ = bytes;
    return b;
  }
  std::size_t bytes() const { return bytes_; }

  void upload(const void* data, std::size_t bytes, std::size_t offset = 0);
  void download(void* data, std::size_t bytes, std::size_t offset = 0) const;
  void clear_zero();
  void clear_zero(std::size_t offset, std::size_t bytes);  // a 4-byte-aligned range
  template <class T> std::vector<T> read() const {
    std::vector<T> out(bytes_ / sizeof(T));
    download(out.data(), out.size() * sizeof(T));
    return out;
  }
  template <class T> static Buffer from(const std::vector<T>& v, GLbitfield flags = GL_DYNAMIC_STORAGE_BIT) {
    return Buffer(v.size() * sizeof(T), v.data(), flags);
  }
  void bind_base(GLenum target, GLuint index) const;

 private:
  std::size_t bytes_ = 0;
};

class Texture : public Handle<TextureTraits> {
 public:
  Texture() = default;
  static Texture create_2d(GLenum internal_format, int width, int height, int levels = 1);
  static Texture create_2d_array(GLenum internal_format, int width, int height, int layers, int levels = 1);
  static Texture create_3d(GLenum internal_format, int width, int height, int depth, int levels = 1);
  static Texture wrap(GLuint id, GLenum target, GLenum internal_format, std::array<int, 3> size, int levels = 1);

  GLenum target() const { return target_; }
  GLenum internal_format() const { return format_; }
  int width() const { return size_[0]; }
  int height() const { return size_[1]; }
  int depth() const { return size_[2]; }  // depth or layers (1 for 2D)
  int levels() const { return levels_; }

  // Whole-level upload/download of float data with `channels` components (1 = RED, 4 = RGBA).
  void upload_float(const float* data, int channels, int level = 0);
  std::vector<float> read_float(int channels, int level = 0) const;
  void clear_zero(int level = 0);
  void set_filter(GLenum min_filter, GLenum mag_filter);
  void set_wrap(GLenum mode);

 private:
  GLenum target_ = 0;
  GLenum format_ = 0;
  std::array<int, 3> size_{0, 0, 0};
  int levels_ = 1;
};

class Framebuffer : public Handle<FramebufferTraits> {
 public:
  static Framebuffer create();
  void attach(GLenum attachment, const Texture& tex, int level = 0);
  void attach_layer(GLenum attachment, const Texture& tex, int layer, int level = 0);
  void set_draw_buffers(int count);
  void check_complete() const;  // throws with the status name
  void bind() const;
};

class VertexArray : public Handle<VertexArrayTraits> {
 public:
  static VertexArray create();
  void bind() const;
};

class Query : public Handle<QueryTraits> {
 public:
  static Query create(GLenum target);
  GLenum target() const { return target_; }
  GLuint64 result_u64() const;  // waits for the result
 private:
  GLenum target_ = 0;
};

// A GPU fence (glFenceSync) after the commands queued so far; move-only, deleted with the object.
class Fence {
 public:
  Fence() = default;
  static Fence insert();
  ~Fence() { reset(); }
  Fence(Fence&& o) noexcept : sync_(std::exchange(o.sync_, nullptr)) {}
  Fence& operator=(Fence&& o) noexcept {
    if (this != &o) {
      reset();
      sync_ = std::exchange(o.sync_, nullptr);
    }
    return *this;
  }
  Fence(const Fence&) = delete;
  Fence& operator=(const Fence&) = delete;

  explicit operator bool() const { return sync_ != nullptr; }
  // Flushes and blocks until the fenced commands are done, then deletes the fence (nothing to do
  // when empty). Throws tomo::Error "<what> failed" on GL_WAIT_FAILED or after `timeout_ns`.
  void wait(const std::string& what, GLuint64 timeout_ns = GLuint64(600) * 1000000000ull);
  void reset();

 private:
  GLsync sync_ = nullptr;
};

class Program : public Handle<ProgramTraits> {
 public:
  Program() = default;
  static Program wrap(GLuint id) { Program p; p.id_ = id; return p; }
  // A linked program that remembers its name and GLSL text (after includes), so that
  // location() can tell a misspelt uniform from one the linker optimised out.
  static Program wrap(GLuint id, std::string name, std::string source) {
    Program p = wrap(id);
    p.name_ = std::move(name);
    p.source_ = std::move(source);
    return p;
  }
  const std::string& name() const { return name_; }
  void use() const;
  GLint uniform(const char* name) const;  // -1 when absent (optimised away)
  // The location of `name` for gl::Uniform: -1 when the linker optimised a declared uniform
  // out; throws tomo::Error naming program and uniform when the source does not contain it
  // (or, for a program wrapped without its source, whenever the location is -1).
  GLint location(const char* name) const;
  void set(const char* name, int v) const;
  void set(const char* name, unsigned v) const;
  void set(const char* name, float v) const;
  void set(const char* name, float x, float y) const;
  void set(const char* name, float x, float y, float z) const;
  void set(const char* name, float x, float y, float z, float w) const;
  void set(const char* name, int x, int y) const;
  void set(const char* name, int x, int y, int z) const;
  void set_mat4(const char* name, const float* m16) const;
  // glDispatchCompute rounding the global size up to the work-group size.
  void dispatch(int nx, int ny = 1, int nz = 1) const;
  std::array<int, 3> work_group_size() const;

 private:
  std::string name_;
  std::string source_;
};

}  // namespace tomo::gl
