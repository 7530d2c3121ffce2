// fuzz_seeds DIR: writes the seed corpus of every fuzz target into DIR/<target>/ (tools/fuzz.sh).
#include <cstdio>
#include <fstream>

#include "tests/fuzz/seeds.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds DIR\n");
    return 2;
  }
  for (const auto& [target, inputs] : tomo::fuzz::seeds()) {
    const auto dir = std::filesystem::path(argv[1]) / target;
    std::filesystem::create_directories(dir);
    for (std::size_t i = 0; i < inputs.size(); ++i)
      std::ofstream(dir / ("seed-" + std::to_string(i)), std::ios::binary)
          .write(reinterpret_cast<const char*>(inputs[i].data()), static_cast<std::streamsize>(inputs[i].size()));
  }
  return 0;
}
