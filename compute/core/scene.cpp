// Scene loading and typed, validated access on top of toml++.
#include "compute/core/scene.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <variant>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "compute/core/embedded.hpp"
#include "compute/core/error.hpp"
#include "compute/core/nearest_name.hpp"
#include "compute/core/output_format.hpp"
#include "compute/core/scene_nodes.hpp"
#include "compute/core/toml_guard.hpp"
#include "compute/io/input_file.hpp"

namespace tomo {
namespace detail {
extern const EmbeddedFile tomo_detail_scene_files[];
}

namespace {

using namespace scene_nodes;

// Conversions from a node to the supported types; return false on a type mismatch.
bool convert(const toml::node& n, bool& out) { if (!n.is_boolean()) return false; out = *n.value<bool>(); return true; }
bool convert(const toml::node& n, int64_t& out) { if (!n.is_integer()) return false; out = *n.value<int64_t>(); return true; }
bool convert(const toml::node& n, int& out) {
  int64_t v;
  if (!convert(n, v) || v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) return false;
  out = static_cast<int>(v);
  return true;
}
bool convert(const toml::node& n, double& out) {
  if (!n.is_number()) return false;
  out = *n.value<double>();
  return true;
}
bool convert(const toml::node& n, std::string& out) { if (!n.is_string()) return false; out = *n.value<std::string>(); return true; }
template <class E>
bool convert(const toml::node& n, std::vector<E>& out) {
  auto* a = n.as_array();
  if (!a) return false;
  out.clear();
  for (auto&& e : *a) {
    E v{};
    if (!convert(e, v)) return false;
    out.push_back(v);
  }
  return true;
}
template <class E, std::size_t N>
bool convert(const toml::node& n, std::array<E, N>& out) {
  std::vector<E> v;
  if (!convert(n, v) || v.size() != N) return false;
  std::copy(v.begin(), v.end(), out.begin());
  return true;
}

template <class T> const char* expected_name();
template <> const char* expected_name<bool>() { return "a boolean (true/false)"; }
template <> const char* expected_name<int>() { return "an integer from -2147483648 to 2147483647"; }
template <> const char* expected_name<int64_t>() { return "an integer"; }
template <> const char* expected_name<double>() { return "a number"; }
template <> const char* expected_name<std::string>() { return "a string"; }
template <> const char* expected_name<std::vector<double>>() { return "an array of numbers"; }
template <> const char* expected_name<std::vector<int>>() { return "an array of integers"; }
template <> const char* expected_name<std::vector<std::string>>() { return "an array of strings"; }
template <> const char* expected_name<std::array<double, 3>>() { return "an array of 3 numbers"; }
template <> const char* expected_name<std::array<int, 3>>() { return "an array of 3 integers"; }

bool all_finite(double v) { return std::isfinite(v); }
template <class V> bool all_finite(const V& v) {
  if constexpr (std::is_same_v<V, std::vector<double>> || std::is_same_v<V, std::array<double, 3>>) {
    for (double d : v) if (!std::isfinite(d)) return false;
  }
  return true;
}


}  // namespace

Scene::Scene() : root_(std::make_unique<toml::table>()) {}
Scene::~Scene() = default;
Scene::Scene(const Scene& o)
    : source_(o.source_),
      base_dir_(o.base_dir_),
      root_(std::make_unique<toml::table>(*o.root_)),
      used_(o.used_),
      overridden_(o.overridden_) {}
Scene& Scene::operator=(const Scene& o) {
  if (this != &o) *this = Scene(o);
  return *this;
}
Scene::Scene(Scene&&) noexcept = default;
Scene& Scene::operator=(Scene&&) noexcept = default;

Scene Scene::load_string(std::string_view text, std::string source_name) {
  Scene s;
  s.source_ = std::move(source_name);
  check_toml_text(text, s.source_);
  try {
    *s.root_ = toml::parse(text, s.source_);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    throw InputError(s.source_ + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) +
                     ": malformed scene: " + std::string(e.description()));
  }
  return s;
}

Scene Scene::load_file(const std::filesystem::path& path) {
  // Sized before reading: /dev/zero or a data file given as the scene must not fill memory.
  constexpr std::uintmax_t kMaxSceneBytes = 16u << 20;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path.string() + ": scene file not found");
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path.string() + ": is not a regular file, not a scene file");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(path.string() + ": cannot read scene file: " + ec.message());
  if (size > kMaxSceneBytes)
    throw InputError(path.string() + ": " + std::to_string(size) + " bytes is too large for a scene (TOML text of at most " +
                     std::to_string(kMaxSceneBytes >> 20) + " MiB); is it a data file?");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string() + ": cannot read scene file");
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<std::size_t>(in.gcount()));
  Scene s = load_string(text, path.string());
  s.base_dir_ = std::filesystem::absolute(path, ec).parent_path();
  return s;
}

