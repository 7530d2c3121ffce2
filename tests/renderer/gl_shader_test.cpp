// Shader library: embedded and on-disk sources, includes, defines, error messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compute/core/error.hpp"
#include "renderer/gl/shader_library.hpp"
#include "tests/support/gl_test.hpp"

using namespace tomo;
namespace fs = std::filesystem;

namespace {

struct TempShaderDir {
  fs::path dir;
  TempShaderDir() {
    dir = fs::temp_directory_path() / ("tomo-shaders-" + std::to_string(::getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir / "lib");
  }
  ~TempShaderDir() { fs::remove_all(dir); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(dir / name) << text; }
};

const char* kWriteValue = R"(#version 450 core
#include "lib/value.glsl"
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Out { float result[]; };
void main() { result[0] = the_value(); }
)";

}  // namespace

TEST(GlShaders, IncludeAndDefinesFromShaderDir) {
  test::gl_context();
  TempShaderDir tmp;
  tmp.write("write.comp.glsl", kWriteValue);
  tmp.write("lib/value.glsl", "#ifndef SCALE\n#error SCALE must be defined\n#endif\nfloat the_value() { return 2.5 * SCALE; }\n");
  gl::ShaderLibrary lib(tmp.dir);
  gl::Buffer out(sizeof(float));
  out.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  lib.compute("write.comp.glsl", {{"SCALE", "4.0"}}).dispatch(1);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  EXPECT_FLOAT_EQ(out.read<float>()[0], 10.0f);

  // Editing the file and reloading takes effect without rebuilding (shader experiments).
  tmp.write("lib/value.glsl", "float the_value() { return -1.0; }\n");
  lib.reload();
  lib.compute("write.comp.glsl", {{"SCALE", "4.0"}}).dispatch(1);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  EXPECT_FLOAT_EQ(out.read<float>()[0], -1.0f);
}

TEST(GlShaders, CompileErrorNamesIncludedFileAndLine) {
  test::gl_context();
  TempShaderDir tmp;
  tmp.write("write.comp.glsl", kWriteValue);
  tmp.write("lib/value.glsl", "// line 1\n// line 2\nfloat the_value() { return undefined_symbol; }\n");
  gl::ShaderLibrary lib(tmp.dir);
  try {
    lib.compute("write.comp.glsl");
    FAIL() << "expected a compile error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("write.comp.glsl"), std::string::npos) << msg;
    EXPECT_NE(msg.find("lib/value.glsl:3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("undefined_symbol"), std::string::npos) << msg;
  }
}

TEST(GlShaders, MissingShaderAndMissingDirAreInputErrors) {
  test::gl_context();
  TempShaderDir tmp;
  gl::ShaderLibrary lib(tmp.dir);
  EXPECT_THROW(lib.compute("nope.comp.glsl"), InputError);
  EXPECT_THROW(gl::ShaderLibrary("/definitely/not/a/dir"), InputError);
  gl::ShaderLibrary embedded;
  EXPECT_THROW(embedded.load("nope.glsl"), InputError);
  EXPECT_NE(embedded.load("common/phantom.glsl").find("shape_value_at"), std::string::npos);
}

TEST(GlShaders, LinkErrorThrows) {
  test::gl_context();
  const std::string vs = "#version 450 core\nout vec4 v_missing;\nvoid main() { gl_Position = vec4(0); v_missing = vec4(1); }\n";
  const std::string fs = "#version 450 core\nin vec3 v_missing;\nout vec4 c;\nvoid main() { c = vec4(v_missing, 1); }\n";
  EXPECT_THROW(gl::ShaderLibrary::build({{gl::Stage::Vertex, vs}, {gl::Stage::Fragment, fs}}, "mismatch"), Error);
}
