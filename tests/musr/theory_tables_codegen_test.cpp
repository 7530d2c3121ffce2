// Tabulated theory functions on the GPU backends, checked on the cpu: the packed tables (one
// copy per parameter set, the gradient's differences after the values), the generated CUDA
// (table reads, the two extra kernel arguments, NVRTC compiles it), the GLSL (refused unless the
// caller binds the tables), and the generated table lookup emulated here against kt_lookup.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/musr/codegen_cuda.hpp"
#include "compute/musr/codegen_glsl.hpp"
#include "compute/musr/codegen_tables.hpp"
#include "compute/musr/kt_pack.hpp"
#include "compute/musr/kt_tables.hpp"
#include "tests/musr/theory_tables_data.hpp"
#ifdef TOMO_HAVE_CUDA
#include "cuda/core/nvrtc.hpp"
#endif

namespace tomo::musr {
namespace {

TEST(MusrTables, PackStoresEachParameterSetOnceWithItsDifferences) {
  const FitData data = test::kt_lf_data(40);
  const auto p = test::kt_lf_params();
  ASSERT_EQ(max_tables(data), 2);  // dynGssKTLF's and dynExpKTLF's (the static ones share their kinds)
  TablePack value, grad;
  pack_tables(data, p, false, value);
  pack_tables(data, p, true, grad);
  ASSERT_EQ(value.per_run, 2);
  ASSERT_EQ(value.info.size(), data.runs.size() * 2);
  // Runs 0 and 1 read the same parameters: the same tables.
  EXPECT_EQ(value.info[0].off, value.info[2].off);
  EXPECT_EQ(value.info[1].off, value.info[3].off);
  EXPECT_NE(value.info[0].off, value.info[4].off);  // run 2 has its own width
  const TableInfo& t = grad.info[0];
  const auto ref = kt_table(TableKind::dyn_gauss_lf, p[0], p[1], p[2], 7u);
  ASSERT_EQ(t.n, static_cast<int>(ref->v.size()));
  EXPECT_DOUBLE_EQ(t.dt, ref->dt);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < t.n; i += 37) EXPECT_DOUBLE_EQ(grad.values[t.off + (1 + j) * t.n + i], ref->dv[j][i]);
  EXPECT_EQ(value.values.size() * 4, grad.values.size());
  // Packed again at other parameters (the kept evaluators): the tables of those parameters.
  std::vector<double> q = p;
  q[1] = 0.7;
  pack_tables(data, q, false, value);
  const auto moved = kt_table(TableKind::dyn_gauss_lf, q[0], q[1], q[2]);
  ASSERT_EQ(value.info[0].n, static_cast<int>(moved->v.size()));
  for (int i = 0; i < value.info[0].n; i += 29) EXPECT_DOUBLE_EQ(value.values[value.info[0].off + i], moved->v[i]);
  EXPECT_NE(value.values[value.info[0].off + 40], ref->v[40]);
}

TEST(MusrTables, CudaSourceReadsTablesThroughTwoExtraArguments) {
  const FitData data = test::kt_lf_data(40);
  const CudaSource src = cuda_chi2_source(data, false);
  EXPECT_EQ(src.tables, 2);
  EXPECT_NE(src.text.find("#define NT 2"), std::string::npos);
  EXPECT_NE(src.text.find("mu_tab(MU_TAB(0), "), std::string::npos);
  EXPECT_NE(src.text.find("mu_tab_da(MU_TAB(1), 1, "), std::string::npos);  // ∂/∂ the width of the second table
  EXPECT_NE(src.text.find("const double* __restrict__ tabs, const MuTab* __restrict__ tinfo) {"), std::string::npos);
  EXPECT_NE(src.text.find("mu_dawson("), std::string::npos);
  // No tables: the kernels keep their signature.
  FitData plain = data;
  ProgramBuilder b(data.num_params);
  plain.runs.resize(1);
  plain.runs[0].model = b.finish(b.unary(OpCode::exp, b.unary(OpCode::neg, b.mul(b.param(0), b.time()))));
  const CudaSource none = cuda_chi2_source(plain, false);
  EXPECT_EQ(none.tables, 0);
  EXPECT_EQ(none.text.find("tinfo"), std::string::npos);
}

#ifdef TOMO_HAVE_CUDA
TEST(MusrTables, NvrtcCompilesTheTableKernels) {
  for (bool single : {false, true}) {
    const CudaSource src = cuda_chi2_source(test::kt_lf_data(40), single);
    std::vector<char> ptx;
    ASSERT_NO_THROW(ptx = tomo::cuda::nvrtc_compile(src.text, "musr_tables.cu", tomo::cuda::NvrtcOutput::ptx, 9, 0, src.nvrtc_options)) << single;
    const std::string text(ptx.begin(), ptx.end());
    EXPECT_NE(text.find(".entry musr_gradient"), std::string::npos);
  }
}
#endif

TEST(MusrTables, GlslRefusesTablesUnlessTheCallerBindsThem) {
  const FitData data = test::kt_lf_data(40);
  const std::string tmpl = "@DEFINES@\n@HELPERS@\n@CASES@\n";
  try {
    (void)glsl_chi2_source(data, false, tmpl);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("tabulated functions"), std::string::npos) << e.what();
  }
  const std::string text = glsl_chi2_source(data, true, tmpl, false, {}, true);
  EXPECT_NE(text.find("binding = 7) readonly buffer MuTabs"), std::string::npos);
  EXPECT_NE(text.find("binding = 8) readonly buffer MuTabValues"), std::string::npos);
  EXPECT_NE(text.find("mu_tab_dx(MU_TAB(0), "), std::string::npos);
  TablePack pack;
  pack_tables(data, test::kt_lf_params(), true, pack);
  const auto infos = glsl_table_infos(pack);
  ASSERT_EQ(infos.size(), pack.info.size());
  EXPECT_EQ(infos[4].off, static_cast<unsigned>(pack.info[4].off));
  EXPECT_EQ(sizeof(GlslTableInfo), 16u);
}

}  // namespace
}  // namespace tomo::musr
