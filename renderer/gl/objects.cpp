#include "renderer/gl/objects.hpp"

#include <algorithm>
#include <cctype>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::gl {

// ---- Buffer ----
Buffer::Buffer(std::size_t bytes, const void* data, GLbitfield flags) : bytes_(bytes) {
  TOMO_GL_CHECK(glCreateBuffers(1, &id_));
  TOMO_GL_CHECK(glNamedBufferStorage(id_, static_cast<GLsizeiptr>(bytes), data, flags));
}
void Buffer::upload(const void* data, std::size_t bytes, std::size_t offset) {
  TOMO_GL_CHECK(glNamedBufferSubData(id_, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes), data));
}
void Buffer::download(void* data, std::size_t bytes, std::size_t offset) const {
  TOMO_GL_CHECK(glGetNamedBufferSubData(id_, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes), data));
}
void Buffer::clear_zero() {
  TOMO_GL_CHECK(glClearNamedBufferData(id_, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, nullptr));
}
void Buffer::clear_zero(std::size_t offset, std::size_t bytes) {
  if (bytes == 0) return;
  TOMO_GL_CHECK(glClearNamedBufferSubData(id_, GL_R32UI, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes),
                                          GL_RED_INTEGER, GL_UNSIGNED_INT, nullptr));
}
void Buffer::bind_base(GLenum target, GLuint index) const { TOMO_GL_CHECK(glBindBufferBase(target, index, id_)); }

// ---- Fence ----
Fence Fence::insert() {
  Fence f;
  f.sync_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  if (!f.sync_) throw Error("glFenceSync failed");
  return f;
}
void Fence::wait(const std::string& what, GLuint64 timeout_ns) {
  if (!sync_) return;
  const GLenum r = glClientWaitSync(sync_, GL_SYNC_FLUSH_COMMANDS_BIT, timeout_ns);
  reset();
  if (r == GL_WAIT_FAILED || r == GL_TIMEOUT_EXPIRED) throw Error(what + " failed");
}
void Fence::reset() {
  if (sync_) glDeleteSync(sync_);
  sync_ = nullptr;
}

// ---- Texture ----
namespace {
GLenum base_format(int channels) {
  switch (channels) {
    case 1: return GL_RED;
    case 2: return GL_RG;
    case 3: return GL_RGB;
    case 4: return GL_RGBA;
    default: throw Error("texture transfer: unsupported channel count " + std::to_string(channels));
  }
}
std::array<int, 3> level_size(const std::array<int, 3>& s, GLenum target, int level) {
  auto half = [&](int v) { return std::max(1, v >> level); };
  bool layered = target == GL_TEXTURE_2D_ARRAY;
  return {half(s[0]), half(s[1]), layered ? s[2] : half(s[2])};
}
}  // namespace

namespace {

// A texture beyond the driver's limits would fail with a bare GL_INVALID_VALUE:
// say which sizes and which limit instead. Queried from the current context, whose device it is.
void check_texture_size(const char* kind, int w, int h, int d, GLenum size_limit, GLenum depth_limit) {
  GLint max_size = 0, max_depth = 0;
  glGetIntegerv(size_limit, &max_size);
  if (depth_limit) glGetIntegerv(depth_limit, &max_depth);
  const bool too_big = w > max_size || h > max_size || (depth_limit && d > max_depth);
  if (w < 1 || h < 1 || d < 1 || too_big)
    throw UnavailableError(str_cat("a ", w, "x", h, depth_limit ? str_cat("x", d) : std::string(), " ", kind,
                                   " texture is beyond this OpenGL's limits (", max_size, " texels a side",
                                   depth_limit ? str_cat(", ", max_depth, " layers or slices") : std::string(),
                                   "): use smaller sizes or another backend"));
}

}  // namespace

