// A fresh folder per test, named after the running test and the process, removed at the end.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace tomo::test {

struct TempDir {
  std::filesystem::path dir;
  explicit TempDir(const std::string& prefix = "tomo-test") {
    dir = std::filesystem::temp_directory_path() /
          (prefix + "-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~TempDir() { std::filesystem::remove_all(dir); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace tomo::test
