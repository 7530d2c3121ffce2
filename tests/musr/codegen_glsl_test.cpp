// The GLSL code generator: the filled template compiles through the GL driver (llvmpipe here)
// for every op, both statistics, with and without gradient; markers and limits are checked.
#include <gtest/gtest.h>

#include <string>

#include "compute/core/error.hpp"
#include "compute/musr/codegen_glsl.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/shader_library.hpp"
#include "tests/musr/gpu_test_data.hpp"

namespace tomo::musr::test {
namespace {

std::string chi2_template() {
  gl::shared_context().make_current();
  return gl::shaders().preprocess("musr/chi2.comp.glsl", {});  // as the gl-compute evaluator reads it
}

TEST(MusrCodegenGlsl, GeneratedShadersCompileThroughTheDriver) {
  const std::string tmpl = chi2_template();
  const FitData ops = every_op_data(4);
  const FitData ml = eq5_data(3, 10, Statistic::max_likelihood);
  const std::string lib = gl::shaders().load("musr/double_math.glsl");
  for (const FitData* data : {&ops, &ml}) {
    for (bool gradient : {false, true}) {
      const std::string dtext = glsl_chi2_source(*data, gradient, tmpl, true, lib);
      EXPECT_NE(dtext.find("#define real double"), std::string::npos);
      EXPECT_NO_THROW(gl::ShaderLibrary::build({{gl::Stage::Compute, dtext}}, "musr generated (double)"));
      const std::string text = glsl_chi2_source(*data, gradient, tmpl);
      EXPECT_EQ(text.find('@'), std::string::npos) << "a marker was left";
      EXPECT_NE(text.find("#define NS " + std::to_string(glsl_slots(*data, gradient)) + "\n"), std::string::npos);
      EXPECT_NO_THROW(gl::ShaderLibrary::build({{gl::Stage::Compute, text}}, "musr generated")) << text;
    }
  }
}

TEST(MusrCodegenGlsl, SlotsFollowTheRunsTheories) {
  EXPECT_EQ(glsl_slots(eq5_data(16, 4), true), 7);
  EXPECT_EQ(glsl_slots(eq5_data(16, 4), false), 1);
}

TEST(MusrCodegenGlsl, TemplateWithoutMarkersIsRejected) {
  EXPECT_THROW(glsl_chi2_source(eq5_data(1, 4), false, "#version 450\nvoid main() {}\n"), Error);
}

TEST(MusrCodegenGlsl, TooManyParametersInOneRunIsAnInputError) {
  // One run whose theory sums 40 parameters: more slots than the shared-memory reduction holds.
  ProgramBuilder b(40);
  std::int32_t acc = b.time();
  for (int i = 0; i < 40; ++i) acc = b.add(acc, b.param(i));
  FitData data;
  data.num_params = 40;
  RunBins run;
  run.model = b.finish(acc);
  run.t = {0.0, 0.1};
  run.y = {1.0, 1.0};
  run.sigma = {1.0, 1.0};
  data.runs.push_back(run);
  EXPECT_THROW(glsl_chi2_source(data, true, chi2_template()), InputError);
  EXPECT_NO_THROW(glsl_chi2_source(data, false, chi2_template()));
}

}  // namespace
}  // namespace tomo::musr::test
