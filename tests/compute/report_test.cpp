// Tests of the JSON run report: timings accumulate, NaN metrics become null, the file parses.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <unistd.h>

#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"

using namespace tomo;

TEST(RunReport, StartsWithToolVersionAndEmptySections) {
  RunReport r;
  const auto& j = r.json();
  EXPECT_EQ(j.at("tool"), "tomoraster");
  EXPECT_TRUE(j.at("version").is_string());
  const std::string started = j.at("started");
  ASSERT_EQ(started.size(), 20u) << started;  // 2024-01-02T03:04:05Z
  EXPECT_EQ(started[10], 'T');
  EXPECT_EQ(started.back(), 'Z');
  EXPECT_TRUE(j.at("timings_ms").is_object() && j.at("timings_ms").empty());
  EXPECT_TRUE(j.at("metrics").is_object());
  EXPECT_TRUE(j.at("devices").is_array());
}

TEST(RunReport, SaysWhichBuildRanWhereAndHow) {
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  runtime_options().command_line = {"tomoraster", "run", "demo.toml"};
  RunReport r;
  runtime_options().command_line.clear();
  const auto& j = r.json();
  EXPECT_EQ(j.at("host"), std::string(host));
  EXPECT_FALSE(j.at("commit").get<std::string>().empty());
  EXPECT_EQ(j.at("command_line"), (nlohmann::json{"tomoraster", "run", "demo.toml"}));
  EXPECT_FALSE(RunReport().json().contains("command_line"));  // not from the CLI
}

TEST(RunReport, WholeNumberMetricsAreIntegers) {
  RunReport r;
  r.set_metric("events", 5000.0);
  r.set_metric("ratio", 0.5);
  r.set_metric("huge", 1e300);
  EXPECT_TRUE(r.json()["metrics"]["events"].is_number_integer());
  EXPECT_EQ(r.json()["metrics"].dump(), R"({"events":5000,"huge":1e+300,"ratio":0.5})");
}

TEST(RunReport, TimingsAccumulate) {
  RunReport r;
  r.add_timing("forward", 1.5);
  r.add_timing("forward", 2.25);
  r.add_timing("back", 4.0);
  { auto t = r.time("scoped"); }
  const auto& t = r.json().at("timings_ms");
  EXPECT_DOUBLE_EQ(t.at("forward").at("total_ms").get<double>(), 3.75);
  EXPECT_EQ(t.at("forward").at("calls").get<int>(), 2);
  EXPECT_EQ(t.at("back").at("calls").get<int>(), 1);
  EXPECT_EQ(t.at("scoped").at("calls").get<int>(), 1);
  EXPECT_GE(t.at("scoped").at("total_ms").get<double>(), 0.0);
}

TEST(RunReport, NanMetricBecomesNullAndFileIsValidJson) {
  RunReport r;
  r.set_metric("nrmse", 0.125);
  r.set_metric("bad", std::numeric_limits<double>::quiet_NaN());
  r.set_metric("inf", std::numeric_limits<double>::infinity());
  r.add_device("CPU (test)");
  r.set("problem", "demo");
  EXPECT_TRUE(r.json().at("metrics").at("bad").is_null());
  EXPECT_TRUE(r.json().at("metrics").at("inf").is_null());

  const auto dir = std::filesystem::temp_directory_path() / ("tomo_report_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "report.json";
  r.write(path);
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);  // throws on invalid JSON
  EXPECT_DOUBLE_EQ(j.at("metrics").at("nrmse").get<double>(), 0.125);
  EXPECT_TRUE(j.at("metrics").at("bad").is_null());
  EXPECT_EQ(j.at("devices").at(0), "CPU (test)");
  EXPECT_EQ(j.at("problem"), "demo");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u);  // no temp file left
  std::filesystem::remove_all(dir);
}