std::filesystem::path Scene::get_input_path(std::string_view key) const {
  const std::string text = get<std::string>(key, "");
  if (text.empty()) return {};
  std::filesystem::path p(text);
  if (p.is_relative() && !base_dir_.empty() && !overridden_.count(std::string(key))) p = base_dir_ / p;
  p = p.lexically_normal();
  // The common gate (a folder, FIFO or device named as the file is said to be one); the
  // reader applies its format's size cap.
  io::check_input_file(p, std::numeric_limits<std::uintmax_t>::max(), where(key) + ": file");
  return p;
}

void Scene::apply_override(std::string_view assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw InputError("--set '" + std::string(assignment) + "': expected key=value");
  std::string key(assignment.substr(0, eq));
  std::string text(assignment.substr(eq + 1));
  while (!key.empty() && key.back() == ' ') key.pop_back();
  toml::table parsed;
  bool ok = false;
  try {
    check_toml_text("v = " + text, "--set");
    parsed = toml::parse("v = " + text);
    ok = parsed.contains("v");
  } catch (const toml::parse_error&) {
    ok = false;
  } catch (const InputError&) {
    ok = false;  // not TOML (e.g. unquoted non-ASCII text): taken as a bare string below
  }
  toml::node_view<toml::node> existing = root_->at_path(key);
  // A section (or an array of sections) is never replaced wholesale: `--set strip=5` would
  // silently drop the section and every earlier override in it.
  if (existing && (existing.is_table() || existing.is_array_of_tables()))
    throw InputError("--set '" + std::string(assignment) + "': '" + key +
                     "' is a section of the scene; set its keys one at a time (" + key + ".<key>=value)");
  if (!ok) {
    set_at(*root_, split_path(key), toml::value<std::string>(text), key);
  } else {
    toml::node* v = parsed.get("v");
    // An integer given for a key that holds a float stays a float.
    if (existing && existing.is_floating_point() && v->is_integer()) {
      set_at(*root_, split_path(key), toml::value<double>(static_cast<double>(*v->value<int64_t>())), key);
    } else {
      set_at(*root_, split_path(key), std::move(*v), key);
    }
  }
  overridden_.insert(key);
}

std::string Scene::problem() const { return require<std::string>("problem"); }

bool Scene::has(std::string_view key) const { return static_cast<bool>(root_->at_path(key)); }

std::string Scene::where(std::string_view key) const {
  std::string s = source_ + ": key '" + std::string(key) + "'";
  if (overridden_.count(std::string(key))) s += " (from --set)";
  return s;
}

template <class T>
T Scene::require(std::string_view key) const {
  auto node = root_->at_path(key);
  if (!node) throw InputError(where(key) + " is missing (expected " + expected_name<T>() + ")");
  used_.insert(std::string(key));
  T out{};
  if (!convert(*node.node(), out))
    throw InputError(where(key) + " expected " + expected_name<T>() + ", got " + type_name(*node.node()) + " " +
                     show(*node.node()));
  if (!all_finite(out)) throw InputError(where(key) + " must be finite, got " + show(*node.node()));
  return out;
}

namespace {
template <class T>
void insert_fallback(toml::table& root, std::string_view key, const T& v) {
  auto path = split_path(key);
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, double> || std::is_same_v<T, std::string>) {
    set_at(root, path, toml::value<T>(v), key);
  } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, int64_t>) {
    set_at(root, path, toml::value<int64_t>(v), key);
  } else {
    toml::array arr;
    for (const auto& e : v) {
      if constexpr (std::is_same_v<std::decay_t<decltype(e)>, int>) arr.push_back(static_cast<int64_t>(e));
      else arr.push_back(e);
    }
    set_at(root, path, std::move(arr), key);
  }
}
}  // namespace

template <class T>
T Scene::get(std::string_view key, const T& fallback) const {
  if (!has(key)) {
    try {
      insert_fallback(*root_, key, fallback);  // so the report shows what was used
    } catch (const InputError&) {
      // e.g. the parent is an array element that does not exist: nothing to record
    }
    used_.insert(std::string(key));
    return fallback;
  }
  return require<T>(key);
}

