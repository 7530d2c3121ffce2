// The CUDA code generator: literals, hoisting and gradient slots of emitted statements, the run
// layout and gradient scatter tables, and (where tomo_cuda is built) NVRTC compiling the
// generated kernels to PTX, which needs no device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <regex>
#include <string>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/musr/codegen_common.hpp"
#include "compute/musr/codegen_cuda.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/msr.hpp"
#include "compute/musr/run_layout.hpp"
#include "compute/musr/simulator.hpp"
#include "tests/musr/gpu_test_data.hpp"
#ifdef TOMO_HAVE_CUDA
#include "cuda/core/nvrtc.hpp"
#endif

namespace tomo::musr::test {
namespace {

TEST(MusrCodegen, LiteralsKeepFullPrecisionAndAreNeverIntegers) {
  const Dialect d = cuda_dialect(false);
  EXPECT_EQ(real_literal(1.0 / 3.0, d), "0.33333333333333331");
  EXPECT_EQ(real_literal(2.0, d), "2.0");
  EXPECT_EQ(real_literal(-1.5, d), "(-1.5)");
  EXPECT_EQ(real_literal(1e-9, d), "1.0000000000000001e-09");
  EXPECT_EQ(real_literal(2.0, cuda_dialect(true)), "real(2.0)");
  EXPECT_EQ(real_literal(2.0, glsl_dialect()), "2.0");
  EXPECT_EQ(real_literal(std::numeric_limits<double>::infinity(), glsl_dialect()), "uintBitsToFloat(0x7f800000u)");
  EXPECT_NE(real_literal(std::nan(""), d).find("0x7ff8"), std::string::npos);
}

TEST(MusrCodegen, InvariantNodesAreHoistedAndGradientSlotsAreSparse) {
  // θ = p1·exp(−p0·t) + p2: p0·… depends on t, p1 and p2 do not.
  ProgramBuilder b(4);
  const auto t = b.time();
  const auto e = b.unary(OpCode::exp, b.mul(b.unary(OpCode::neg, b.param(0)), t));
  const Program p = b.finish(b.add(b.mul(b.param(1), e), b.param(2)));
  const ModelCode m = emit_model(p, cuda_dialect(false), true, "r0_", [](int i, int) { return "real(a.p[" + std::to_string(i) + "])"; }, "t");
  EXPECT_EQ(m.used, (std::vector<int>{0, 1, 2}));
  EXPECT_NE(m.invariant.find("real(a.p[0])"), std::string::npos) << m.invariant;
  EXPECT_EQ(m.invariant.find("exp("), std::string::npos) << "exp(−p0·t) must be per bin";
  EXPECT_NE(m.per_bin.find("exp("), std::string::npos) << m.per_bin;
  ASSERT_EQ(m.gradient.size(), 3u);
  for (const auto& g : m.gradient) EXPECT_NE(g, "0.0") << "every used parameter reaches θ";
  // The negated parameter's node has only slot 0: no derivative variables for slots 1, 2.
  const std::regex neg_slot1("r0_d[0-9]+_1 = \\(-");
  EXPECT_FALSE(std::regex_search(m.invariant, neg_slot1)) << m.invariant;
}

TEST(MusrCodegen, SourceHasNoIntegerDivision) {
  const FitData data = eq5_data(2, 50);
  const std::string src = cuda_chi2_source(data, false).text;
  // "1/3"-style integer division cannot appear: every literal has a '.' or an exponent.
  EXPECT_FALSE(std::regex_search(src, std::regex("[^.0-9a-zA-Z_][0-9]+ */ *[0-9]+[^.0-9e]"))) << src;
  EXPECT_NE(src.find("extern \"C\" __global__"), std::string::npos);
}

TEST(MusrCodegen, LayoutCoversEveryBinOnceAndScatterListsEverySlot) {
  const FitData data = eq5_data(16, 1000);
  const auto layout = plan_layout(data, 300);
  long long bins = 0;
  int block = 0;
  for (const auto& l : layout) {
    EXPECT_EQ(l.offset, bins);
    EXPECT_EQ(l.first_block, block);
    EXPECT_EQ(l.blocks, 4);  // ⌈1000 / 300⌉
    EXPECT_TRUE(l.affine);
    EXPECT_NEAR(l.dt, 0.01, 1e-15);
    bins += l.count;
    block += l.blocks;
  }
  EXPECT_EQ(bins, 16000);
  const int ns = 1 + max_slots(data);
  EXPECT_EQ(ns, 7);  // σ, ν, N0_j, Bkg_j, A_j, φ_j
  const ParamScatter sc = param_scatter(data, ns);
  ASSERT_EQ(sc.ptr.size(), static_cast<std::size_t>(data.num_params) + 1);
  EXPECT_EQ(sc.ptr[1] - sc.ptr[0], 16) << "σ is shared by all 16 detectors";
  EXPECT_EQ(sc.ptr[2] - sc.ptr[1], 16) << "ν too";
  for (int i = 2; i < data.num_params; ++i) EXPECT_EQ(sc.ptr[i + 1] - sc.ptr[i], 1) << i;
  EXPECT_EQ(sc.entry.size(), 16u * 6u);
}

TEST(MusrCodegen, RunsOfOneTheoryShapeShareOneCase) {
  const FitData data = eq5_data(16, 10);
  const TheoryCases c = group_theories(data);
  EXPECT_EQ(c.first_run, (std::vector<int>{0}));
  ASSERT_EQ(c.pmap_offset.size(), 16u);
  // Detector 5 reads σ, ν, then its own N0, Bkg, A, φ.
  const int j = 5, o = c.pmap_offset[j];
  EXPECT_EQ(std::vector<int>(c.pmap.begin() + o, c.pmap.begin() + o + 6),
            (std::vector<int>{0, 1, eq5_param(j, 0), eq5_param(j, 1), eq5_param(j, 2), eq5_param(j, 3)}));
  EXPECT_EQ(group_theories(every_op_data(4)).first_run.size(), every_op_programs().size());
  // The source does not grow with the number of detectors (15 and 14: 62 and 58 parameters, NP = 64).
  EXPECT_EQ(cuda_chi2_source(eq5_data(15, 10), false).text, cuda_chi2_source(eq5_data(14, 10), false).text);
}

TEST(MusrCodegen, PoissonErrorsLetTheKernelReadYAlone) {
  EXPECT_TRUE(poisson_errors(eq5_data(2, 500)));  // σ = √d, 1 for empty bins, scale 1
  EXPECT_TRUE(cuda_chi2_source(eq5_data(2, 50), false).y_only);
  EXPECT_FALSE(poisson_errors(every_op_data(16)));  // σ = 0.1
  EXPECT_FALSE(cuda_chi2_source(every_op_data(16), false).y_only);
  FitData ml = every_op_data(16);
  ml.statistic = Statistic::max_likelihood;  // reads no σ
  EXPECT_TRUE(poisson_errors(ml));
  // musrfit's packing and SCALE_N0_BKG as prepare_fit does them: σ = √(packed)/n, y = packed/n.
  Eq5Config c;
  c.detectors = 2;
  c.bins = 3000;
  c.dt_us = 0.00390625;
  c.t0_bin = 100;
  c.first_good = 105;
  std::string text = eq5_msr(c, "sim");
  text.replace(text.find("packing         1"), 17, "packing         3");
  const MsrFile msr = parse_msr(text, "packed.msr");
  const PsiBinFile file = simulate_eq5(c);
  const FitData data = prepare_fit(msr, [&](const MsrRun&) { return file; }).data;
  EXPECT_NEAR(data.runs[0].scale, 3 * 3.90625, 1e-12);
  EXPECT_TRUE(poisson_errors(data));
  FitData broken = data;
  broken.runs[1].sigma[7] *= 1.001;
  EXPECT_FALSE(poisson_errors(broken));
  // An empty bin: musrfit's weight n³ (σ = n^(−3/2)), not the n² of an error 1/n.
  FitData empty = data;
  const double n = empty.runs[0].scale;
  empty.runs[0].y[5] = 0.0;
  empty.runs[0].sigma[5] = 1.0 / (n * std::sqrt(n));
  EXPECT_TRUE(poisson_errors(empty));
  empty.runs[0].sigma[5] = 1.0 / n;
  EXPECT_FALSE(poisson_errors(empty));
}

TEST(MusrCodegen, UnevenTimesAreDetected) {
  double t0 = 0, dt = 0;
  EXPECT_TRUE(affine_time({0.1, 0.2, 0.3, 0.4}, t0, dt));
  EXPECT_NEAR(dt, 0.1, 1e-15);
  EXPECT_FALSE(affine_time({0.1, 0.2, 0.31, 0.4}, t0, dt));
}

TEST(MusrCodegen, TooManyParametersForKernelArgumentsIsAnInputError) {
  FitData data = eq5_data(1, 10);
  data.num_params = kCudaMaxInlineParams + 1;
  EXPECT_THROW(cuda_chi2_source(data, false), InputError);
}

TEST(MusrCodegen, PadsRunsToPacksOfEightAndSizesOneWave) {
  FitData data = eq5_data(4, 50001);
  data.runs[2].t.resize(3), data.runs[2].y.resize(3), data.runs[2].sigma.resize(3);
  const CudaSource src = cuda_chi2_source(data, true);
  EXPECT_EQ(src.group, 8);
  EXPECT_EQ(src.min_blocks, 4);
  EXPECT_EQ(cuda_chi2_source(data, false).min_blocks, 2);
  const int resident = 40;
  const CudaTables t = cuda_tables(data, src, cuda_bins_per_block(data, resident));
  EXPECT_LE(t.blocks, resident) << "one wave";
  long long offset = 0;
  for (std::size_t r = 0; r < t.runs.size(); ++r) {
    EXPECT_EQ(t.runs[r].offset, offset) << r;
    EXPECT_EQ(t.runs[r].offset % 8, 0) << r;
    EXPECT_EQ(t.runs[r].count, static_cast<long long>(data.runs[r].t.size()));
    offset += (t.runs[r].count + 7) / 8 * 8;
  }
  EXPECT_EQ(t.device_bins, offset);
  EXPECT_EQ(t.runs[2].blocks, 1);
  EXPECT_EQ(t.runs[3].offset, 50008 + 50008 + 8);
}

TEST(MusrCodegen, HoistsReciprocalsAndUsesFastFunctionsOnlyInFloat) {
  const FitData data = eq5_data(2, 50);
  const CudaSource fast = cuda_chi2_source(data, true);
  const CudaSource dbl = cuda_chi2_source(data, false);
  for (const char* f : {"__expf(", "__cosf(", "__fdividef("}) {
    EXPECT_NE(fast.text.find(f), std::string::npos) << f;
    EXPECT_EQ(dbl.text.find(f), std::string::npos) << f;
  }
  EXPECT_EQ(fast.nvrtc_options, (std::vector<std::string>{"--ftz=true"}));
  EXPECT_TRUE(dbl.nvrtc_options.empty());
  EXPECT_NE(dbl.text.find("__drcp_rn("), std::string::npos);
  EXPECT_NE(fast.text.find("unsigned long long* __restrict__ done, unsigned long long seq"), std::string::npos);
  // θ = exp(−t/p1)/p2 + 1/(1 + t): the divisions by parameters become products with reciprocals
  // computed once outside the bin loop, with their derivatives; 1/(1 + t) stays a division.
  ProgramBuilder b(3);
  const auto t = b.time();
  const auto e = b.unary(OpCode::exp, b.unary(OpCode::neg, b.binary(OpCode::div, t, b.param(1))));
  const Program p = b.finish(b.add(b.binary(OpCode::div, e, b.param(2)), b.binary(OpCode::div, b.constant(1.0), b.add(b.constant(1.0), t))));
  Dialect d = cuda_dialect(false);
  d.hoist_reciprocals = true;
  const auto param = [](int i, int) { return "real(a.p[" + std::to_string(i) + "])"; };
  const ModelCode m = emit_model(p, d, true, "q_", param, "t");
  EXPECT_EQ(std::count(m.invariant.begin(), m.invariant.end(), '/'), 2) << m.invariant;
  EXPECT_EQ(std::count(m.per_bin.begin(), m.per_bin.end(), '/'), 1) << "1/(1+t) alone " << m.per_bin;
  EXPECT_NE(m.per_bin.find("* q_r"), std::string::npos) << m.per_bin;
  const ModelCode plain = emit_model(p, cuda_dialect(false), true, "q_", param, "t");
  EXPECT_EQ(plain.invariant.find('/'), std::string::npos);
}

// Stepping: eq. 5's three functions of t (e^(−t/τ): degree 1, exp(−½(σt)²): degree 2,
// cos(φ + ωt): degree 1) are stepped; the same functions of t² or of a product of two
// functions of t are not; nothing is stepped where a run's times are uneven.
TEST(MusrCodegen, SteppingFindsPolynomialArgumentsOfExpAndCos) {
  const FitData data = eq5_data(2, 50);
  const Stepping st;
  const auto param = [](int i, int) { return "real(a.p[" + std::to_string(i) + "])"; };
  Dialect d = cuda_dialect(true);
  d.fast_math = true;
  const ModelCode m = emit_model(data.runs[0].model, d, true, "s_", param, "t", &st);
  EXPECT_EQ(m.stepped, 3) << m.per_bin;
  EXPECT_NE(m.step_setup.find("R.dt"), std::string::npos) << m.step_setup;
  EXPECT_NE(m.per_bin.find("if (j == 0)"), std::string::npos) << m.per_bin;
  EXPECT_EQ(std::count(m.per_bin.begin(), m.per_bin.end(), '\n') > 0, true);
  // The gradient of the stepped cos uses the carried sine, no second MUFU.
  EXPECT_EQ(m.per_bin.find("__sinf(") , m.per_bin.rfind("__sinf(")) << "one __sinf, at the Pack's first bin";
  EXPECT_EQ(emit_model(data.runs[0].model, d, true, "s_", param, "t").stepped, 0);
  ProgramBuilder b(2);
  const auto t = b.time();
  const auto t3 = b.mul(t, b.mul(t, t));
  const auto e = b.unary(OpCode::exp, b.mul(b.param(0), t3));            // degree 3: no
  const auto c = b.unary(OpCode::cos, b.mul(b.param(1), b.mul(t, t)));   // cos of t²: no
  const auto x = b.unary(OpCode::exp, b.mul(b.param(0), b.unary(OpCode::exp, t)));  // exp of exp: inner only
  const Program p = b.finish(b.add(b.add(e, c), x));
  EXPECT_EQ(emit_model(p, d, false, "u_", param, "t", &st).stepped, 1);
  EXPECT_TRUE(cuda_chi2_source(data, true).stepped);
  EXPECT_TRUE(cuda_chi2_source(data, false).stepped);
  FitData uneven = data;
  uneven.runs[1].t[3] += 0.001;
  EXPECT_FALSE(cuda_chi2_source(uneven, true).stepped);
}

#ifdef TOMO_HAVE_CUDA
TEST(MusrCodegen, NvrtcCompilesTheGeneratedKernelsWithoutADevice) {
  struct Case {
    const char* name;
    FitData data;
    bool single;
  };
  FitData uneven = eq5_data(3, 20);
  uneven.runs[1].t[3] += 0.001;
  std::vector<Case> cases;
  cases.push_back({"eq5 16 detectors, double", eq5_data(16, 20), false});
  cases.push_back({"eq5 16 detectors, float", eq5_data(16, 20), true});
  cases.push_back({"eq5 max-likelihood, double", eq5_data(2, 20, Statistic::max_likelihood), false});
  cases.push_back({"eq5 max-likelihood, float", eq5_data(2, 20, Statistic::max_likelihood), true});
  cases.push_back({"every op, double", every_op_data(8), false});
  cases.push_back({"every op, float", every_op_data(8), true});
  cases.push_back({"eq5 uneven times (not stepped), float", uneven, true});
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const CudaSource src = cuda_chi2_source(c.data, c.single);
    std::vector<char> ptx;
    ASSERT_NO_THROW(ptx = tomo::cuda::nvrtc_compile(src.text, "musr_test.cu", tomo::cuda::NvrtcOutput::ptx, 9, 0, src.nvrtc_options));
    const std::string text(ptx.begin(), ptx.end());
    EXPECT_NE(text.find(".entry musr_value"), std::string::npos);
    EXPECT_NE(text.find(".entry musr_gradient"), std::string::npos);
    EXPECT_NE(text.find(str_cat(".minnctapersm ", src.min_blocks)), std::string::npos) << "launch bounds";
    // cos.approx only in float; the double path stays double: no single-precision transcendental.
    EXPECT_EQ(text.find("cos.approx") != std::string::npos, c.single) << "cos.approx";
    if (!c.single) {
      EXPECT_EQ(text.find("ex2.approx.f32"), std::string::npos) << "ex2.approx.f32 in double";
    } else {
      EXPECT_NE(text.find("ex2.approx.ftz.f32"), std::string::npos) << "__expf with denormals flushed";
    }
  }
  // The GPU machine's driver gets a CUBIN for its sm_90.
  const CudaSource fast = cuda_chi2_source(cases[1].data, true);
  EXPECT_NO_THROW(tomo::cuda::nvrtc_compile(fast.text, "musr_test.cu", tomo::cuda::NvrtcOutput::cubin, 9, 0, fast.nvrtc_options));
  const CudaSource dbl = cuda_chi2_source(cases[0].data, false);
  EXPECT_NO_THROW(tomo::cuda::nvrtc_compile(dbl.text, "musr_test.cu", tomo::cuda::NvrtcOutput::cubin, 9, 0, dbl.nvrtc_options));
}

TEST(MusrCodegen, NvrtcReportsTheLogOfBrokenSource) {
  try {
    tomo::cuda::nvrtc_compile("extern \"C\" __global__ void k() { undeclared_thing(); }", "broken.cu", tomo::cuda::NvrtcOutput::ptx, 9, 0);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("undeclared_thing"), std::string::npos) << e.what();
  }
}
#endif

}  // namespace
}  // namespace tomo::musr::test