Texture Texture::create_2d(GLenum fmt, int w, int h, int levels) {
  check_texture_size("2D", w, h, 1, GL_MAX_TEXTURE_SIZE, 0);
  Texture t;
  TOMO_GL_CHECK(glCreateTextures(GL_TEXTURE_2D, 1, &t.id_));
  TOMO_GL_CHECK(glTextureStorage2D(t.id_, levels, fmt, w, h));
  t.target_ = GL_TEXTURE_2D;
  t.format_ = fmt;
  t.size_ = {w, h, 1};
  t.levels_ = levels;
  t.set_filter(levels > 1 ? GL_NEAREST_MIPMAP_NEAREST : GL_NEAREST, GL_NEAREST);
  return t;
}
Texture Texture::create_2d_array(GLenum fmt, int w, int h, int layers, int levels) {
  check_texture_size("2D array", w, h, layers, GL_MAX_TEXTURE_SIZE, GL_MAX_ARRAY_TEXTURE_LAYERS);
  Texture t;
  TOMO_GL_CHECK(glCreateTextures(GL_TEXTURE_2D_ARRAY, 1, &t.id_));
  TOMO_GL_CHECK(glTextureStorage3D(t.id_, levels, fmt, w, h, layers));
  t.target_ = GL_TEXTURE_2D_ARRAY;
  t.format_ = fmt;
  t.size_ = {w, h, layers};
  t.levels_ = levels;
  t.set_filter(levels > 1 ? GL_NEAREST_MIPMAP_NEAREST : GL_NEAREST, GL_NEAREST);
  return t;
}
Texture Texture::create_3d(GLenum fmt, int w, int h, int d, int levels) {
  check_texture_size("3D", w, h, d, GL_MAX_3D_TEXTURE_SIZE, GL_MAX_3D_TEXTURE_SIZE);
  Texture t;
  TOMO_GL_CHECK(glCreateTextures(GL_TEXTURE_3D, 1, &t.id_));
  TOMO_GL_CHECK(glTextureStorage3D(t.id_, levels, fmt, w, h, d));
  t.target_ = GL_TEXTURE_3D;
  t.format_ = fmt;
  t.size_ = {w, h, d};
  t.levels_ = levels;
  t.set_filter(levels > 1 ? GL_NEAREST_MIPMAP_NEAREST : GL_NEAREST, GL_NEAREST);
  return t;
}
Texture Texture::wrap(GLuint id, GLenum target, GLenum fmt, std::array<int, 3> size, int levels) {
  Texture t;
  t.id_ = id;
  t.target_ = target;
  t.format_ = fmt;
  t.size_ = size;
  t.levels_ = levels;
  return t;
}
void Texture::upload_float(const float* data, int channels, int level) {
  auto s = level_size(size_, target_, level);
  if (target_ == GL_TEXTURE_2D)
    TOMO_GL_CHECK(glTextureSubImage2D(id_, level, 0, 0, s[0], s[1], base_format(channels), GL_FLOAT, data));
  else
    TOMO_GL_CHECK(glTextureSubImage3D(id_, level, 0, 0, 0, s[0], s[1], s[2], base_format(channels), GL_FLOAT, data));
}
std::vector<float> Texture::read_float(int channels, int level) const {
  auto s = level_size(size_, target_, level);
  std::vector<float> out(static_cast<std::size_t>(s[0]) * s[1] * s[2] * channels);
  TOMO_GL_CHECK(glPixelStorei(GL_PACK_ALIGNMENT, 1));
  TOMO_GL_CHECK(glGetTextureImage(id_, level, base_format(channels), GL_FLOAT,
                                  static_cast<GLsizei>(out.size() * sizeof(float)), out.data()));
  return out;
}
void Texture::clear_zero(int level) {
  const float zero[4] = {0, 0, 0, 0};
  TOMO_GL_CHECK(glClearTexImage(id_, level, GL_RGBA, GL_FLOAT, zero));
}
void Texture::set_filter(GLenum min_filter, GLenum mag_filter) {
  TOMO_GL_CHECK(glTextureParameteri(id_, GL_TEXTURE_MIN_FILTER, static_cast<GLint>(min_filter)));
  TOMO_GL_CHECK(glTextureParameteri(id_, GL_TEXTURE_MAG_FILTER, static_cast<GLint>(mag_filter)));
}
void Texture::set_wrap(GLenum mode) {
  for (GLenum p : {GL_TEXTURE_WRAP_S, GL_TEXTURE_WRAP_T, GL_TEXTURE_WRAP_R})
    TOMO_GL_CHECK(glTextureParameteri(id_, p, static_cast<GLint>(mode)));
}

