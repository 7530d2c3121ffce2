// The two sizes bench_fdk's --b-variants and --pipeline run: 256³ from 360 views of 512² and
// RabbitCT's (512³ from 496 views of 1248×960), named in a comma-separated list.
#pragma once
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace tomo::fdk::bench_cases {

struct Case {
  std::string name;
  int L, views, sx, sy;
};

// The cases of `list` ("256", "rabbit"), in its order; a name other than those prints one line
// naming `flag` and leaves `out` short of it (returns false).
inline bool parse(const std::string& list, const char* flag, std::vector<Case>& out) {
  std::stringstream ss(list);
  for (std::string name; std::getline(ss, name, ',');) {
    if (name == "256")
      out.push_back({"256", 256, 360, 512, 512});
    else if (name == "rabbit")
      out.push_back({"rabbit", 512, 496, 1248, 960});
    else {
      std::fprintf(stderr, "bench_fdk: %s takes 256 and/or rabbit, not %s\n", flag, name.c_str());
      return false;
    }
  }
  return true;
}

}  // namespace tomo::fdk::bench_cases
