#include "renderer/gl/shader_library.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

#include "compute/core/embedded.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::detail {
extern const EmbeddedFile tomo_detail_shader_files[];
}

namespace tomo::gl {
namespace {

GLenum gl_stage(Stage s) {
  switch (s) {
    case Stage::Vertex: return GL_VERTEX_SHADER;
    case Stage::Geometry: return GL_GEOMETRY_SHADER;
    case Stage::Fragment: return GL_FRAGMENT_SHADER;
    case Stage::Compute: return GL_COMPUTE_SHADER;
  }
  return GL_COMPUTE_SHADER;
}

const char* stage_name(Stage s) {
  switch (s) {
    case Stage::Vertex: return "vertex";
    case Stage::Geometry: return "geometry";
    case Stage::Fragment: return "fragment";
    case Stage::Compute: return "compute";
  }
  return "?";
}

// Rewrites "N:L(C): msg" (Mesa) and "N(L) : msg" (NVIDIA) so N names the file.
std::string map_log(const std::string& log, const std::vector<std::string>& files) {
  static const std::regex mesa(R"(^(\d+):(\d+)\((\d+)\))");
  static const std::regex nvidia(R"(^(\d+)\((\d+)\))");
  std::istringstream in(log);
  std::string line, out;
  while (std::getline(in, line)) {
    std::smatch m;
    auto file_of = [&](const std::string& idx) {
      std::size_t i = std::stoul(idx);
      return i < files.size() ? files[i] : "source " + idx;
    };
    if (std::regex_search(line, m, mesa))
      line = file_of(m[1]) + ":" + m[2].str() + ":" + m[3].str() + m.suffix().str();
    else if (std::regex_search(line, m, nvidia))
      line = file_of(m[1]) + ":" + m[2].str() + m.suffix().str();
    out += "    " + line + "\n";
  }
  return out;
}

std::string info_log(GLuint id, bool program) {
  GLint len = 0;
  if (program) glGetProgramiv(id, GL_INFO_LOG_LENGTH, &len);
  else glGetShaderiv(id, GL_INFO_LOG_LENGTH, &len);
  std::string log(static_cast<std::size_t>(std::max(len, 1)), '\0');
  if (program) glGetProgramInfoLog(id, len, nullptr, log.data());
  else glGetShaderInfoLog(id, len, nullptr, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

GLuint compile(Stage stage, const std::string& text, const std::string& name, const std::vector<std::string>& files) {
  GLuint id = glCreateShader(gl_stage(stage));
  const char* src = text.c_str();
  glShaderSource(id, 1, &src, nullptr);
  glCompileShader(id);
  GLint ok = 0;
  glGetShaderiv(id, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    std::string log = info_log(id, false);
    glDeleteShader(id);
    throw Error(std::string(stage_name(stage)) + " shader '" + name + "' failed to compile:\n" + map_log(log, files));
  }
  return id;
}

Program link(const std::vector<GLuint>& shaders, const std::string& name, std::string source) {
  GLuint prog = glCreateProgram();
  for (GLuint s : shaders) glAttachShader(prog, s);
  glLinkProgram(prog);
  for (GLuint s : shaders) glDetachShader(prog, s);
  GLint ok = 0;
  glGetProgramiv(prog, GL_LINK_STATUS, &ok);
  if (!ok) {
    std::string log = info_log(prog, true);
    glDeleteProgram(prog);
    throw Error("program '" + name + "' failed to link:\n    " + log);
  }
  return Program::wrap(prog, name, std::move(source));
}

}  // namespace

ShaderLibrary::ShaderLibrary(std::filesystem::path dir) : dir_(std::move(dir)) {
  if (!dir_.empty() && !std::filesystem::is_directory(dir_))
    throw InputError("--shader-dir '" + dir_.string() + "' is not a directory");
}

std::string ShaderLibrary::load(const std::string& name) const {
  // bindings/*.glsl are generated at build time from C++ headers: always the binary's copy.
  const bool generated = name.rfind("bindings/", 0) == 0;
  if (!dir_.empty() && !generated) {
    std::ifstream in(dir_ / name, std::ios::binary);
    if (!in) throw InputError("shader '" + name + "' not found in --shader-dir '" + dir_.string() + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::string_view text = detail::find_embedded(detail::tomo_detail_shader_files, name);
  if (text.data() == nullptr) throw InputError("shader '" + name + "' is not embedded in this binary");
  return std::string(text);
}

std::string ShaderLibrary::preprocess(const std::string& name, const Defines& defines,
                                      std::vector<std::string>* files_out) const {
  static const std::regex include_re(R"(^\s*#\s*include\s+"([^"]+)\")");
  static const std::regex version_re(R"(^\s*#\s*version\b)");
  std::vector<std::string> files;
  std::set<std::string> included;
  std::string out;
  bool have_version = false;

  // Inlines `file`, emitting #line so compiler messages point into it.
  std::function<void(const std::string&)> emit = [&](const std::string& file) {
    int index = static_cast<int>(files.size());
    files.push_back(file);
    if (index > 0) out += "#line 1 " + std::to_string(index) + "\n";
    std::istringstream in(load(file));
    std::string line;
    int lineno = 0;
    std::string dir = file.find('/') != std::string::npos ? file.substr(0, file.rfind('/') + 1) : "";
    while (std::getline(in, line)) {
      ++lineno;
      std::smatch m;
      if (std::regex_search(line, m, version_re)) {
        if (!have_version) {
          out += line + "\n";
          for (const auto& [k, v] : defines) out += "#define " + k + " " + v + "\n";
          have_version = true;
        }
        out += "#line " + std::to_string(lineno + 1) + " " + std::to_string(index) + "\n";
      } else if (std::regex_search(line, m, include_re)) {
        std::string target = m[1];
        // Relative to the including file first, then to the shader root.
        std::string candidate = std::filesystem::path(dir + target).lexically_normal().generic_string();
        bool found_rel = true;
        try {
          (void)load(candidate);
        } catch (const InputError&) {
          found_rel = false;
        }
        std::string resolved = found_rel ? candidate : target;
        if (included.insert(resolved).second) emit(resolved);
        out += "#line " + std::to_string(lineno + 1) + " " + std::to_string(index) + "\n";
      } else {
        out += line + "\n";
      }
    }
  };
  emit(name);
  if (!have_version) throw InputError("shader '" + name + "' has no #version line");
  if (files_out) *files_out = files;
  return out;
}

const Program& ShaderLibrary::program(const std::vector<StageSource>& stages, const Defines& defines) {
  std::string key;
  for (const auto& s : stages) key += std::string(stage_name(s.stage)) + ":" + s.name + ";";
  for (const auto& [k, v] : defines) key += k + "=" + v + ";";
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;

  std::vector<GLuint> compiled;
  try {
    std::string source;
    for (const auto& s : stages) {
      std::vector<std::string> files;
      std::string text = preprocess(s.name, defines, &files);
      compiled.push_back(compile(s.stage, text, s.name, files));
      source += text;
    }
    std::string name = stages.size() == 1 ? stages[0].name : key;
    Program p = link(compiled, name, std::move(source));
    for (GLuint id : compiled) glDeleteShader(id);
    log_debug("built GL program ", name);
    return cache_.emplace(key, std::move(p)).first->second;
  } catch (...) {
    for (GLuint id : compiled) glDeleteShader(id);
    throw;
  }
}

Program ShaderLibrary::build(const std::vector<std::pair<Stage, std::string>>& sources, const std::string& name) {
  std::vector<GLuint> compiled;
  try {
    std::string source;
    for (const auto& [stage, text] : sources) {
      compiled.push_back(compile(stage, text, name, {name}));
      source += text;
    }
    Program p = link(compiled, name, std::move(source));
    for (GLuint id : compiled) glDeleteShader(id);
    return p;
  } catch (...) {
    for (GLuint id : compiled) glDeleteShader(id);
    throw;
  }
}

void ShaderLibrary::reload() {
  passes_.clear();
  cache_.clear();
}

}  // namespace tomo::gl