// ---- Framebuffer ----
Framebuffer Framebuffer::create() {
  Framebuffer f;
  TOMO_GL_CHECK(glCreateFramebuffers(1, &f.id_));
  return f;
}
void Framebuffer::attach(GLenum attachment, const Texture& tex, int level) {
  TOMO_GL_CHECK(glNamedFramebufferTexture(id_, attachment, tex.id(), level));
}
void Framebuffer::attach_layer(GLenum attachment, const Texture& tex, int layer, int level) {
  TOMO_GL_CHECK(glNamedFramebufferTextureLayer(id_, attachment, tex.id(), level, layer));
}
void Framebuffer::set_draw_buffers(int count) {
  std::vector<GLenum> bufs;
  for (int i = 0; i < count; ++i) bufs.push_back(GL_COLOR_ATTACHMENT0 + static_cast<GLenum>(i));
  TOMO_GL_CHECK(glNamedFramebufferDrawBuffers(id_, count, bufs.data()));
}
void Framebuffer::check_complete() const {
  GLenum status = glCheckNamedFramebufferStatus(id_, GL_FRAMEBUFFER);
  if (status == GL_FRAMEBUFFER_COMPLETE) return;
  const char* name = "unknown";
  switch (status) {
    case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT: name = "incomplete attachment"; break;
    case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT: name = "missing attachment"; break;
    case GL_FRAMEBUFFER_UNSUPPORTED: name = "unsupported format combination"; break;
    case GL_FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS: name = "incomplete layer targets"; break;
    default: break;
  }
  throw Error(std::string("framebuffer incomplete: ") + name);
}
void Framebuffer::bind() const { TOMO_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, id_)); }

// ---- VertexArray, Query ----
VertexArray VertexArray::create() {
  VertexArray v;
  TOMO_GL_CHECK(glCreateVertexArrays(1, &v.id_));
  return v;
}
void VertexArray::bind() const { TOMO_GL_CHECK(glBindVertexArray(id_)); }

Query Query::create(GLenum target) {
  Query q;
  TOMO_GL_CHECK(glCreateQueries(target, 1, &q.id_));
  q.target_ = target;
  return q;
}
GLuint64 Query::result_u64() const {
  GLuint64 v = 0;
  TOMO_GL_CHECK(glGetQueryObjectui64v(id_, GL_QUERY_RESULT, &v));
  return v;
}

// ---- Program ----
void Program::use() const { TOMO_GL_CHECK(glUseProgram(id_)); }
GLint Program::uniform(const char* name) const { return glGetUniformLocation(id_, name); }
namespace {
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
// Whether `word` occurs in `text` as a whole identifier.
bool contains_word(const std::string& text, const std::string& word) {
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool left = at == 0 || !ident_char(text[at - 1]);
    const bool right = at + word.size() >= text.size() || !ident_char(text[at + word.size()]);
    if (left && right) return true;
  }
  return false;
}
}  // namespace
GLint Program::location(const char* name) const {
  const GLint loc = glGetUniformLocation(id_, name);
  if (loc >= 0) return loc;
  if (!source_.empty() && contains_word(source_, name)) return -1;  // declared, optimised out
  throw Error(str_cat("GL program '", name_.empty() ? std::to_string(id_) : name_, "' has no uniform '", name,
                      "'"));
}
void Program::set(const char* n, int v) const { glProgramUniform1i(id_, uniform(n), v); }
void Program::set(const char* n, unsigned v) const { glProgramUniform1ui(id_, uniform(n), v); }
void Program::set(const char* n, float v) const { glProgramUniform1f(id_, uniform(n), v); }
void Program::set(const char* n, float x, float y) const { glProgramUniform2f(id_, uniform(n), x, y); }
void Program::set(const char* n, float x, float y, float z) const { glProgramUniform3f(id_, uniform(n), x, y, z); }
void Program::set(const char* n, float x, float y, float z, float w) const {
  glProgramUniform4f(id_, uniform(n), x, y, z, w);
}
void Program::set(const char* n, int x, int y) const { glProgramUniform2i(id_, uniform(n), x, y); }
void Program::set(const char* n, int x, int y, int z) const { glProgramUniform3i(id_, uniform(n), x, y, z); }
void Program::set_mat4(const char* n, const float* m) const {
  glProgramUniformMatrix4fv(id_, uniform(n), 1, GL_FALSE, m);
}
std::array<int, 3> Program::work_group_size() const {
  GLint s[3] = {1, 1, 1};
  TOMO_GL_CHECK(glGetProgramiv(id_, GL_COMPUTE_WORK_GROUP_SIZE, s));
  return {s[0], s[1], s[2]};
}
void Program::dispatch(int nx, int ny, int nz) const {
  auto wg = work_group_size();
  auto groups = [](int n, int g) { return static_cast<GLuint>((n + g - 1) / g); };
  use();
  TOMO_GL_CHECK(glDispatchCompute(groups(nx, wg[0]), groups(ny, wg[1]), groups(nz, wg[2])));
}

}  // namespace tomo::gl
