// Sets an environment variable (or removes it, for nullopt) for a scope, then restores it.
#pragma once
#include <cstdlib>
#include <optional>
#include <string>

namespace tomo::test {

class EnvVar {
 public:
  EnvVar(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~EnvVar() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  EnvVar(const EnvVar&) = delete;
  EnvVar& operator=(const EnvVar&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// The NVRTC cache (cuda/core/nvrtc_cache.hpp) in `dir`, enabled whatever the caller's environment says.
struct NvrtcCacheIn {
  explicit NvrtcCacheIn(const std::string& dir) : at("TOMORASTER_CACHE_DIR", dir), on("TOMORASTER_NVRTC_CACHE", std::nullopt) {}
  EnvVar at, on;
};

}  // namespace tomo::test
