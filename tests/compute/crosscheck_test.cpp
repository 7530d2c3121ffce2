// Tests of the common cross-check table with a fake problem of two variants: the printed
// table, the report's JSON fields, the exit status and skipped backends.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "compute/core/crosscheck.hpp"

using namespace tomo;

namespace {

// The fake problem's "run this variant": the error grows with the variant's number.
CrosscheckErrors fake_variant(double err) { return {{"rel_l2", err, 1e-3}, {"psnr_db", 42.0}}; }

}  // namespace

TEST(Crosscheck, AllWithinToleranceExitsZero) {
  CrosscheckTable table("fake", "2 variants");
  testing::internal::CaptureStdout();
  table.run("gpu", "v1", [] { return fake_variant(1e-6); });
  table.run("gpu", "v2", [] { return fake_variant(1e-4); });
  table.skip("far", "", "no such device");
  RunReport report;
  const int status = table.finish(report);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, 0);
  EXPECT_NE(out.find("fake crosscheck against cpu: 2 variants"), std::string::npos) << out;
  EXPECT_NE(out.find("backend"), std::string::npos) << out;
  EXPECT_NE(out.find("1.000e-06"), std::string::npos) << out;
  EXPECT_NE(out.find("(reported)"), std::string::npos) << out;
  EXPECT_NE(out.find("skipped: no such device"), std::string::npos) << out;

  const auto& c = report.json().at("crosscheck");
  EXPECT_EQ(c.at("problem"), "fake");
  EXPECT_EQ(c.at("compared"), 2);
  EXPECT_TRUE(c.at("ok").get<bool>());
  const auto& rows = c.at("rows");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].at("backend"), "gpu");
  EXPECT_EQ(rows[1].at("variant"), "v2");
  EXPECT_DOUBLE_EQ(rows[1].at("errors").at("rel_l2").get<double>(), 1e-4);
  EXPECT_DOUBLE_EQ(rows[1].at("errors").at("psnr_db").get<double>(), 42.0);
  EXPECT_DOUBLE_EQ(rows[1].at("tolerance").at("rel_l2").get<double>(), 1e-3);
  EXPECT_FALSE(rows[1].at("tolerance").contains("psnr_db"));  // reported, not checked
  EXPECT_TRUE(rows[1].at("skipped").is_null());
  EXPECT_EQ(rows[2].at("skipped"), "no such device");
  EXPECT_TRUE(rows[2].at("ok").get<bool>());
}

TEST(Crosscheck, AnyAboveToleranceOrNanExitsOne) {
  for (double bad : {1e-2, std::nan("")}) {
    CrosscheckTable table("fake", "2 variants");
    testing::internal::CaptureStdout();
    table.run("gpu", "v1", [] { return fake_variant(1e-6); });
    table.run("gpu", "v2", [&] { return fake_variant(bad); });
    RunReport report;
    const int status = table.finish(report);
    const std::string out = testing::internal::GetCapturedStdout();
    EXPECT_EQ(status, 1);
    EXPECT_NE(out.find("ABOVE TOLERANCE"), std::string::npos) << out;
    const auto& rows = report.json().at("crosscheck").at("rows");
    EXPECT_TRUE(rows[0].at("ok").get<bool>());
    EXPECT_FALSE(rows[1].at("ok").get<bool>());
    EXPECT_FALSE(report.json().at("crosscheck").at("ok").get<bool>());
    if (std::isnan(bad)) {
      EXPECT_TRUE(rows[1].at("errors").at("rel_l2").is_null());  // JSON has no NaN
    }
  }
}

TEST(Crosscheck, OnlySkippedRowsCompareNothingAndPass) {
  CrosscheckTable table("fake", "none here");
  testing::internal::CaptureStdout();
  table.skip("gpu", "", "no CUDA device");
  RunReport report;
  const int status = table.finish(report);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, 0);
  EXPECT_NE(out.find("nothing compared"), std::string::npos) << out;
  EXPECT_EQ(report.json().at("crosscheck").at("compared"), 0);
}