#define TOMO_SCENE_INSTANTIATE(T)                                   \
  template T Scene::get<T>(std::string_view, const T&) const;       \
  template T Scene::require<T>(std::string_view) const;
TOMO_SCENE_INSTANTIATE(bool)
TOMO_SCENE_INSTANTIATE(int)
TOMO_SCENE_INSTANTIATE(int64_t)
TOMO_SCENE_INSTANTIATE(double)
TOMO_SCENE_INSTANTIATE(std::string)
TOMO_SCENE_INSTANTIATE(std::vector<double>)
TOMO_SCENE_INSTANTIATE(std::vector<int>)
TOMO_SCENE_INSTANTIATE(std::vector<std::string>)
#undef TOMO_SCENE_INSTANTIATE
template std::array<double, 3> Scene::get<std::array<double, 3>>(std::string_view, const std::array<double, 3>&) const;
template std::array<double, 3> Scene::require<std::array<double, 3>>(std::string_view) const;
template std::array<int, 3> Scene::get<std::array<int, 3>>(std::string_view, const std::array<int, 3>&) const;
template std::array<int, 3> Scene::require<std::array<int, 3>>(std::string_view) const;

double Scene::get_in_range(std::string_view key, double fallback, double lo, double hi) const {
  double v = get<double>(key, fallback);
  if (!(v >= lo && v <= hi)) {
    std::ostringstream os;
    os << where(key) << " must be in [" << lo << ", " << hi << "], got " << v;
    throw InputError(os.str());
  }
  return v;
}

int Scene::get_int_in_range(std::string_view key, int fallback, int lo, int hi) const {
  int v = get<int>(key, fallback);
  if (v < lo || v > hi)
    throw InputError(where(key) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                     std::to_string(v));
  return v;
}

std::string Scene::get_choice(std::string_view key, const std::string& fallback,
                              const std::vector<std::string>& choices) const {
  const std::vector<std::string_view> names(choices.begin(), choices.end());
  std::size_t fallback_index = names.size();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == fallback) fallback_index = i;
  return choices[choice_index(key, fallback_index, names)];
}

std::size_t Scene::choice_index(std::string_view key, std::size_t fallback,
                                const std::vector<std::string_view>& names) const {
  if (fallback >= names.size() && !has(key))
    throw Error("scene: fallback of '" + std::string(key) + "' is not one of its names");
  const std::string v = get<std::string>(key, fallback < names.size() ? std::string(names[fallback]) : "");
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == v) return i;
  std::string list;
  for (const auto& c : names) list += (list.empty() ? "" : ", ") + std::string(c);
  throw InputError(where(key) + " must be one of " + list + ", got '" + v + "'");
}

std::size_t Scene::array_size(std::string_view key) const {
  auto node = root_->at_path(key);
  if (!node) return 0;
  used_.insert(std::string(key));
  auto* arr = node.as_array();
  if (!arr) throw InputError(where(key) + " expected an array, got " + type_name(*node.node()));
  return arr->size();
}

std::string Scene::element_key(std::string_view key, std::size_t i) const {
  return std::string(key) + "[" + std::to_string(i) + "]";
}

void Scene::declare_optional(std::initializer_list<std::string_view> keys) const {
  for (std::string_view k : keys) used_.insert(std::string(k));
}

std::vector<std::string> Scene::unused_keys() const {
  std::vector<std::string> all, out;
  collect_keys(*root_, "", all);
  for (const auto& k : all)
    if (!used_.count(k)) out.push_back(k);
  return out;
}

void Scene::check_unknown_keys() const {
  declare_optional({"problem", "backend"});  // read by the CLI, not by the problem
  (void)output_formats(*this);                // every problem's image writer reads it
  const std::vector<std::string> unknown = unused_keys();
  if (unknown.empty()) return;
  const std::string near = nearest_name(unknown.front(), std::vector<std::string>(used_.begin(), used_.end()));
  std::string msg = source_ + ": unknown key '" + unknown.front() + "'";
  if (!near.empty()) msg += " (did you mean '" + near + "'?)";
  throw InputError(msg);
}

nlohmann::json Scene::to_json() const { return to_json_node(*root_); }

std::string_view embedded_scene(std::string_view name) {
  return detail::find_embedded(detail::tomo_detail_scene_files, name);
}

std::string_view embedded_default_scene() { return embedded_scene("default.toml"); }

std::vector<std::string> embedded_scene_names() {
  std::vector<std::string> out;
  for (const detail::EmbeddedFile* f = detail::tomo_detail_scene_files; f->name; ++f) out.emplace_back(f->name);
  return out;
}

}  // namespace tomo
