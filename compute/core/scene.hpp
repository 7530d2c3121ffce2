// A scene: the TOML file that says which problem to run, on what geometry, phantom,
// acquisition and algorithm. Typed getters validate and name the file and key at fault.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compute/core/enum_name.hpp"

namespace toml { inline namespace v3 { class table; } }

namespace tomo {

class Scene {
 public:
  Scene();
  ~Scene();
  Scene(const Scene&);
  Scene& operator=(const Scene&);
  Scene(Scene&&) noexcept;
  Scene& operator=(Scene&&) noexcept;

  // Throws InputError naming the file (and line) when it is missing or malformed.
  static Scene load_file(const std::filesystem::path& path);
  static Scene load_string(std::string_view text, std::string source_name);

  // "a.b.c=value": value is parsed as a TOML value (number, bool, array, quoted
  // string); anything that does not parse is taken as a bare string.
  void apply_override(std::string_view assignment);

  const std::string& source() const { return source_; }
  // The problem this scene runs: top-level key `problem`.
  std::string problem() const;

  bool has(std::string_view key) const;
  // Typed access to a dotted key. `get` returns the fallback when the key is absent
  // (and records the fallback in the resolved scene); `require` throws.
  // Supported T: bool, int, int64_t, double, std::string, std::array<double,3>,
  // std::array<int,3>, std::vector<double>, std::vector<int>, std::vector<std::string>.
  template <class T> T get(std::string_view key, const T& fallback) const;
  template <class T> T require(std::string_view key) const;

  // Range-checked numbers: InputError unless lo <= value <= hi (and finite).
  double get_in_range(std::string_view key, double fallback, double lo, double hi) const;
  int get_int_in_range(std::string_view key, int fallback, int lo, int hi) const;
  // One of a list of names, e.g. granularity = "thread" | "warp".
  std::string get_choice(std::string_view key, const std::string& fallback,
                         const std::vector<std::string>& choices) const;
  // A name mapped to an enum through a table of (name, value) pairs, so a string option is
  // parsed once where the scene is read: InputError naming the key, the value and the
  // allowed names when the value is not in the table. `fallback` must be in the table.
  template <class E, std::size_t N>
  E get_enum(std::string_view key, E fallback, const std::array<EnumName<E>, N>& table) const {
    std::vector<std::string_view> names;
    std::size_t fallback_index = N;
    for (std::size_t i = 0; i < N; ++i) {
      names.push_back(table[i].name);
      if (table[i].value == fallback) fallback_index = i;
    }
    return table[choice_index(key, fallback_index, names)].value;
  }

  // An input file named by `key` ("" when the key is absent or empty). A relative path written
  // in a scene file is relative to that file's folder (as in every tool that reads a project
  // file); one given with --set, or in an embedded scene, to the working directory. Throws
  // InputError naming the key and the resolved path when it is not a readable regular file.
  std::filesystem::path get_input_path(std::string_view key) const;

  // Number of entries of an array of tables (e.g. [[glpet.phantom]]), 0 if absent.
  std::size_t array_size(std::string_view key) const;
  // Dotted key of the i-th table of such an array ("glpet.phantom.2"), usable with get.
  std::string element_key(std::string_view key, std::size_t i) const;

  // Keys a problem knows but does not read in this run (those of another data source or
  // another algorithm): declared once where the problem reads its scene, so they are not
  // reported as unused. Their values are not validated here.
  void declare_optional(std::initializer_list<std::string_view> keys) const;

  // Whether `key` was given by an override (--set, Python's set=/keywords) rather than the file.
  bool overridden(std::string_view key) const { return overridden_.count(std::string(key)) != 0; }

  // Keys present in the file that nothing asked for (likely typos).
  std::vector<std::string> unused_keys() const;
  // Once the problem has read (or declared) every key it knows: InputError
  // "<source>: unknown key 'k' (did you mean 'known'?)" for the first key nothing asked for,
  // naming the known key nearest by edit distance. `problem` and `backend` are always known.
  void check_unknown_keys() const;

  // The scene as it was resolved: file values, overrides and fallbacks used.
  nlohmann::json to_json() const;

  // Error text prefix "<source>: key 'a.b'" used by callers validating further.
  std::string where(std::string_view key) const;

 private:
  // Index of the key's value in `names` (fallback: names[fallback]); InputError otherwise.
  std::size_t choice_index(std::string_view key, std::size_t fallback, const std::vector<std::string_view>& names) const;

  std::string source_;
  std::filesystem::path base_dir_;  // folder of the scene file; empty for embedded scenes
  std::unique_ptr<toml::table> root_;
  mutable std::set<std::string, std::less<>> used_;
  std::set<std::string, std::less<>> overridden_;
};

// The scene compiled into the binary (scenes/default.toml).
std::string_view embedded_default_scene();
std::string_view embedded_scene(std::string_view name);  // "" when unknown
std::vector<std::string> embedded_scene_names();            // "default.toml", … (scenes/*.toml)

}  // namespace tomo
