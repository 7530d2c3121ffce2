// GLSL sources by relative name ("demo/voxelize.comp.glsl"), embedded into the binary
// or read from a directory (--shader-dir; the generated bindings/*.glsl always come from
// the binary), with `#include "x.glsl"` resolved and
// `#define` variants inserted after #version. Compile/link errors throw with file
// names and the driver's log, line numbers mapped back to the files.
#pragma once
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

#include "renderer/gl/objects.hpp"

namespace tomo::gl {

enum class Stage { Vertex, Geometry, Fragment, Compute };
using Defines = std::vector<std::pair<std::string, std::string>>;
struct StageSource {
  Stage stage;
  std::string name;  // shader file name relative to shaders/
};

class ShaderLibrary {
 public:
  explicit ShaderLibrary(std::filesystem::path dir = {});

  const std::filesystem::path& dir() const { return dir_; }
  // Raw text of a shader file; throws InputError naming where it looked.
  std::string load(const std::string& name) const;
  // Text with includes inlined (guarded against cycles) and defines inserted.
  // `files` receives the file of each GLSL source-string number used in #line.
  std::string preprocess(const std::string& name, const Defines& defines, std::vector<std::string>* files = nullptr) const;

  // Compiles and links (cached by stages + defines until reload()).
  const Program& program(const std::vector<StageSource>& stages, const Defines& defines = {});
  const Program& compute(const std::string& name, const Defines& defines = {}) {
    return program({{Stage::Compute, name}}, defines);
  }
  // The program with its uniform handles: `Pass` is built once from the linked program
  // (`Pass(const Program&)` looks its gl::Uniform handles up) and kept beside it.
  template <class Pass>
  const Pass& get(const std::vector<StageSource>& stages, const Defines& defines = {}) {
    const Program& prog = program(stages, defines);
    std::shared_ptr<void>& slot = passes_[{&prog, std::type_index(typeid(Pass))}];
    if (!slot) slot = std::make_shared<Pass>(prog);
    return *static_cast<const Pass*>(slot.get());
  }
  template <class Pass>
  const Pass& get_compute(const std::string& name, const Defines& defines = {}) {
    return get<Pass>({{Stage::Compute, name}}, defines);
  }
  // Compiles GLSL text given directly (tests, generated code); `name` appears in errors.
  static Program build(const std::vector<std::pair<Stage, std::string>>& sources, const std::string& name);

  // Drops every cached program: the next program() call reads the files again.
  void reload();

 private:
  std::filesystem::path dir_;
  std::map<std::string, Program> cache_;
  std::map<std::pair<const Program*, std::type_index>, std::shared_ptr<void>> passes_;
};

}  // namespace tomo::gl
